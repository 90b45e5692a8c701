"""Page links for list views (orders, invoices, customers)."""
from dataclasses import dataclass


@dataclass(frozen=True)
class Page:
    number: int
    start: int
    end: int


def page_count(total: int, per_page: int) -> int:
    if per_page <= 0:
        raise ValueError("per_page must be positive")
    return total // per_page


def pages(total: int, per_page: int) -> list[Page]:
    """Every page of a list of ``total`` items, numbered from 1."""
    return [
        Page(n + 1, n * per_page, min((n + 1) * per_page, total))
        for n in range(page_count(total, per_page))
    ]
