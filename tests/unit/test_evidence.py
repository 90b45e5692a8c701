"""Evidence checked by code: cites read out of evidence, each status, and the file side
(context files as saved, the working tree under --tools read, ``..`` and symlinks)."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import NamedTuple

import pytest

from collab.config import ContextFile, DebateConfig, Role
from collab.contract import Contract, NewPoint, StanceUpdate
from collab.evidence import Cite, EvidenceCheck, cites, judge
from collab.evidence_files import check_turn, lookup
from collab.ledger import Ledger, apply, with_checks
from collab.prompts import Prompts
from collab.turns import AgentMeta, TurnRecord

APP = "import os\n\ndef load(user):\n    q = 'SELECT * FROM t WHERE id=' + user\n    return q\n"


def test_cites_are_read_with_their_quotes() -> None:
    text = "see `src/app.py:4` `q = 'SELECT` and lib/x.py:10-12, also `y = 1`; not I3:4 or a:b"
    assert cites(text) == [
        Cite("src/app.py", 4, 4, "q = 'SELECT"),
        Cite("lib/x.py", 10, 12, "y = 1"),
    ]
    assert [c.where for c in cites("a.py:3 b.md:2-9 http://h.io:80/x")] == ["a.py:3", "b.md:2-9"]


class Row(NamedTuple):
    test_id: str
    evidence: str
    expected: str  # the status of the one cite in ``evidence``


ROWS = [
    Row("verified-line", "src/app.py:4", "verified"),
    Row("verified-range-quote", "src/app.py:3-5 `q = 'SELECT * FROM t`", "verified"),
    Row("quote-other-whitespace", "src/app.py:4 `q='SELECT  *\tFROM t   WHERE`", "verified"),
    Row("quote-not-on-the-line", "src/app.py:1 `SELECT`", "wrong-line"),
    Row("line-past-the-end", "src/app.py:40", "wrong-line"),
    Row("range-past-the-end", "src/app.py:4-9", "wrong-line"),
    Row("line-zero", "src/app.py:0", "wrong-line"),
    Row("backwards-range", "src/app.py:5-3", "wrong-line"),
    Row("dot-slash-context", "./src/app.py:4", "verified"),
    Row("no-such-file", "src/nope.py:1", "no-such-file"),
    Row("dotdot-escape", "../secret.py:1", "outside"),
    Row("dotdot-inside-then-out", "src/../../etc/passwd.txt:1", "outside"),
    Row("absolute", "/etc/hosts.txt:1", "outside"),
    Row("symlink-out", "link/target.py:1", "outside"),
    Row("binary-unreadable", "blob.bin:1", "unchecked"),
]


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "work"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text(APP)
    (root / "blob.bin").write_bytes(b"\xff\xfe\x00bad")
    out = tmp_path / "out"
    out.mkdir()
    (out / "target.py").write_text("secret\n")
    (tmp_path / "secret.py").write_text("secret\n")
    os.symlink(out, root / "link")
    return root


def cfg(tools: str = "read", contexts: tuple[ContextFile, ...] = ()) -> DebateConfig:
    return DebateConfig(
        topic="t",
        role_a=Role("A", "a", "a"),
        role_b=Role("B", "b", "b"),
        tools=tools,  # type: ignore[arg-type]
        contexts=contexts,
    )


@pytest.mark.parametrize("row", ROWS, ids=[r.test_id for r in ROWS])
def test_each_status_in_the_working_tree(row: Row, tree: Path) -> None:
    (cite,) = cites(row.evidence)
    found = lookup([cite.path], cfg("read"), tree)
    assert judge(cite, found[cite.path]) == row.expected


def test_context_files_are_checked_against_the_saved_text(tmp_path: Path) -> None:
    # The file on disk changed after the run read it: the saved text is what counts.
    saved = cfg("none", (ContextFile("src/app.py", APP),))
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("changed\n")
    statuses = {
        text: judge(c, lookup([c.path], saved, tmp_path)[c.path])
        for text in ("src/app.py:4 `SELECT *`", "src/app.py:9", "other.py:1", "../app.py:1")
        for c in cites(text)
    }
    assert statuses == {
        "src/app.py:4 `SELECT *`": "verified",
        "src/app.py:9": "wrong-line",
        "other.py:1": "unchecked",  # no read tools: the debaters could not have read it
        "../app.py:1": "outside",
    }


def test_judge_table_without_files() -> None:
    c = Cite("a.py", 2, 3, "x  y")
    assert judge(c, "outside") == "outside"
    assert judge(c, "missing") == "no-such-file"
    assert judge(c, "unreadable") == "unchecked"
    assert judge(c, ["", "x", "y"]) == "verified"  # the quote spans two lines
    assert judge(c, ["", "x", "z"]) == "wrong-line"


def record(contract: Contract) -> TurnRecord:
    meta = AgentMeta("fake", None, 0, 0.1, 1)
    return TurnRecord(1, "A", "a", "ok", "r", "p", contract, None, "0" * 64, meta)


def test_a_turn_is_checked_and_the_ledger_and_prompts_say_what_failed(tree: Path) -> None:
    contract = Contract(
        (
            NewPoint("injection", "src/app.py:4 `+ user`", "blocking"),
            NewPoint("ghost", "src/app.py:99 says so"),
        ),
    )
    rec = check_turn(record(contract), cfg("read"), tree)
    assert rec.evidence_checks == (
        EvidenceCheck("src/app.py:4", "+ user", "verified"),
        EvidenceCheck("src/app.py:99", None, "wrong-line"),
    )
    known = {c.key(): c.status for c in rec.evidence_checks}
    lg = with_checks(apply(Ledger(), "A", 1, contract), known)
    assert [i.checks_a for i in lg.issues] == [(rec.evidence_checks[0],), (rec.evidence_checks[1],)]
    c = cfg("read")
    role = Prompts("en").role(c, "B", 1, lg, [], None)
    assert "I2, Role A: src/app.py:99 ✗ wrong-line" in role
    assert "I1, Role A" not in role  # verified evidence is not listed
    assert "[blocking] injection" in role
    from collab.judge.answer import labels_for

    labels = labels_for("20261201-000000-abcdef", "A", "a", "b")
    judge_prompt = Prompts("en").judge(c, lg, [], "max-rounds", labels)
    assert f"I2, {labels.label('A')}: src/app.py:99 ✗ wrong-line" in judge_prompt
    ja = Prompts("ja").role(replace(c, lang="ja"), "B", 1, lg, [], None)
    assert "src/app.py:99 ✗ wrong-line" in ja


def test_stance_evidence_is_checked_too(tree: Path) -> None:
    rec = check_turn(
        record(Contract(stances=(StanceUpdate("I1", "contest", "see ../x.py:1"),))),
        cfg("read"),
        tree,
    )
    assert rec.evidence_checks == (EvidenceCheck("../x.py:1", None, "outside"),)


def test_views_show_severity_and_check_marks() -> None:
    from collab.report.markdown import ledger_markdown as ledger_table

    contract = Contract((NewPoint("injection", "src/app.py:4 and b.py:9", "blocking"),))
    known = {("src/app.py:4", None): "verified", ("b.py:9", None): "no-such-file"}
    lg = with_checks(apply(Ledger(), "A", 1, contract), known)  # type: ignore[arg-type]
    table = ledger_table(lg.issues)
    assert "[⛔ blocking] injection" in table
    assert "(src/app.py:4 ✓, b.py:9 ✗ no-such-file)" in table


def test_a_run_report_counts_open_blocking_and_marks_its_cites(tree: Path) -> None:
    from collab.report.markdown import render_markdown_report
    from collab.state import RunState
    from collab.stats import run_stats

    contract = Contract((NewPoint("injection", "src/app.py:4 and src/app.py:99", "blocking"),))
    rec = check_turn(record(contract), cfg("read"), tree)
    state = RunState(run_id="20261201-000000-abcdef", config=cfg("read"), turns=[rec])
    page = render_markdown_report(state)
    assert "open blocking: 1" in page
    assert "src/app.py:4 ✓, src/app.py:99 ✗ wrong-line" in page
    s = run_stats(state)
    assert (s.open_blocking, s.cites, s.cites_verified, s.evidence_verified_rate) == (1, 2, 1, 0.5)
