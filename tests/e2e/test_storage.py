"""A data dir that cannot be written: full (a tiny tmpfs, filled), read-only (a tmpfs
mounted ``ro``: chmod does not stop root), or a file where a directory should be.

Every such failure is one line naming the path and the fix, one ``collab.error/1``
document (kind ``storage``) under ``--json``, no traceback and nothing half-written: at
the start exit 3 and nothing started; mid-run exit 1, the run stopped before its next
turn and state.json left as its last complete save. Then the schema versions: an older
state.json is migrated, a newer one refused.
"""

from __future__ import annotations

import errno
import json
import shlex
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import NamedTuple

import pytest

from collab.config import AgentChoice, DebateConfig, Role
from collab.state import RunState, load_state
from collab.store import LOCK_FILE, SCHEMA_VERSION, RunDir
from tests.conftest import Cli, FakeAgent
from tests.e2e.test_debate_tmux import (
    Spawned,
    assert_each_turn_once,
    judge_rule,
    private_tmp_fixture,  # noqa: F401  (fixture, used by name)
    say,
    spawn_collab,
    spawned_fixture,  # noqa: F401  (fixture, used by name)
    turn_calls,
    turn_rule,
    wait_for_calls,
)
from tests.fakes import FAKE_AGENT
from tests.helpers import JUDGE_REST

Mount = Callable[..., Path]
# The fake agent as a ``command`` agent: no config.toml needed in the data dir under test.
AGENT = shlex.join([sys.executable, str(FAKE_AGENT), "--format", "text"])
RUN = ["--agent", "command", "--agent-command", AGENT, "--runner", "subprocess"]
FAST = ["--timeout", "30", "--judge-timeout", "30", "--opening", "sequential"]
JUDGE = judge_rule("## TL;DR\n- STORAGE-JUDGE" + JUDGE_REST)
KEEP_OPEN = say("keeps arguing", stances=[("I1", "contest", "still disagree")])


@pytest.fixture(autouse=True)
def wide_console(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "400")  # one message, one line


@pytest.fixture
def mount() -> Iterator[Mount]:
    """``mount(path, size="64k", read_only=False)``: a tmpfs there, unmounted afterwards;
    the test is skipped, saying why, where mounting is not permitted."""
    made: list[Path] = []

    def do_mount(path: Path, size: str = "64k", *, read_only: bool = False) -> Path:
        path.mkdir(parents=True, exist_ok=True)
        opts = f"size={size}" + (",ro" if read_only else "")
        try:
            res = subprocess.run(
                ["mount", "-t", "tmpfs", "-o", opts, "tmpfs", str(path)],
                capture_output=True, text=True, timeout=30,
            )  # fmt: skip
        except FileNotFoundError:
            pytest.skip("no mount command: a full or read-only disk is simulated with a tmpfs")
        if res.returncode != 0:
            pytest.skip(
                f"cannot mount a tmpfs here ({res.stderr.strip() or res.returncode}): a full "
                "or read-only disk is simulated with one (the tests run as root in CI)"
            )
        made.append(path)
        return path

    yield do_mount
    for path in reversed(made):
        subprocess.run(["umount", "-l", str(path)], check=False, capture_output=True)


def fill(home: Path) -> Path:
    """Write into ``home`` until its file system is full."""
    filler = home / "filler"
    with open(filler, "wb", buffering=0) as fh:
        try:
            while True:
                fh.write(b"\0" * 4096)
        except OSError as exc:
            assert exc.errno == errno.ENOSPC, exc
    return filler


def remount_ro(path: Path) -> None:
    subprocess.run(["mount", "-o", "remount,ro", str(path)], check=True, timeout=30)


def stopped_run(home: Path) -> RunDir:
    """An interrupted run with no turns yet, for the command agent, in ``home``."""
    cfg = DebateConfig(
        topic="Storage T1",
        role_a=Role("A", "Advocate", "argues for"),
        role_b=Role("B", "Critic", "argues against"),
        rounds=2,
        agent_a=AgentChoice("command", None, AGENT),
        agent_b=AgentChoice("command", None, AGENT),
        judge=AgentChoice("command", None, AGENT),
        runner="subprocess",
        opening="sequential",
    )
    run_dir = RunDir("20261201-120000-5707a9", home / "runs")
    run_dir.create(RunState(run_id=run_dir.run_id, config=cfg, status="interrupted").to_dict())
    return run_dir


def home_tree(home: Path) -> list[str]:
    """What is kept under ``home``: every file and every run or batch directory (hidden
    staging ones too), but not the empty ``runs/`` and ``batches/`` themselves, a run's
    lock file (it holds a pid, not data) or the filler."""
    if not home.is_dir():
        return []
    kept = []
    for p in home.rglob("*"):
        rel = p.relative_to(home)
        if p.name not in ("filler", LOCK_FILE) and not (p.is_dir() and len(rel.parts) == 1):
            kept.append(str(rel))
    return sorted(kept)


# -- at the start: exit 3, nothing started ----------------------------------------------------


class Unusable(NamedTuple):
    test_id: str
    command: str  # debate, batch or resume
    setup: str  # full, read-only, home-file, runs-file
    problem: str  # "{home}" is the data dir
    fix: str


UNUSABLE = [
    Unusable("debate-full", "debate", "full", "no space left on device",
             "free some space there, or set COLLAB_HOME to a directory with room"),
    Unusable("debate-read-only", "debate", "read-only", "read-only file system",
             "set COLLAB_HOME to a writable directory"),
    Unusable("debate-home-is-a-file", "debate", "home-file",
             "{home} is a file, not a directory",
             "move {home} away, or set COLLAB_HOME to a directory"),
    Unusable("debate-runs-is-a-file", "debate", "runs-file",
             "{home}/runs is a file, not a directory",
             "move {home}/runs away, or set COLLAB_HOME to a directory"),
    Unusable("batch-full", "batch", "full", "no space left on device",
             "free some space there, or set COLLAB_HOME to a directory with room"),
    Unusable("batch-read-only", "batch", "read-only", "read-only file system",
             "set COLLAB_HOME to a writable directory"),
    Unusable("batch-runs-is-a-file", "batch", "runs-file",
             "{home}/runs is a file, not a directory",
             "move {home}/runs away, or set COLLAB_HOME to a directory"),
    Unusable("resume-full", "resume", "full", "no space left on device",
             "free some space there, or set COLLAB_HOME to a directory with room"),
    Unusable("resume-read-only", "resume", "read-only", "read-only file system",
             "set COLLAB_HOME to a writable directory"),
]  # fmt: skip


@pytest.mark.parametrize(list(Unusable._fields), UNUSABLE, ids=[c.test_id for c in UNUSABLE])
def test_unusable_data_dir_at_start_exits_3_with_nothing_started(
    fake_agent: FakeAgent,
    cli: Cli,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    mount: Mount,
    private_tmp: Path,
    test_id: str,
    command: str,
    setup: str,
    problem: str,
    fix: str,
) -> None:
    fake_agent.script([JUDGE], KEEP_OPEN)
    home = tmp_path / "data"
    run_dir: RunDir | None = None
    if setup in ("full", "read-only"):
        mount(home)
        if command == "resume":
            run_dir = stopped_run(home)
        if setup == "full":
            fill(home)
        else:
            remount_ro(home)
    elif setup == "home-file":
        home.write_text("not a directory\n", encoding="utf-8")
    else:
        home.mkdir()
        (home / "runs").write_text("not a directory\n", encoding="utf-8")
    monkeypatch.setenv("COLLAB_HOME", str(home))
    topics = tmp_path / "topics.txt"
    topics.write_text("Storage T1\nStorage T2\n", encoding="utf-8")
    argv = {
        "debate": ["debate", "Storage T1", *RUN, *FAST, "--rounds", "2"],
        "batch": ["batch", str(topics), *RUN, *FAST, "--rounds", "2"],
        "resume": ["resume", "20261201-120000-5707a9"],
    }[command]
    before = home_tree(home)
    state_before = None if run_dir is None else run_dir.state_path.read_bytes()
    want = [s.replace("{home}", str(home)) for s in (problem, fix)]

    for as_json in (False, True):
        res = cli(*argv, *(["--json"] if as_json else []))
        assert res.code == 3, res
        assert "Traceback" not in res.err, res.err
        if as_json:
            doc = json.loads(res.out)  # exactly one document: extra data would not parse
            assert doc["schema"] == "collab.error/1" and doc["exit_code"] == 3
            assert doc["error"]["kind"] == "storage"
            message = doc["error"]["message"]
        else:
            assert res.out == ""
            lines = res.err.strip().splitlines()
            assert len(lines) == 1, res.err
            message = lines[0]
        assert str(home) in message and all(w in message for w in want), message

    assert fake_agent.calls() == [], "an agent was called"
    assert home_tree(home) == before, "something was left half-written"
    if run_dir is not None:
        assert run_dir.state_path.read_bytes() == state_before
    assert list(private_tmp.iterdir()) == []


def test_list_and_doctor_say_when_the_runs_dir_is_a_file(cli: Cli, hermetic_env: Path) -> None:
    (hermetic_env / "runs").write_text("oops\n", encoding="utf-8")
    res = cli("list", "--json")
    assert res.code == 3
    assert res.json()["error"]["kind"] == "storage"
    assert f"{hermetic_env}/runs is a file, not a directory" in res.json()["error"]["message"]
    res = cli("doctor", "--json")
    (check,) = [c for c in res.json()["checks"] if c["name"] == "data dir"]
    assert check["level"] == "fail"
    assert f"{hermetic_env}/runs is a file, not a directory" in check["detail"]
    assert check["fix"] == f"move {hermetic_env}/runs away, or set COLLAB_HOME to a directory"


# -- mid-run: exit 1, stopped before the next turn, the last complete save kept ---------------


@pytest.mark.parametrize("as_json", [True, False], ids=["json", "text"])
def test_disk_full_mid_run_stops_before_the_next_turn_and_keeps_the_last_save(
    fake_agent: FakeAgent,
    cli: Cli,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    mount: Mount,
    private_tmp: Path,
    spawned: list[Spawned],
    as_json: bool,
) -> None:
    n = 2
    gate = tmp_path / "let-b-answer"  # B answers once the disk is full
    fake_agent.script(
        [
            JUDGE,
            turn_rule("A", 1, n, say("A1", new=[("Point A1", "evidence")])),
            # The disk fills while B thinks: its turn cannot be saved.
            turn_rule("B", 1, n, say("B1 lost", wait_file=gate), say("B1 again")),
        ],
        KEEP_OPEN,
    )
    home = mount(tmp_path / "data", "1m")
    monkeypatch.setenv("COLLAB_HOME", str(home))
    workdir = tmp_path / "first"
    workdir.mkdir()
    args = ["debate", "Storage mid-run", *RUN, *FAST, "--rounds", str(n)]
    proc = spawn_collab([*args, "--json"] if as_json else args, workdir)
    spawned.append(proc)
    wait_for_calls(fake_agent, "B", 1, n)
    filler = fill(home)
    gate.touch()
    assert proc.wait() == 1, proc.err

    (run_id,) = [p.name for p in (home / "runs").iterdir()]
    run_dir = RunDir(run_id)
    state_file = run_dir.state_path
    assert "Traceback" not in proc.err, proc.err
    kept = "the run stopped, keeping what it last saved (state.json with 1 of 4 turns)"
    then = f"free some space there, then: collab resume {run_id}"
    if as_json:
        doc = json.loads(proc.out)
        assert doc["schema"] == "collab.error/1" and doc["exit_code"] == 1
        assert doc["error"]["kind"] == "storage"
        message = doc["error"]["message"]
    else:
        assert proc.out == ""
        (message,) = [line for line in proc.err.splitlines() if line.startswith("collab: ")]
    assert f"cannot write {state_file}: no space left on device" in message, message
    assert kept in message and then in message, message

    # On disk: the last complete save, valid and loadable, with A's turn only.
    assert json.loads(state_file.read_text(encoding="utf-8"))["schema_version"] == SCHEMA_VERSION
    state = load_state(run_dir)
    assert [(t.round_no, t.side) for t in state.turns] == [(1, "A")]
    assert state.status == "running" and state.judge is None
    assert [p.name for p in run_dir.path.iterdir() if p.name.endswith(".tmp")] == []
    events = (run_dir.path / "events.jsonl").read_bytes()
    assert events == b"" or events.endswith(b"\n")
    assert all(json.loads(line) for line in events.splitlines())
    assert len(turn_calls(fake_agent.calls(), "A", 2, n)) == 0, "a turn ran after the failure"

    # Room again: the resume finishes, asking again only for the turn that was not kept.
    filler.unlink()
    res = cli("resume", run_id, "--json")
    assert res.code == 0, res.err
    done = load_state(run_dir)
    assert done.status == "done"
    assert_each_turn_once(done)
    assert done.turns[0].to_dict() == state.turns[0].to_dict()
    calls = fake_agent.calls()
    assert len(turn_calls(calls, "A", 1, n)) == 1
    assert len(turn_calls(calls, "B", 1, n)) == 2
    assert list(private_tmp.iterdir()) == []


def test_events_file_that_cannot_be_opened_is_a_storage_error(
    fake_agent: FakeAgent, cli: Cli, hermetic_env: Path
) -> None:
    fake_agent.script([JUDGE], KEEP_OPEN)
    run_dir = stopped_run(hermetic_env)
    (run_dir.path / "events.jsonl").mkdir()  # a directory where the file should be
    before = run_dir.state_path.read_bytes()
    res = cli("resume", run_dir.run_id, "--json")
    assert res.code == 3, res
    doc = res.json()
    assert doc["error"]["kind"] == "storage"
    path = run_dir.path / "events.jsonl"
    assert doc["error"]["message"] == (
        f"cannot write {path}: {path} is a directory (move {path} away)"
    )
    assert fake_agent.calls() == []
    assert run_dir.state_path.read_bytes() == before


# -- schema versions ----------------------------------------------------------------------------


def v1_run(home: Path) -> RunDir:
    """A run as collab wrote it at schema 1: no ``opening`` (round 1 was sequential) and
    none of the fields protocol v2 added."""
    run_dir = stopped_run(home)
    doc = json.loads(run_dir.state_path.read_text(encoding="utf-8"))
    doc["schema_version"] = 1
    for key in ("opening", "agent_setup", "tools"):
        del doc["config"][key]
    del doc["judge_first"]
    del doc["stance_table"]
    a1 = {
        "round_no": 1, "side": "A", "role_name": "Advocate", "status": "ok",
        "reply": "A1 old", "prose": "A1 old", "contract_error": None,
        "contract": {"new_points": [{"title": "Old point", "evidence": "e"}],
                     "stances": [], "abstain": None},
        "prompt_sha256": "0" * 64,
        "meta": {"agent": "command", "model": None, "exit_code": 0, "duration": 1.0,
                 "attempts": 1},
        "warnings": [],
    }  # fmt: skip
    doc["turns"] = [a1]
    run_dir.state_path.write_text(json.dumps(doc), encoding="utf-8")
    return run_dir


def test_an_old_half_finished_run_is_migrated_and_goes_on_as_it_began(
    fake_agent: FakeAgent, cli: Cli, hermetic_env: Path
) -> None:
    n = 2
    fake_agent.script(
        [JUDGE, turn_rule("B", 1, n, say("B1"), probe=["A1 old"])],
        KEEP_OPEN,
    )
    run_dir = v1_run(hermetic_env)
    state = load_state(run_dir)
    assert state.config.opening == "sequential"
    assert (state.config.agent_setup, state.config.tools) == ("lean", "none")
    assert (state.turns[0].items_sent, state.turns[0].items_kept) == (1, 1)
    assert state.judge_first is None

    res = cli("resume", run_dir.run_id, "--json")
    assert res.code == 0, res.err
    after = json.loads(run_dir.state_path.read_text(encoding="utf-8"))
    assert after["schema_version"] == SCHEMA_VERSION == 9
    assert after["config"]["opening"] == "sequential"
    assert after["stance_table"] == "v1"  # the old run replays its ledger by the old rule
    calls = fake_agent.calls()
    # Round 1 went on sequentially: B answered the A1 it could see, and A1 was not re-asked.
    assert len(turn_calls(calls, "B", 1, n)) == 1 and turn_calls(calls, "B", 1, n)[0]["rule"] == 1
    assert turn_calls(calls, "A", 1, n) == []
    done = load_state(run_dir)
    assert done.status == "done" and done.turns[0].prose == "A1 old"
    assert_each_turn_once(done)


def test_a_run_from_a_newer_collab_is_refused(
    fake_agent: FakeAgent, cli: Cli, hermetic_env: Path
) -> None:
    run_dir = stopped_run(hermetic_env)
    doc = json.loads(run_dir.state_path.read_text(encoding="utf-8"))
    doc["schema_version"] = SCHEMA_VERSION + 1
    run_dir.state_path.write_text(json.dumps(doc), encoding="utf-8")
    before = run_dir.state_path.read_bytes()
    message = (
        f"run {run_dir.run_id} was written by a newer collab (schema {SCHEMA_VERSION + 1}; "
        f"this collab reads up to {SCHEMA_VERSION}): upgrade collab"
    )
    for argv in (["resume", run_dir.run_id], ["show", run_dir.run_id]):
        res = cli(*argv)
        assert res.code == 2 and res.err.strip() == f"collab: {message}", res
        res = cli(*argv, "--json")
        assert res.code == 2 and res.json()["error"]["message"] == message
    (row,) = cli("list", "--json").json()["runs"]
    assert (row["status"], row["reason"]) == ("damaged", message.split(" was ", 1)[1])
    assert run_dir.state_path.read_bytes() == before
    assert fake_agent.calls() == []
