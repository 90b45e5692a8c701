"""The words a line must hold before a detector runs on it (collab.secret_words): they
skip work, never a finding. The engine's findings are compared with the old path's — every
line plugin on every line, a line's filters run for its first candidate — over the corpus's
planted variants (each kind, each spelling, in a context file) and lines whose keywords are
spelled with the characters re.IGNORECASE folds into ASCII letters. (On the corpus's benign
files both paths find nothing: test_no_benign_file_is_flagged passes on both; the corpus is
seeded.)"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from typing import Any

import pytest

from collab import secret_scan
from collab.secret_scan import _both, _Engine, _kind, _may_reject, _rejects, scan_text
from collab.secret_words import fold, needed_words
from tests.secret_corpus import variants
from tests.unit.test_secret_scan import fill


class _OldPath(_Engine):
    """The scan before the words: every line plugin, with only its skip test, on every line."""

    def _kinds(
        self, plugins: list[Any], filename: str, context: Any, number: int, line: str
    ) -> Iterator[str]:
        values: dict[str, Any] = {"filename": filename, "line": line, "context": context}
        line_checked = False
        for plugin, _words_of_it, gate in self._line_plugins:
            if gate is not None and not gate(plugin, line, context):
                continue
            for candidate in plugin.analyze_line(
                filename=filename, line=line, line_number=number, context=context
            ):
                if not line_checked:
                    if any(
                        _rejects(fn, values) for fn in self._line_filters if _may_reject(fn, line)
                    ):
                        return
                    line_checked = True
                secret = candidate.secret_value
                if not secret or not any(
                    _rejects(fn, {**values, "secret": secret, "plugin": plugin})
                    for fn in self._value_filters
                ):
                    yield _kind(plugin)


# Keywords and key prefixes spelled with a character that matches an ASCII letter only
# case-insensitively: long s, dotted I, the Kelvin sign (the only word of its detector the
# line holds, folded), dotless i.
FOLDED = [
    ("Folded-long-s", "\u017fecret = '" + fill(14) + "'\n", "app.py"),
    ("Folded-dotted-I", "AUTHOR\u0130ZAT\u0130ON: Basic " + fill(24) + "\n", "notes.md"),
    ("Folded-kelvin", "client-\u212aey-data: " + fill(40) + "1\n", "notes.md"),
    ("Folded-dotless-i", "ap\u0131_key = '" + fill(14) + "'\n", "app.py"),
]


@functools.cache
def _texts() -> list[tuple[str, str, str]]:
    """Each planted kind in each spelling (CRLF, indented, quoted, split by an invisible
    character...) in a context file; the hit and clean cases' findings are pinned by
    test_secret_scan_engine, and the old path doubles the cost of a text."""
    out = [(v.test_id, v.text, v.path) for v in variants() if "-lower-context" in v.test_id]
    return out + FOLDED


def test_the_words_change_no_finding() -> None:
    with secret_scan._engine() as engine:
        old = _OldPath.__new__(_OldPath)
        old.__dict__.update(engine.__dict__)
        differ = [
            test_id
            for test_id, text, source in _texts()
            if _both(engine, text, source) != _both(old, text, source)
        ]
        folded = [_both(old, text, source) for _, text, source in FOLDED]
    assert differ == []
    # The folded spellings are findings of the old path, so the comparison means something.
    assert all(folded), folded


def test_a_line_is_folded_as_ignorecase_matches_ascii_letters() -> None:
    assert fold("İı ſ \u212a AbC-Z") == "ii s k abc-z"
    every = "".join(map(chr, range(0x250))) + "\u212a"
    matched = set(re.findall("[a-z]", every, re.IGNORECASE))
    assert {c for c in matched if fold(c) not in "abcdefghijklmnopqrstuvwxyz"} == set()


@pytest.mark.parametrize(
    ("patterns", "words"),
    [
        ([], None),
        (["abc"], {"abc"}),
        (["(?i)SeCrEt"], {"secret"}),
        (["a(?:key|pwd)"], {"key", "pwd"}),
        (["ab(?:cde|fgh)"], {"cde", "fgh"}),
        (["abc(?:de|fg)"], {"abc"}),
        (["ab(?:cd|ef)"], {"ab"}),
        (["x(?:key|)"], {"x"}),
        (["(?:key|)"], None),
        (["[ab]{3}"], None),
        (["(?:foo)?bar"], {"bar"}),
        (["(?:foo){0,2}ba"], {"ba"}),
        (["(?:foo){1,2}ba"], {"foo"}),
        (["(?:foo)+?ba"], {"foo"}),
        (["(?:foo)++ba"], {"foo"}),
        (["(?>foo)ba"], {"foo"}),
        (["(?=foo)ba"], {"ba"}),
        (["(?=foo)"], None),
        (["\\bxy\\b"], {"xy"}),
        (["año"], {"a"}),
        (["ab(cde)"], {"cde"}),
        (["abc", "de"], {"abc", "de"}),
        (["abc", "[de]"], None),
        (["[de]", "abc"], None),
    ],
)
def test_the_words_of_patterns(patterns: list[str], words: set[str] | None) -> None:
    compiled = [re.compile(p) for p in patterns]
    assert needed_words(compiled) == (None if words is None else frozenset(words))


def test_a_verbose_pattern_is_read_as_compiled() -> None:
    assert needed_words([re.compile("ab c  # d", re.VERBOSE)]) == frozenset({"abc"})


def test_a_plugin_without_patterns_runs_on_every_line() -> None:
    assert secret_scan._patterns(object()) is None


def test_every_line_detector_is_skipped_on_a_line_without_its_words(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each line detector of a new engine (the keyword detector by its gate's words) has
    words: none runs its patterns on every line."""
    monkeypatch.setattr(secret_scan, "_BUILT", [])
    with secret_scan._engine() as engine:
        words = {type(p).__name__: w for p, w, _ in engine._line_plugins}
    assert [name for name, w in words.items() if not w] == []
    assert {"secret", "token", "password"} <= (words["KeywordDetector"] or set())
    assert words["GoogleApiKeyDetector"] == frozenset({"aiza"})


INDIRECT = [
    "password = get_secret_key()",
    "token = request.headers['apikey']",
    "a: b = f(x)",
    "if key == keys[0]:",
    "pass := call(a)",
    "x !== y(z)",
    "api_key = 'abc'  # see (the docs)",
    "key: value(1",
    "no operator here (x)",
    "x != (y)",
    'secret=os.environ["S"]',
    "a = b = c[d]",
    "token:\tvault.read(path)",
]


def test_the_indirect_reference_filter_runs_where_its_pattern_can_be_found() -> None:
    """is_indirect_reference drops a line where its pattern's tail is found, and only there
    (its pattern is that tail after anything, possibly nothing): elsewhere it is not run."""
    from detect_secrets.filters.heuristic import (
        _get_indirect_reference_regex,
        is_indirect_reference,
    )

    assert _get_indirect_reference_regex().pattern.endswith(secret_scan._INDIRECT_TAIL.pattern)
    lines = INDIRECT + [
        line.strip()
        for _, text, _ in _texts()
        for line in text.splitlines()
        if "(" in line or "[" in line  # neither pattern is found in a line without
    ]
    assert [
        line
        for line in lines
        if is_indirect_reference(line) != _may_reject(is_indirect_reference, line)
    ] == []
    assert [is_indirect_reference(line) for line in INDIRECT] == [True] * 6 + [False] * 4 + [
        True
    ] * 3
    # A line over 1,000 characters is never dropped by it; it may be run there, in vain.
    assert not is_indirect_reference("x" * 1000 + " = f(y)")
    assert _may_reject(lambda line: False, "no bracket")


def test_a_dropped_value_beside_a_key_does_not_hide_it() -> None:
    """A detector's candidates on one line come as a set, in no set order: each one the
    engine's value filters drop leaves the others to be judged (twenty lines, five dropped
    values each, so one of them judged first is all but certain)."""
    placeholders = [c * 24 for c in "~-./+"]  # no letter or digit: dropped by a value filter
    lines = [
        " ".join(f"-H 'X-{i}: Bearer {p}'" for i, p in enumerate(placeholders))
        + f" -H 'Y: Bearer {fill(32)}'"
        for _ in range(20)
    ]
    hits = scan_text("\n".join(lines) + "\n", "notes.md")
    assert [(h.line, h.kind) for h in hits] == [(n, "Authorization Header") for n in range(1, 21)]
