"""The words a regular expression needs: literal runs one of which every match holds.

A detector of the secret scan (:mod:`collab.secret_scan`) reports only what its patterns
find in a line, so a line holding none of the words its patterns need is skipped without
running them. The words are read from the parsed patterns (``re._parser``) and compared
case-folded, as ``re.IGNORECASE`` matches: most lines of prose and code hold none of a
detector's words.
"""

from __future__ import annotations

from typing import Any

# The characters other than ASCII letters that a case-insensitive pattern matches as one
# (``re.IGNORECASE`` folds by single characters: "İ" matches "i", "ſ" matches "s"; the
# Kelvin sign lower-cases to "k" by itself); ``str.lower`` does the rest.
_FOLDS = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s"})


def fold(line: str) -> str:
    """The line as the words of :func:`needed_words` are looked for in it."""
    return line.translate(_FOLDS).lower()


def needed_words(patterns: list[Any] | None) -> frozenset[str] | None:
    """Words (lower case) one of which every match of any of the patterns holds, folded as
    :func:`fold` folds a line; None when there are no patterns or one needs no such word."""
    if not patterns:
        return None
    found: set[str] = set()
    for pattern in patterns:
        needed = _needed(_re_parser().parse(pattern.pattern, pattern.flags))
        if needed is None:
            return None
        found |= needed
    return frozenset(found)


def _needed(items: Any) -> frozenset[str] | None:
    """Of a parsed pattern (a sequence of ``re._parser`` items), the surest set of ASCII
    literal runs one of which each of its matches holds, or None: the runs of consecutive
    literals, a group's own, a branch's (all its alternatives' together), a repeat's taken
    at least once; the set whose shortest run is longest."""
    best: frozenset[str] | None = None
    run = ""
    for op, av in [*items, (None, None)]:
        name = str(op)
        if name == "LITERAL" and chr(av).isascii():
            run += chr(av).lower()
            continue
        found: frozenset[str] | None = frozenset({run}) if run else None
        run = ""
        best = _surer(best, found)
        if name in ("SUBPATTERN", "ATOMIC_GROUP"):
            found = _needed(av[-1] if name == "SUBPATTERN" else av)
        elif name == "BRANCH":
            each = [_needed(branch) for branch in av[1]]
            found = None if None in each else frozenset().union(*each)  # type: ignore[arg-type]
        elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT") and av[0] >= 1:
            found = _needed(av[2])
        else:
            found = None
        best = _surer(best, found)
    return best


def _surer(a: frozenset[str] | None, b: frozenset[str] | None) -> frozenset[str] | None:
    """The set of words less likely found by chance: the one whose shortest word is longer."""
    if a is None or (b is not None and min(map(len, b)) > min(map(len, a))):
        return b
    return a


def _re_parser() -> Any:
    import importlib

    return importlib.import_module("re._parser")
