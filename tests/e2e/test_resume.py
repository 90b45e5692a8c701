"""``collab resume``, ``list`` and ``show`` over real runs (DESIGN §8).

Runs here use the subprocess runner: what is tested is the run's state on disk, not the
pane. Interrupted runs are made for real, by SIGTERM to a ``python -m collab`` process.
"""

from __future__ import annotations

import json
import signal
from pathlib import Path
from typing import NamedTuple

import pytest

from collab.run_ids import short_id, short_ids
from collab.store import RunDir, new_run_id
from tests.conftest import Cli, FakeAgent
from tests.e2e.test_debate_tmux import (
    WAIT,
    Spawned,
    assert_each_turn_once,
    debate_args,
    judge_rule,
    read_state,
    run_ids,
    say,
    spawn_collab,
    spawned_fixture,  # noqa: F401  (fixture, used by name)
    turn_calls,
    turn_rule,
    wait_for_calls,
)
from tests.helpers import JUDGE_REST, Outcome, wait_until

JUDGE = judge_rule("## TL;DR\n- RESUME-JUDGE done" + JUDGE_REST)
KEEP_OPEN = say("keeps arguing", stances=[("I1", "contest", "still disagree")])


@pytest.fixture(autouse=True)
def wide_console(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rich tables and messages on one line each, whatever the terminal."""
    monkeypatch.setenv("COLUMNS", "250")


def finished_run(fake: FakeAgent, cli: Cli, topic: str) -> str:
    n = 2
    fake.script(
        [JUDGE, turn_rule("A", 1, n, say(f"PROSE of {topic}", new=[("Point", "evidence")]))],
        KEEP_OPEN,
    )
    res = cli(*debate_args(rounds=n, runner="subprocess", topic=topic))
    assert res.code == 0, res.err
    run_id = res.json()["run_id"]
    assert isinstance(run_id, str)
    return run_id


def interrupt_at(
    fake: FakeAgent, side: str, r: int, n: int, args: list[str], workdir: Path
) -> tuple[str, Spawned]:
    """Start ``collab debate`` and SIGTERM it while Role ``side`` answers round ``r``."""
    workdir.mkdir(exist_ok=True)
    proc = spawn_collab(args, workdir)
    wait_for_calls(fake, side, r, n)
    proc.proc.send_signal(signal.SIGTERM)
    assert proc.wait() == 130, proc.err
    (run_id,) = run_ids()
    return run_id, proc


# -- refused resumes ---------------------------------------------------------------------------


def test_resume_of_a_finished_run_is_refused(fake_agent: FakeAgent, cli: Cli) -> None:
    run_id = finished_run(fake_agent, cli, "Monorepo or polyrepo")
    before = RunDir(run_id).state_path.read_bytes()
    calls = len(fake_agent.calls())

    res = cli("resume", run_id)
    assert res.code == 2
    assert "already finished" in res.err and f"collab show {run_id}" in res.err
    res = cli("resume", run_id, "--json")
    assert res.code == 2
    doc = res.json()
    assert doc["schema"] == "collab.error/1" and doc["exit_code"] == 2
    assert doc["error"]["kind"] == "usage" and "already finished" in doc["error"]["message"]
    assert RunDir(run_id).state_path.read_bytes() == before
    assert len(fake_agent.calls()) == calls


@pytest.mark.parametrize(
    ("run_id", "message"),
    [("20990101-000000-abcdef", "no run with id"), ("../../etc", "not a run id")],
    ids=["unknown", "not-an-id"],
)
def test_resume_of_an_unknown_run_is_refused(cli: Cli, run_id: str, message: str) -> None:
    res = cli("resume", run_id)
    assert res.code == 2
    assert message in res.err
    assert run_ids() == []


def test_a_locked_run_is_not_driven_twice(
    fake_agent: FakeAgent,
    cli: Cli,
    tmp_path: Path,
    spawned: list[Spawned],
) -> None:
    n = 2
    fake_agent.script(
        [
            JUDGE,
            turn_rule("A", 1, n, say("A1", new=[("Point A1", "evidence")])),
            # 1st: the debate is interrupted here; 2nd: a resume we hold; 3rd: finishes.
            turn_rule("B", 1, n, say("B-1", sleep=60), say("B-2", sleep=60), say("B1 final")),
        ],
        KEEP_OPEN,
    )
    args = debate_args(rounds=n, runner="subprocess")
    run_id, first = interrupt_at(fake_agent, "B", 1, n, args, tmp_path / "first")
    spawned.append(first)
    state_before = RunDir(run_id).state_path.read_bytes()

    # The lock held by this test, as another collab would hold it.
    with RunDir(run_id).locked():
        res = cli("resume", run_id)
    assert res.code == 2
    assert f"run {run_id} is being driven by another collab process" in res.err
    assert RunDir(run_id).state_path.read_bytes() == state_before
    assert len(turn_calls(fake_agent.calls(), "B", 1, n)) == 1

    # A real second process: one `collab resume` drives, the next is refused.
    (tmp_path / "second").mkdir()
    driver = spawn_collab(["resume", run_id], tmp_path / "second")
    spawned.append(driver)
    wait_for_calls(fake_agent, "B", 1, n, count=2)
    res = cli("resume", run_id, "--json")
    assert res.code == 2
    assert res.json()["error"]["kind"] == "locked"
    assert "being driven by another collab process" in res.json()["error"]["message"]
    driver.proc.send_signal(signal.SIGTERM)
    assert driver.wait() == 130, driver.err

    res = cli("resume", run_id, "--json")
    assert res.code == 0, res.err
    state = read_state(run_id)
    assert state.status == "done"
    assert_each_turn_once(state)
    b1 = state.turn(1, "B")
    assert b1 is not None and b1.prose == "B1 final"
    assert len(turn_calls(fake_agent.calls(), "A", 1, n)) == 1


# -- list and show -------------------------------------------------------------------------------


def _list(cli: Cli) -> dict[str, object]:
    res = cli("list", "--json")
    assert res.code == 0, res.err
    return res.json()


def test_list_and_show_after_runs(fake_agent: FakeAgent, cli: Cli) -> None:
    assert _list(cli) == {"schema": "collab.list/1", "runs": []}
    assert "no runs yet" in cli("list").err

    first = finished_run(fake_agent, cli, "Tabs or spaces")
    # Run ids sort by time to the second: make the second run start in a later second.
    assert wait_until(lambda: new_run_id()[:15] > first[:15], WAIT)
    second = finished_run(fake_agent, cli, "Rust or Go for the CLI")

    doc = _list(cli)
    assert doc["schema"] == "collab.list/1"
    runs = doc["runs"]
    assert isinstance(runs, list)
    assert [r["run_id"] for r in runs] == [second, first], "newest first"
    row = runs[0]
    assert set(row) == {
        "run_id", "created", "topic", "preset", "rounds_done", "rounds", "status",
        "stop_reason", "cost_usd", "reason", "verdict", "open_blocking", "counts",
    }  # fmt: skip
    assert row["reason"] is None
    assert row["topic"] == "Rust or Go for the CLI"
    assert (row["status"], row["stop_reason"], row["rounds_done"], row["rounds"]) == (
        "done", "max-rounds", 2, 2,
    )  # fmt: skip
    assert row["preset"] == "advocate-vs-devils-advocate"
    table = cli("list")  # each run by its short id, as every view shows it
    assert table.code == 0
    short = short_ids([second, first], [second, first])
    assert table.out.index(short[second]) < table.out.index(short[first])

    md = cli("show", first)
    assert md.code == 0
    for text in ("Tabs or spaces", first, "PROSE of Tabs or spaces", "RESUME-JUDGE", "I1"):
        assert text in md.out
    assert "Rust or Go" not in md.out

    js = cli("show", second, "--json")
    assert js.code == 0
    shown = js.json()
    assert shown["schema"] == "collab.result/2" and shown["run_id"] == second
    assert shown["topic"] == "Rust or Go for the CLI"
    assert shown["turns"][0]["prose"] == "PROSE of Rust or Go for the CLI"
    assert shown["judge"]["markdown"].startswith("## TL;DR")
    assert cli("show", second, "--format", "json").json() == shown

    assert cli("show", second, "--format", "bogus").code == 2
    assert cli("show", "20990101-000000-abcdef").code == 2


class Damaged(NamedTuple):
    test_id: str
    run_id: str
    state: str | None  # what state.json holds (None: no state.json at all)
    reason: str  # the start of what list, doctor and show say


def _broken_field(good: str) -> str:
    doc = json.loads(good)
    doc["status"] = "maybe"
    for key in ("created", "created_ts"):  # listed by the time in its id, as a broken one is
        del doc[key]
    return json.dumps(doc)


DAMAGED = [
    Damaged("not-json", "20261101-000001-d00001", "{oops", "state.json is damaged (not JSON: "),
    Damaged("not-an-object", "20261101-000002-d00002", "[1, 2]",
            "state.json is damaged (not a JSON object)"),
    Damaged("no-schema-version", "20261101-000003-d00003", '{"run_id": "x"}',
            "state.json is damaged (schema_version None is not a version)"),
    Damaged("bad-field", "20261101-000004-d00004", "BROKEN-FIELD",
            "state.json is damaged (state.status: expected one of pending, running, done, "
            "interrupted, failed, got 'maybe')"),
    Damaged("no-state-file", "20261101-000005-d00005", None, "state.json is missing"),
]  # fmt: skip


def test_damaged_runs_are_listed_with_the_reason_and_reported_by_doctor(
    fake_agent: FakeAgent, cli: Cli
) -> None:
    good = finished_run(fake_agent, cli, "A readable run")
    good_state = RunDir(good).state_path.read_text(encoding="utf-8")
    for case in DAMAGED:
        run_dir = RunDir(case.run_id)
        run_dir.create()
        if case.state is not None:
            text = _broken_field(good_state) if case.state == "BROKEN-FIELD" else case.state
            run_dir.state_path.write_text(text, encoding="utf-8")

    rows = {r["run_id"]: r for r in _list(cli)["runs"]}  # type: ignore[attr-defined]
    assert list(rows) == [good, *(c.run_id for c in reversed(DAMAGED))], "newest first"
    assert rows[good]["status"] == "done" and rows[good]["reason"] is None
    for case in DAMAGED:
        row = rows[case.run_id]
        assert row["status"] == "damaged", case.test_id
        assert row["reason"].startswith(case.reason), (case.test_id, row["reason"])
        assert row["stop_reason"] is None and row["created"] == (
            f"2026-11-01T00:00:0{case.run_id[-1]}"
        )
        if case.test_id == "bad-field":  # what could be read of it is shown
            assert row["topic"] == "A readable run"
        else:
            assert row["topic"] is None and row["rounds"] is None
        if case.state is not None:
            res = cli("show", case.run_id)
            assert (
                res.code == 2 and res.err.strip() == f"collab: run {case.run_id}: {row['reason']}"
            )

    table = cli("list")  # each run by its short id; the reasons under it by the whole id
    assert table.code == 0
    every = list(rows)
    for case in DAMAGED:
        short = short_id(case.run_id, every)
        line = next(ln for ln in table.out.splitlines() if short in ln)
        assert "damaged" in line, line
        assert f"damaged {case.run_id}: {rows[case.run_id]['reason']}" in table.err
    assert "A readable run" in table.out

    checks = cli("doctor", "--json").json()["checks"]
    reported = {c["name"]: c for c in checks if c["name"].startswith("run ")}
    assert set(reported) == {f"run {c.run_id}" for c in DAMAGED}
    for case in DAMAGED:
        check = reported[f"run {case.run_id}"]
        assert check["level"] == "warn"
        assert check["detail"] == f"damaged: {rows[case.run_id]['reason']}"
        assert str(RunDir(case.run_id).path) in check["fix"]


# -- a resumed run -------------------------------------------------------------------------------

PRESET = "security-vs-performance"


def test_resumed_run_keeps_its_id_config_and_ledger(
    fake_agent: FakeAgent,
    cli: Cli,
    tmp_path: Path,
    spawned: list[Spawned],
) -> None:
    n = 3
    # Round 2 is B, then A; round 3 A, then B (the last speaker rotates).
    a1 = say("A1", new=[("Attack surface", "ev-a1")])
    b1 = say("B1", new=[("Tail latency", "ev-b1")], stances=[("I1", "contest", "ev-b1x")])
    b2 = say("PROSE-B2 before the interrupt", stances=[("I1", "agree", "ok")])
    a2 = say(
        "A2 after resume", new=[("Cache misses", "ev-a3")], stances=[("I2", "contest", "ev-a2")]
    )
    a3 = say("A3")
    b3 = say("B3", stances=[("I2", "drop", "ev-b2 dropped"), ("I3", "contest", "ev-b3")])
    fake_agent.script(
        [
            JUDGE,
            turn_rule("A", 1, n, a1),
            turn_rule("B", 1, n, b1),
            turn_rule("B", 2, n, b2),
            # The interrupted call, then the resumed one, which must see B's round-2 prose.
            turn_rule("A", 2, n, say("A-INTERRUPTED", sleep=60), a2, probe=["PROSE-B2"]),
            turn_rule("A", 2, n, say("A-WITHOUT-HISTORY")),
            turn_rule("A", 3, n, a3),
            turn_rule("B", 3, n, b3),
        ],
        "UNEXPECTED-PROMPT",
    )
    args = debate_args(
        rounds=n,
        runner="subprocess",
        timeout=45,
        extra=["--preset", PRESET, "--max-chars", "500", "--lang", "en", "--budget", "600"],
    )
    run_id, _ = interrupt_at(fake_agent, "A", 2, n, args, tmp_path)
    before = read_state(run_id)
    assert before.status == "interrupted"
    assert [(t.round_no, t.side) for t in before.turns] == [(1, "A"), (1, "B"), (2, "B")]
    ledger_before = before.ledger()

    res: Outcome = cli("resume", run_id)
    assert res.code == 0, res.err
    assert "Resuming debate" in res.err and f"run {run_id}" in res.err
    assert "RESUME-JUDGE" in res.out
    assert run_ids() == [run_id], "resume never makes a new run"

    after = read_state(run_id)
    assert after.run_id == run_id and after.created == before.created
    assert after.config == before.config
    assert after.config.to_dict() == before.config.to_dict()
    assert (after.config.preset, after.config.max_chars, after.config.turn_timeout) == (
        PRESET, 500, 45.0,
    )  # fmt: skip
    assert after.status == "done" and after.stop_reason == "max-rounds"
    assert_each_turn_once(after)
    # The turns saved before the interrupt are kept as they were, not re-asked.
    assert [t.to_dict() for t in after.turns[:3]] == [t.to_dict() for t in before.turns]
    calls = fake_agent.calls()
    for r, side in ((1, "A"), (1, "B"), (2, "B"), (3, "A"), (3, "B")):
        assert len(turn_calls(calls, side, r, n)) == 1, (r, side)
    resumed_a2 = turn_calls(calls, "A", 2, n)
    assert len(resumed_a2) == 2 and resumed_a2[1]["rule"] == 4, "history was lost on resume"
    # The resumed prompts speak for the same preset's roles.
    assert after.config.role_a.name in resumed_a2[1]["prompt"]
    # The ledger goes on from where it stood.
    for old in ledger_before.issues:
        new = next(i for i in after.ledger().issues if i.id == old.id)
        assert (new.title, new.raised_by, new.round_opened) == (
            old.title, old.raised_by, old.round_opened,
        )  # fmt: skip
    assert [(i.id, i.status) for i in after.ledger().issues] == [
        ("I1", "resolved"), ("I2", "dropped"), ("I3", "open"),
    ]  # fmt: skip
    doc = cli("show", run_id, "--json").json()
    assert doc["run_id"] == run_id and doc["resume"] is None
    assert json.dumps(doc).count("A-INTERRUPTED") == 0
