"""The start-and-follow flow without MCP, for skills and scripts: ``collab debate
--detach``, ``status``, ``result``, ``cancel``; and topics that need no shell quoting
(``--topic-file PATH``, ``-`` for stdin), hostile ones included, end to end."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from collab.control import driver_pid
from collab.report import SCHEMAS
from collab.state import load_state
from collab.store import RunDir
from tests.conftest import Cli, FakeAgent, contract_block
from tests.helpers import JUDGE_REST, Outcome, wait_until

ROLE_A = "(Role A) in a structured debate"
ROLE_B = "(Role B) in a structured debate"
JUDGE = "neutral judge"
FAST = ["--agent", "fake", "--rounds", "2", "--runner", "subprocess"]
HOSTILE = [
    "It's \"quoted\" 'twice' and `ticked` — $(touch PWNED) ${HOME} $((1+1))",
    "Line one\nline two; rm -rf ~ && echo $(id) > PWNED\n\\'\\\" end",
    "'; DROP TABLE runs; -- \\ $PATH | tee PWNED & 'EOF'\n<<EOF\n!!\n",
]


def collab(
    cli: Cli, *args: str, stdin: str | None = None, cwd: Path | None = None, timeout: float = 120
) -> Outcome:
    return cli.process(*args, stdin=stdin, cwd=cwd, timeout=timeout)


def script(fake: FakeAgent, *, b: object = None, match: str | None = None) -> None:
    rules: list[dict[str, Any]] = [
        {"match": [JUDGE], "replies": ["## TL;DR\n- scripted" + JUDGE_REST]},
        {"match": [ROLE_A], "replies": ["A speaks." + contract_block(new=[("S", "e")])]},
        {"match": [ROLE_B], "replies": b or ["B speaks." + contract_block()]},
    ]
    if match is not None:  # a rule only a prompt holding the exact topic can reach
        rules.insert(0, {"match": [ROLE_A, match], "replies": ["A saw it." + contract_block()]})
    fake.script(rules, "unmatched prompt")


def json_of(res: Outcome) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(res.out)
    Draft202012Validator(SCHEMAS[doc["schema"]]).validate(doc)
    return doc


def settled(run_id: str) -> bool:
    return driver_pid(RunDir(run_id).path) is None and load_state(RunDir(run_id)).status == "done"


@pytest.mark.parametrize("topic", HOSTILE, ids=["quotes-subst", "newlines", "sql-heredoc"])
def test_topic_file_and_stdin_take_any_text(
    cli: Cli, fake_agent: FakeAgent, tmp_path: Path, topic: str
) -> None:
    marker = topic.strip().splitlines()[-1].strip()
    script(fake_agent, match=marker)
    path = tmp_path / "topic.txt"
    path.write_text(topic, encoding="utf-8")
    by_file = collab(cli, "debate", "--topic-file", str(path), *FAST, "--json", cwd=tmp_path)
    by_stdin = collab(cli, "debate", "-", *FAST, "--json", stdin=topic, cwd=tmp_path)
    for res in (by_file, by_stdin):
        assert res.code == 0, res.err
        doc = json_of(res)
        assert doc["topic"] == topic.strip()
        assert load_state(RunDir(doc["run_id"])).config.topic == topic.strip()
    assert not list(tmp_path.rglob("PWNED"))
    assert [c["rule"] for c in fake_agent.calls()].count(0) == 4  # A's prompt, both runs


@pytest.mark.parametrize(
    ("args", "stdin", "message"),
    [
        (["JWT", "--topic-file", "t.txt"], None, "give the topic once"),
        ([], None, "say what to debate"),
        (["--topic-file", "nope.txt"], None, "topic file not found: nope.txt"),
        (["--topic-file", "bad.txt"], None, "is not UTF-8 text"),
        (["--topic-file", "."], None, "is a directory"),
        (["-"], "   \n", "the topic is empty"),
        (["JWT", "--detach", "--events", "ndjson"], None, "with --detach use collab watch"),
    ],
    ids=["both", "none", "missing", "binary", "dir", "empty-stdin", "detach-events"],
)
def test_topic_input_errors(
    cli: Cli,
    fake_agent: FakeAgent,
    tmp_path: Path,
    args: list[str],
    stdin: str | None,
    message: str,
) -> None:
    (tmp_path / "t.txt").write_text("JWT", encoding="utf-8")
    (tmp_path / "bad.txt").write_bytes(b"\xff\xfe\x00bad")
    as_json = [] if "--events" in args else ["--json"]
    res = collab(cli, "debate", *args, *FAST, *as_json, stdin=stdin, cwd=tmp_path)
    assert res.code == 2
    doc = json_of(res)  # --events ndjson reports errors as a JSON line too
    assert doc["schema"] == "collab.error/1" and message in doc["error"]["message"]
    assert not RunDir("x").path.parent.exists() or not list(RunDir("x").path.parent.iterdir())


def test_detach_returns_at_once_and_status_result_follow(
    cli: Cli, fake_agent: FakeAgent, tmp_path: Path
) -> None:
    gate = tmp_path / "let-b-answer"  # B answers only once the test has looked
    script(fake_agent, b=[{"text": "B speaks." + contract_block(), "wait_file": str(gate)}])
    t0 = time.monotonic()
    res = collab(cli, "debate", "JWT vs sessions", *FAST, "--detach")
    took = time.monotonic() - t0
    assert res.code == 0, res.err
    run_id = res.out.strip()
    assert f"collab watch {run_id}" in res.err
    assert took < 5.0
    early = collab(cli, "result", run_id, "--json")  # still going: B waits for the gate
    assert early.code == 2
    err = json_of(early)["error"]
    assert err["kind"] == "running" and f"run {run_id} is still running" in err["message"]
    text = collab(cli, "status", run_id)
    assert text.code == 0 and run_id in text.out and "round" in text.out
    gate.touch()
    assert wait_until(lambda: settled(run_id), timeout=60)
    status = json_of(collab(cli, "status", run_id, "--json"))
    assert status["phase"] == "finished" and status["turns"] == {"done": 4, "planned": 4}
    doc = json_of(collab(cli, "result", run_id))
    assert doc["schema"] == "collab.result/2" and doc["status"] == "done"
    assert doc["judge"]["markdown"].startswith("## TL;DR")


def test_detach_json_then_cancel_then_resume(cli: Cli, fake_agent: FakeAgent) -> None:
    script(fake_agent, b=[{"hang": True}])
    started = json_of(collab(cli, "debate", "JWT vs sessions", *FAST, "--opening", "sequential",
                             "--detach", "--json"))  # fmt: skip
    run_id = started["run_id"]
    assert started["schema"] == "collab.started/1" and started["watch"] == f"collab watch {run_id}"
    assert wait_until(lambda: len(load_state(RunDir(run_id)).turns) == 1, timeout=60)
    assert driver_pid(RunDir(run_id).path) is not None
    doc = json_of(collab(cli, "cancel", run_id, "--json"))
    assert doc["status"] == "interrupted" and doc["phase"] == "stopped" and not doc["active"]
    assert doc["resume"] == f"collab resume {run_id}"
    again = collab(cli, "cancel", run_id)
    assert again.code == 0 and "interrupted" in again.out
    script(fake_agent)
    res = collab(cli, "resume", run_id, "--json")
    assert res.code == 0, res.err
    assert json_of(res)["status"] == "done"


def test_follow_up_commands_on_an_unknown_run(cli: Cli, fake_agent: FakeAgent) -> None:
    for command in ("status", "result", "cancel"):
        res = collab(cli, command, "20990101-000000-abcdef", "--json")
        assert res.code == 2
        assert "no run with id" in json_of(res)["error"]["message"]


def test_a_driver_that_dies_at_start_leaves_its_reason(
    fake_agent: FakeAgent, tmp_path: Path
) -> None:
    """The driver's last words (driver.log) are the status's error, and the run can be
    resumed from where it stands."""
    from collab.agents import load_agents
    from collab.control import start_detached, status_document
    from collab.request import DebateRequest, build_config

    cfg = build_config(DebateRequest(topic="JWT", agent_a="fake", agent_b="fake",
                                     judge_agent="fake", runner="subprocess"),
                       load_agents().keys())  # fmt: skip
    elsewhere = dict(os.environ, COLLAB_HOME=str(tmp_path / "elsewhere"))
    started = start_detached(cfg, env=elsewhere, reap=True)
    assert wait_until(lambda: driver_pid(started.run_dir.path) is None, timeout=30)
    doc = status_document(started.run_dir)
    assert doc["status"] == "pending" and doc["phase"] == "stopped" and not doc["active"]
    assert f"no run with id {started.run_id}" in str(doc["error"])
    assert doc["resume"] == f"collab resume {started.run_id}"


def test_cancel_while_the_driver_is_still_starting_saves_the_run_interrupted(
    cli: Cli, fake_agent: FakeAgent
) -> None:
    """``collab cancel`` right after ``--detach``: the driver is still importing, has no
    SIGTERM handler yet, and Python's default action ends it at once, before it saves
    anything. The run must not stay "pending" with nobody to drive it: cancel saves it
    interrupted, resumable, as the driver's own handler would have."""
    from collab.agents import load_agents
    from collab.control.liveness import DRIVER_PID_FILE
    from collab.request import DebateRequest, build_config
    from collab.state import RunState
    from collab.store import atomic_write, new_run_id

    cfg = build_config(DebateRequest(topic="JWT", agent_a="fake", agent_b="fake",
                                     judge_agent="fake", runner="subprocess", rounds=2),
                       load_agents().keys())  # fmt: skip
    run_dir = RunDir(new_run_id())
    run_dir.create(RunState(run_id=run_dir.run_id, config=cfg, status="pending").to_dict())
    # The driver as it is before its handler: `python … RUN_ID`, SIGTERM's default action.
    stand_in = [sys.executable, "-c", "import time; time.sleep(120)", run_dir.run_id]
    proc = subprocess.Popen(stand_in)
    try:
        atomic_write(run_dir.path / DRIVER_PID_FILE, f"{proc.pid}\n")  # as start does
        assert driver_pid(run_dir.path) == proc.pid
        doc = json_of(collab(cli, "cancel", run_dir.run_id, "--json"))
    finally:
        proc.kill()
        proc.wait()
    assert proc.returncode == -signal.SIGTERM  # cancel's signal ended it
    assert doc["status"] == "interrupted" and doc["phase"] == "stopped" and not doc["active"]
    assert doc["resume"] == f"collab resume {run_dir.run_id}"
    assert load_state(run_dir).status == "interrupted"
    script(fake_agent)
    res = collab(cli, "resume", run_dir.run_id, "--json")
    assert res.code == 0, res.err
    assert json_of(res)["status"] == "done"


def test_status_wait_returns_at_the_next_step(cli: Cli, fake_agent: FakeAgent) -> None:
    script(fake_agent, b=[{"text": "B speaks." + contract_block(), "sleep": 1.0}])
    run_id = collab(cli, "debate", "JWT", *FAST, "--opening", "sequential", "--detach").out.strip()
    seen = []
    t0 = time.monotonic()
    while True:
        doc = json_of(collab(cli, "status", run_id, "--wait", "30", "--json"))
        seen.append((time.monotonic() - t0, doc["turns"]["done"]))
        if doc["phase"] in ("finished", "stopped"):
            break
        assert len(seen) < 12, seen
    assert seen[-1][1] == 4 and seen[-1][0] < 30, seen
    assert collab(cli, "status", run_id, "--wait", "-1").code == 2
