"""The price table: which pattern prices an agent and model, and what a call is estimated at."""

from __future__ import annotations

import pytest

from collab.prices import DEFAULT_PRICES, Price, estimate, price_for


@pytest.mark.parametrize(
    ("agent", "model", "pattern"),
    [("codex", None, "codex:default"), ("codex", "gpt-5-mini", "*:gpt-5*mini*"),
     ("llm", "gpt-4o-mini", "*:gpt-4o-mini*"), ("gemini", None, "gemini:default"),
     ("gemini", "gemini-2.5-flash", "*:gemini-*flash*"), ("ollama", "llama3", "ollama:*"),
     ("llm", "smollm2", None), ("mycli", None, None)],
)  # fmt: skip
def test_price_for(agent: str, model: str | None, pattern: str | None) -> None:
    price = price_for(agent, model, DEFAULT_PRICES)
    assert (price.pattern if price else None) == pattern


def test_the_users_price_comes_first() -> None:
    mine = Price("llm:*", 0.0, 0.0)
    assert price_for("llm", "gpt-4o", (mine, *DEFAULT_PRICES)) is mine


def test_estimate_from_tokens_else_sizes() -> None:
    p = Price("x:*", 2.0, 8.0)  # USD per million tokens
    assert estimate(p, 4_000, 400, 1_000, 100) == pytest.approx(0.0028)
    assert estimate(p, 4_000, 400) == pytest.approx((1_000 * 2 + 100 * 8) / 1e6)
    assert estimate(p, 3, 1) == pytest.approx((1 * 2 + 1 * 8) / 1e6)  # rounded up
