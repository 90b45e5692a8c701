"""Hypothesis strategies the property tests share."""

from __future__ import annotations

from hypothesis import strategies as st

# Every character UTF-8 can encode: all but the surrogates (category Cs). These are the
# characters ``st.text()`` draws by default, ``st.characters(codec="utf-8")``, which Hypothesis
# turns into these categories but then also checks against the codec itself, character by
# character: ~1-2 s of CPU on a checkout's first run (cached in .hypothesis/ after). Said as
# categories, it is the same set without that check (tests/unit/test_strategies.py).
UNICODE = st.characters(exclude_categories=("Cs",))


def text(*, max_size: int | None = None) -> st.SearchStrategy[str]:
    """``st.text(max_size=...)``: the same strings, drawn from :data:`UNICODE`."""
    return st.text(UNICODE, max_size=max_size)
