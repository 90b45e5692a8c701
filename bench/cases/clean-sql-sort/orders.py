"""Order listing for the back office, sortable by a column the user picks."""
from db import connection

SORTABLE = {"date": "created_at", "total": "total_cents", "customer": "customer_name"}


def list_orders(status: str, sort: str = "date", limit: int = 50) -> list[tuple]:
    column = SORTABLE.get(sort, "created_at")
    limit = max(1, min(limit, 200))
    sql = f"SELECT id, customer_name, total_cents FROM orders WHERE status = %s ORDER BY {column} DESC LIMIT %s"
    with connection() as conn:
        return conn.execute(sql, (status, limit)).fetchall()
