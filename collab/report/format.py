"""The small labels every report shares: a cost, a token count."""

from __future__ import annotations

from collab.state import RunState


def fmt_cost(cost: float | None) -> str:
    return "n/a" if cost is None else f"${cost:.4f}"


def tokens_line(state: RunState) -> str:
    """``1,200 in · 340 out · …``, the zero counts left out; ``n/a`` when none is known."""
    t = state.tokens()
    parts = [
        ("in", t.input_tokens),
        ("out", t.output_tokens),
        ("cache read", t.cache_read_tokens),
        ("cache write", t.cache_write_tokens),
    ]
    if not any(n for _, n in parts):
        return "n/a"
    return " · ".join(f"{n:,} {label}" for label, n in parts if n)


def judge_title(state: RunState) -> str:
    """The summary section's heading: a fallback summary is labelled as ours."""
    fallback = state.judge is not None and state.judge.fallback
    return "Summary (from the ledger)" if fallback else "Judge summary"
