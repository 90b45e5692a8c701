"""The closest valid names to a name nobody knows: what "did you mean …?" offers.

Every "unknown NAME" error (a preset, an agent, a run id, a schema, an option's value, a
key) says what was probably meant instead of listing every valid name on one line; with
nothing close, it says what it said before (the names, or where they are listed). Case is
ignored when comparing. Pure: no I/O.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

CUTOFF = 0.6  # difflib's own default: "secruity" finds "security", "xyz" finds nothing
MOST = 3
TIE = 0.05  # names this much less close than the closest are offered beside it


def closest(name: str, choices: Iterable[str], n: int = MOST, cutoff: float = CUTOFF) -> list[str]:
    """Up to ``n`` valid names close to ``name``, closest first, and only those about as
    close as the closest (a near tie, not the runner-up). A name that ``name`` begins or
    ends ("pragmatist" → "pragmatist-vs-purist") counts as close."""
    by_fold: dict[str, str] = {}
    for choice in choices:
        by_fold.setdefault(choice.casefold(), choice)
    typed = name.strip().casefold()
    if not typed:
        return []
    matcher = difflib.SequenceMatcher()
    matcher.set_seq2(typed)
    scored: list[tuple[float, str]] = []
    for fold in by_fold:
        matcher.set_seq1(fold)
        score = matcher.ratio()
        if len(typed) >= 3 and (fold.startswith(typed) or fold.endswith(typed)):
            score = max(score, TIE + cutoff)
        if score >= cutoff:
            scored.append((score, fold))
    scored.sort(key=lambda s: -s[0])
    best = scored[0][0] if scored else 0.0
    return [by_fold[f] for score, f in scored[:n] if score >= best - TIE]


def did_you_mean(name: str, choices: Iterable[str], fallback: str) -> str:
    """The end of an "unknown NAME" line: ``did you mean 'x'?`` (or ``'x' or 'y'``), or
    ``fallback`` (the valid names, or where they are listed) when nothing is close."""
    near = closest(name, choices)
    if not near:
        return fallback
    return "did you mean " + " or ".join(repr(c) for c in near) + "?"
