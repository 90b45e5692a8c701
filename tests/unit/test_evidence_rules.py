"""The pure rules of ``collab.evidence`` at their edges: what counts as a cite and its
quote, the cap, ``..`` and absolute paths, the marks views show, re-checks by key."""

from __future__ import annotations

from pathlib import Path

from collab.evidence import (
    MAX_CITES,
    Cite,
    EvidenceCheck,
    check_text,
    cites,
    escapes,
    judge,
    marks,
    normal,
    recheck,
)


def test_marks_for_every_status() -> None:
    checks = [EvidenceCheck(f"f{n}.py:1", None, s) for n, s in enumerate(
        ("verified", "wrong-line", "no-such-file", "outside", "unchecked"))]  # fmt: skip
    assert marks(checks) == (
        "f0.py:1 ✓, f1.py:1 ✗ wrong-line, f2.py:1 ✗ no-such-file, f3.py:1 ✗ outside, "
        "f4.py:1 ? unchecked"
    )
    assert marks([]) == ""


def test_at_most_twenty_cites_per_evidence() -> None:
    found = cites(" ".join(f"a.py:{n}" for n in range(1, 26)))
    assert MAX_CITES == 20 and [c.start for c in found] == list(range(1, 21))


def test_what_a_cite_is() -> None:
    where = [c.where for c in cites(
        "a.abcdefghij:1 b.abcdefghijk:2 c.py:1234567 d.py:12345678 e.py:3–5 f.py:6 - 8 "
        "g.1py:1 x/h.py:2: i.py:4:5 .j.py:7 ~/k.py:1 l.py:9-9")]  # fmt: skip
    assert where == ["a.abcdefghij:1", "c.py:1234567", "e.py:3-5", "f.py:6-8", ".j.py:7",
                     "~/k.py:1", "l.py:9"]  # fmt: skip
    assert cites("m.py:2-4")[0] == Cite("m.py", 2, 4)


def test_a_quote_is_the_next_backtick_span_before_the_next_cite() -> None:
    assert [c.quote for c in cites("a.py:1 no quote b.py:2 `held` `not this`")] == [None, "held"]
    assert cites("`a.py:1` then `x = 1`")[0].quote == "x = 1"  # the cite's own backticks
    assert cites("a.py:1 `b.py:2` `y`")[0].quote is None  # a cite in backticks is a cite
    assert cites("a.py:1 `   ` `z`")[0].quote == "z"  # a blank span is no quote
    assert cites("a.py:1 `" + "q" * 400 + "`")[0].quote == "q" * 400
    assert cites("a.py:1 `" + "q" * 401 + "`")[0].quote is None


def test_escapes_and_normal() -> None:
    assert [escapes(p) for p in ("/etc/x.py", "~/x.py", "..", "a/../../x.py", "../x.py")] == [
        True, True, True, True, True]  # fmt: skip
    assert [escapes(p) for p in ("a/../x.py", "..a.py", "a/..b/x.py", "x.py")] == [
        False, False, False, False]  # fmt: skip
    assert normal("./a/b/../c.py") == "a/c.py" and normal("a//c.py") == "a/c.py"
    assert normal(".//a/c.py") == "a/c.py"  # not the absolute /a/c.py


def test_a_context_file_named_with_dot_slashes_still_verifies_its_cites(tmp_path: Path) -> None:
    from collab.config import ContextFile, DebateConfig, Role
    from collab.evidence_files import lookup

    cfg = DebateConfig("t", Role("A", "a", "a"), Role("B", "b", "b"), tools="none",
                       contexts=(ContextFile(".//src/app.py", "x = 1\n"),))  # fmt: skip
    (cite,) = cites("src/app.py:1 `x = 1`")
    assert judge(cite, lookup([cite.path], cfg, tmp_path)[cite.path]) == "verified"


def test_quotes_of_three_cites_and_a_quote_right_after_a_cite() -> None:
    assert [c.quote for c in cites("a.py:1 `x` b.py:2 `y` c.py:3 `z`")] == ["x", "y", "z"]
    assert cites("a.py:1`held`")[0].quote == "held"  # no space: still its quote
    assert cites("`a.py:1``held`")[0].quote == "held"  # nor after a cite in backticks
    assert judge(Cite("f.py", 2, 2, "a"), ["a\n", "b\n"]) == "wrong-line"  # not the line before


def test_judge_at_the_last_line_and_quotes_across_whitespace() -> None:
    lines = ["a\n", "b = 1\n", "c\n"]
    assert judge(Cite("f.py", 3, 3), lines) == "verified"  # the last line exists
    assert judge(Cite("f.py", 1, 3), lines) == "verified"
    assert judge(Cite("f.py", 2, 2, "b=1"), lines) == "verified"
    assert judge(Cite("f.py", 1, 1, "b = 1"), lines) == "wrong-line"


def test_check_text_and_recheck_by_key() -> None:
    lookup = {"a.py": ["x\n"], "gone.py": "missing"}
    checks = check_text("a.py:1 `x` gone.py:1 other.py:1", lookup)  # type: ignore[arg-type]
    assert checks == (
        EvidenceCheck("a.py:1", "x", "verified"),
        EvidenceCheck("gone.py:1", None, "no-such-file"),
        EvidenceCheck("other.py:1", None, "unchecked"),  # not looked up: unreadable
    )
    assert checks[0].key() == ("a.py:1", "x")
    known = {("a.py:1", "x"): "verified", ("a.py:1", None): "wrong-line"}
    assert recheck("a.py:1 `x` and a.py:2", known) == (  # type: ignore[arg-type]
        EvidenceCheck("a.py:1", "x", "verified"),
        EvidenceCheck("a.py:2", None, "unchecked"),
    )
