"""Product search for the shop's storefront."""
from db import connection


def search_products(term: str, limit: int = 20) -> list[dict]:
    """Products whose name contains ``term``, newest first."""
    limit = max(1, min(limit, 100))
    sql = (
        "SELECT id, name, price FROM products "
        f"WHERE name LIKE '%{term}%' "
        "ORDER BY created_at DESC LIMIT %s"
    )
    with connection() as conn:
        rows = conn.execute(sql, (limit,)).fetchall()
    return [{"id": r[0], "name": r[1], "price": r[2]} for r in rows]
