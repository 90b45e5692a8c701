"""The shared strategies draw what Hypothesis's own would, without its codec check."""

from __future__ import annotations

from hypothesis.strategies._internal.lazy import unwrap_strategies

from tests.unit.strategies import UNICODE, text

SURROGATES = (0xD800, 0xDFFF)


def test_unicode_is_every_character_utf8_encodes() -> None:
    # What the utf-8 codec encodes is every code point but the surrogates: asserted as
    # intervals, not by asking Hypothesis's codec check (the work this strategy spares).
    intervals = unwrap_strategies(UNICODE).intervals.intervals
    assert intervals == ((0, SURROGATES[0] - 1), (SURROGATES[1] + 1, 0x10FFFF))
    assert "\ud800".encode("utf-8", "surrogatepass") and not _encodes("\ud800")
    assert _encodes("\ud7ff") and _encodes("\ue000") and _encodes("\U0010ffff")


def test_text_keeps_its_size() -> None:
    strategy = unwrap_strategies(text(max_size=8))
    assert strategy.max_size == 8 and strategy.min_size == 0
    assert unwrap_strategies(strategy.element_strategy) is unwrap_strategies(UNICODE)


def _encodes(char: str) -> bool:
    try:
        char.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
