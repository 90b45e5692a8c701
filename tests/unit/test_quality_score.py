"""The decision-quality bench: the scorer's rules, case validation (an untrusted case
directory stays inside itself), and no prompt carrying a case's answer key."""

from __future__ import annotations

import os
import re
from dataclasses import replace
from pathlib import Path
from typing import NamedTuple

import pytest

from bench.quality import AUTHOR, CASES_DIR, REVIEWER
from bench.quality_cases import Case, CaseError, load, load_all, problems
from bench.quality_score import CaseScore, score, score_case
from collab.config import ContextFile, DebateConfig, Role
from collab.contract import Contract, NewPoint
from collab.judge.answer import labels_for
from collab.ledger import Ledger, apply
from collab.prompts import Prompts, TurnView
from collab.secret_scan import scan_text

KEY = {
    "name": "c",
    "flaws": [
        {"id": "sqli", "summary": "s", "patterns": [r"sql[ -]?injection"],
         "where": "search.py:9-11"},
    ],
}  # fmt: skip
CLEAN = {"name": "k", "flaws": []}


def issue(title: str, evidence: str = "", severity: str = "major", status: str = "open",
          checks: tuple[str, ...] = ()) -> dict[str, object]:  # fmt: skip
    return {
        "title": title, "evidence_a": evidence, "evidence_b": "", "severity": severity,
        "status": status, "checks_a": [{"cite": "x.py:1", "status": s} for s in checks],
    }  # fmt: skip


class Row(NamedTuple):
    test_id: str
    key: dict[str, object]
    issues: list[dict[str, object]]
    expected: CaseScore


ROWS = [
    Row("found-by-phrase", KEY, [issue("SQL Injection in search", severity="blocking")],
        CaseScore(1, ("sqli",), 0, 0, 0)),
    Row("found-by-range", KEY, [issue("term pasted into query", "see search.py:10")],
        CaseScore(1, ("sqli",), 0, 0, 0)),
    Row("range-overlap-at-the-edge", KEY, [issue("odd", "search.py:11-30")],
        CaseScore(1, ("sqli",), 0, 0, 0)),
    Row("range-outside", KEY, [issue("odd", "search.py:12-30")], CaseScore(1, (), 0, 0, 0)),
    Row("minor-mention-does-not-count", KEY, [issue("sql injection", severity="minor")],
        CaseScore(1, (), 0, 0, 0)),
    Row("dropped-does-not-count", KEY, [issue("sql injection", status="dropped")],
        CaseScore(1, (), 0, 0, 0)),
    Row("resolved-still-counts", KEY, [issue("sql injection", status="resolved")],
        CaseScore(1, ("sqli",), 0, 0, 0)),
    Row("false-alarm-on-planted", KEY,
        [issue("sql injection", severity="blocking"), issue("race", severity="blocking")],
        CaseScore(1, ("sqli",), 1, 0, 0)),
    Row("major-unmatched-is-no-alarm", KEY, [issue("naming", severity="major")],
        CaseScore(1, (), 0, 0, 0)),
    Row("clean-case-alarm", CLEAN,
        [issue("race", severity="blocking"), issue("nit", severity="minor")],
        CaseScore(0, (), 1, 0, 0)),
    Row("clean-case-dropped-alarm", CLEAN, [issue("race", severity="blocking", status="dropped")],
        CaseScore(0, (), 0, 0, 0)),
    Row("evidence-share", CLEAN, [issue("x", checks=("verified", "wrong-line", "verified"))],
        CaseScore(0, (), 0, 3, 2)),
]  # fmt: skip


@pytest.mark.parametrize("row", ROWS, ids=[r.test_id for r in ROWS])
def test_score_case(row: Row) -> None:
    assert score_case(row.key, row.issues) == row.expected


def test_totals_per_protocol() -> None:
    samples = [
        {"case": "c", "protocol": "single", "issues": [issue("sql injection")], "calls": 1,
         "tokens": 10, "cost_usd": 0.5, "wall_s": 2.0},
        {"case": "k", "protocol": "single", "issues": [issue("x", severity="blocking")],
         "calls": 1, "tokens": 10, "cost_usd": None, "wall_s": 1.0},
        {"case": "c", "protocol": "quick", "issues": [], "calls": 5, "error": "boom"},
    ]  # fmt: skip
    totals = score(samples, {"c": KEY, "k": CLEAN})
    single, quick = totals["single"], totals["quick"]
    assert (single.recall, single.false_alarms, single.clean_with_alarm) == (1.0, 1, 1)
    assert (single.calls, single.tokens, single.cost_usd, single.wall_s) == (2, 20, 0.5, 3.0)
    assert (quick.recall, quick.errors, quick.samples) == (0.0, 1, 1)


# -- the cases --------------------------------------------------------------------------


def test_the_shipped_cases() -> None:
    cases = load_all(CASES_DIR)
    planted = [c for c in cases if not c.clean]
    assert len(cases) >= 16 and len(planted) >= 10 and len(cases) - len(planted) >= 6
    assert {c.kind for c in planted} == {"code", "design"}
    for c in cases:  # collab's secret scan would refuse a case's file as a context file
        for name in c.files:
            assert scan_text((CASES_DIR / c.name / name).read_text(), name) == [], c.name


def write_case(d: Path, toml: str, files: dict[str, str]) -> Path:
    d.mkdir(parents=True)
    (d / "case.toml").write_text(toml)
    for name, text in files.items():
        (d / name).write_text(text)
    return d


GOOD = 'question = "q?"\nkind = "code"\nfiles = ["a.py"]\n'
FLAW = '[[flaws]]\nid = "f"\nsummary = "s"\npatterns = ["x"]\nwhere = "a.py:1-2"\n'


class Bad(NamedTuple):
    test_id: str
    toml: str
    problem: str


BAD = [
    Bad("escape-dotdot", GOOD.replace('"a.py"', '"../outside.py"'), "inside the case"),
    Bad("absolute", GOOD.replace('"a.py"', '"/etc/passwd"'), "inside the case"),
    Bad("symlink-out", GOOD.replace('"a.py"', '"link.py"'), "resolves outside"),
    Bad("missing-file", GOOD.replace('"a.py"', '"b.py"'), "is not a file"),
    Bad("bad-kind", GOOD.replace('"code"', '"poem"'), "kind must be"),
    Bad("unknown-key", GOOD + 'answer = "x"\n', "unknown key 'answer'"),
    Bad("bad-regex", GOOD + FLAW.replace('["x"]', '["("]'), "not a regular expression"),
    Bad("where-other-file", GOOD + FLAW.replace("a.py:1-2", "z.py:1-2"), "must be one path"),
    Bad("where-past-end", GOOD + FLAW.replace("a.py:1-2", "a.py:2-9"), "not in a.py"),
    Bad("no-question", GOOD.replace('question = "q?"', 'question = ""'), "question must"),
    Bad("not-toml", "question = ", "case.toml"),
]


@pytest.mark.parametrize("bad", BAD, ids=[b.test_id for b in BAD])
def test_a_bad_case_says_what_is_wrong(bad: Bad, tmp_path: Path) -> None:
    (tmp_path / "outside.py").write_text("secret\n")
    d = write_case(tmp_path / "cases" / "c", bad.toml, {"a.py": "one\ntwo\n"})
    os.symlink(tmp_path / "outside.py", d / "link.py")
    wrong = problems(d)
    assert any(bad.problem in w for w in wrong), wrong
    with pytest.raises(CaseError):
        load(d)


def test_a_good_case_loads(tmp_path: Path) -> None:
    d = write_case(tmp_path / "c", GOOD + FLAW, {"a.py": "one\ntwo\n"})
    assert problems(d) == []
    case = load(d)
    assert (case.flaws[0].path, case.flaws[0].start, case.flaws[0].end) == ("a.py", 1, 2)


# -- no answer key in any prompt ----------------------------------------------------------


def answer_key(case: Case) -> list[str]:
    return [s for f in case.flaws for s in (f.summary, f.where, *f.patterns)]


def prompts_for(case: Case) -> list[str]:
    """Every prompt the bench makes for a case: the single call, both seats in rounds 1–3,
    the re-ask and the Judge — with a ledger that names the flaw (as a debater would)."""
    root = CASES_DIR / case.name
    cfg = DebateConfig(
        topic=case.question,
        role_a=Role("A", *REVIEWER.split(": ", 1)),
        role_b=Role("B", *AUTHOR.split(": ", 1)),
        contexts=tuple(ContextFile(f, (root / f).read_text()) for f in case.files),
    )
    point = NewPoint("a flaw", f"{case.files[0]}:1 `x`", "blocking")
    ledger = apply(Ledger(), "A", 1, Contract((point,)))
    history = [TurnView(1, "A", "Reviewer", "prose", "ok"), TurnView(1, "B", "Author", "p", "ok")]
    p = Prompts("en")
    out = [p.role(replace(cfg, rounds=1), "A", 1, Ledger(), [], None, blind=True)]
    for r in (1, 2, 3):
        for side in ("A", "B"):
            out.append(p.role(cfg, side, r, ledger if r > 1 else Ledger(), history, None))  # type: ignore[arg-type]
    out.append(p.reask(cfg, "A", "no json block", ledger, previous="prose"))
    out.append(p.judge(cfg, ledger, history, "max-rounds", labels_for("x", "A", "a", "b")))
    return out


@pytest.mark.parametrize("case", load_all(CASES_DIR), ids=lambda c: c.name)
def test_no_prompt_contains_the_answer_key(case: Case) -> None:
    texts = prompts_for(case)
    assert all(case.question in t or "Topic" not in t for t in texts)
    assert any((CASES_DIR / case.name / case.files[0]).read_text()[:40] in t for t in texts)
    for text in texts:
        for secret in answer_key(case):
            assert secret not in text, (case.name, secret)
        for f in case.flaws:  # nor a phrase that would match it without a debater's word
            assert f.id not in text
    for f in case.flaws:  # the files themselves hold no mention the scorer would count
        body = " ".join((CASES_DIR / case.name / n).read_text() for n in case.files)
        hits = [p for p in f.patterns if re.search(p, case.question + body, re.IGNORECASE)]
        assert hits == [], (case.name, hits)


def test_the_grader_is_a_column_next_to_the_deterministic_match() -> None:
    from bench.quality_grader import grade, parse, prompt

    issues = [issue("term pasted into the query", severity="blocking") | {"id": "I1"},
              issue("nit", severity="minor") | {"id": "I2"}]  # fmt: skip
    asked: list[str] = []

    def call(text: str) -> str:
        asked.append(text)
        return 'Sure. {"matches": ["I1", "I2", "I9"]}'

    samples = [{"case": "c", "protocol": "single", "issues": issues}]
    grade(samples, {"c": KEY}, call)
    # Only standing blocking/major issues are offered; an unknown or minor id is ignored.
    assert samples[0]["grader"] == {"sqli": ["I1"]}
    assert "nit" not in asked[0] and "term pasted" in asked[0]
    total = score(samples, {"c": KEY})["single"]
    assert (total.found, total.grader_found) == (0, 1)  # the regexes missed it; noted apart
    assert parse("no json", {"I1"}) is None and parse('{"matches": 3}', {"I1"}) is None
    assert "Which issues" in prompt(KEY["flaws"][0], [])  # type: ignore[index]
