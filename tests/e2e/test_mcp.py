"""``collab mcp`` end to end: the official SDK's stdio client against the real server
process, debates driven by the fake agent in processes of their own."""

from __future__ import annotations

import itertools
import json
import re
import subprocess
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from jsonschema import Draft202012Validator

from collab.report import SCHEMAS
from collab.state import load_state
from collab.store import RunDir
from tests.conftest import Cli, FakeAgent, contract_block
from tests.e2e.mcp_client import call, doc_of, mcp_session, poll, text_of
from tests.helpers import JUDGE_REST, wait_until

ROLE_A = "(Role A) in a structured debate"
ROLE_B = "(Role B) in a structured debate"
JUDGE = "neutral judge"
TOPIC = "JWT vs sessions"
VERDICT = "## TL;DR\n- the judge's scripted verdict" + JUDGE_REST
TOOLS = {
    "debate_start", "debate_status", "debate_result", "debate_cancel", "debate",
    "runs_list", "presets_list", "server_info",
    "debate_ask", "debate_continue", "debate_decide",
}  # fmt: skip
OPEN_WORLD = {"debate", "debate_start", "debate_ask", "debate_continue"}
READ_ONLY = {"debate_status", "debate_result", "runs_list", "presets_list", "server_info"}


def script(
    fake: FakeAgent, *, a: object = None, b: object = None, first: tuple[dict[str, Any], ...] = ()
) -> None:
    """A opens an issue, B contests it, the judge writes a fixed summary."""
    fake.script(
        [
            *first,
            {"match": [JUDGE], "replies": [VERDICT]},
            {"match": [ROLE_A], "replies": a or ["A: tokens." + contract_block(new=[("S", "e")])]},
            {"match": [ROLE_B], "replies": b or [
                "B: sessions." + contract_block(stances=[("I1", "contest", "revocation")])]},
        ],
        "unmatched prompt",
    )  # fmt: skip


def runs() -> list[str]:
    root = RunDir("x").path.parent
    return sorted(p.name for p in root.iterdir()) if root.is_dir() else []


def finished(doc: dict[str, Any]) -> bool:
    return doc["phase"] in ("finished", "stopped")


def test_tools_have_schemas_and_hints(fake_agent: FakeAgent) -> None:
    async def go() -> list[Any]:
        async with mcp_session() as s:
            return list((await s.list_tools()).tools)

    tools = anyio.run(go)
    assert {t.name for t in tools} == TOOLS
    for tool in tools:
        assert tool.description and tool.annotations is not None, tool.name
        assert tool.input_schema["type"] == "object", tool.name
        assert tool.input_schema["additionalProperties"] is False
        Draft202012Validator.check_schema(tool.input_schema)
        assert tool.output_schema is not None and tool.output_schema["type"] == "object"
        Draft202012Validator.check_schema(tool.output_schema)
        assert "$id" not in tool.output_schema
        hints = tool.annotations
        assert hints.read_only_hint is (tool.name in READ_ONLY), tool.name
        assert hints.destructive_hint is (tool.name == "debate_cancel"), tool.name
        assert hints.open_world_hint is (tool.name in OPEN_WORLD), tool.name
    start = next(t for t in tools if t.name == "debate_start")
    props = start.input_schema["properties"]
    assert start.input_schema["required"] == ["topic"]
    for name in ("topic", "preset", "role_a", "role_b", "rounds", "context", "agent_a",
                 "model_b", "opening", "budget", "max_cost", "lang", "runner"):  # fmt: skip
        assert name in props, name
    for forbidden in ("agent_command", "keep_temp", "allow_secrets"):
        assert forbidden not in props
    assert props["runner"]["enum"] == ["subprocess", "tmux"]


def test_start_then_status_then_result(fake_agent: FakeAgent, capsys: Any, tmp_path: Path) -> None:
    gate = tmp_path / "let-b-answer"  # B answers only once the test has looked
    script(fake_agent, b=[{"text": "B: sessions." + contract_block(
        stances=[("I1", "contest", "revocation")]), "wait_file": str(gate)}])  # fmt: skip
    seen: dict[str, Any] = {}

    async def go() -> None:
        async with mcp_session() as s:
            t0 = time.monotonic()
            started = await doc_of(s, "debate_start", topic=TOPIC, agent="fake", rounds=2,
                                   preset="security-vs-performance")  # fmt: skip
            seen["start_s"] = time.monotonic() - t0
            seen["started"] = started
            rid = started["run_id"]
            first = await doc_of(s, "debate_status", run_id=rid)
            seen["first"] = first
            early = await call(s, "debate_result", run_id=rid)
            seen["early"] = (early.is_error, text_of(early), first["active"])
            gate.touch()

            async def status() -> dict[str, Any]:
                return await doc_of(s, "debate_status", run_id=rid)

            seen["last"] = await poll(status, finished)
            seen["result"] = await doc_of(s, "debate_result", run_id=rid)

    anyio.run(go)
    started, last, result = seen["started"], seen["last"], seen["result"]
    with capsys.disabled():
        print(f"\ndebate_start replied in {seen['start_s'] * 1000:.0f} ms")
    assert seen["start_s"] < 5.0
    for doc in (started, seen["first"], last, result):
        Draft202012Validator(SCHEMAS[doc["schema"]]).validate(doc)
    assert started["schema"] == "collab.started/1" and started["status"] == "pending"
    rid = started["run_id"]
    assert started["watch"] == f"collab watch {rid}" and started["runner"] == "subprocess"
    assert started["max_cost"] == 2.0  # the server's default cap
    is_error, text, active = seen["early"]  # still going (B waits): a tool error, no document
    assert active and is_error and f"run {rid} is still running" in text
    assert last["status"] == "done" and last["phase"] == "finished" and not last["active"]
    assert last["turns"] == {"done": 4, "planned": 4}
    assert last["rounds"] == {"done": 2, "planned": 2}
    assert last["counts"] == result["counts"] and last["counts"]["open"] >= 1
    # Round 2 ends with A: the last speaker rotates (round r ends with seat (r - 2) mod N).
    assert last["last_turn"]["side"] == "A" and last["last_turn"]["summary"] == "A: tokens."
    assert last["remaining_s"] is None and last["elapsed_s"] > 0
    assert result["schema"] == "collab.result/2" and result["status"] == "done"
    assert result["judge"]["markdown"].startswith(VERDICT)
    assert result["roles"]["A"]["name"] == "Security Engineer"
    # The CLI reads the same run the same way.
    assert load_state(RunDir(rid)).status == "done"
    assert (RunDir(rid).path / "driver.log").read_text() == ""


@pytest.mark.parametrize(
    ("args", "cli_args"),
    [
        ({"preset": "nope"}, ["--preset", "nope"]),
        ({"rounds": 9}, ["--rounds", "9"]),
        ({"context": ["missing.md"]}, ["--context", "missing.md"]),
        ({"role_a": "A: x"}, ["--role-a", "A: x"]),
        ({"lang": "fr"}, ["--lang", "fr"]),
    ],
    ids=["preset", "rounds", "context", "one-role", "lang"],
)
def test_bad_input_is_the_clis_error_and_starts_nothing(
    cli: Cli,
    fake_agent: FakeAgent,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    args: dict[str, object],
    cli_args: list[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    res = cli("debate", TOPIC, "--agent", "fake", *cli_args, "--json")
    assert res.code == 2
    cli_message = res.json()["error"]["message"]
    missing = str(tmp_path / "missing.md")

    async def go() -> Any:
        async with mcp_session(cwd=tmp_path) as s:
            return await call(s, "debate_start", topic=TOPIC, agent="fake", **args)

    res = anyio.run(go)
    assert res.is_error
    # The server resolves a relative context path against its root: the same message, absolute,
    # naming each option the way MCP spells it (--role-a is role_a).
    spelled = re.sub(r"--([a-z-]+)", lambda m: m.group(1).replace("-", "_"), cli_message)
    assert text_of(res) == spelled.replace("missing.md", missing)
    assert runs() == [] and fake_agent.calls() == []


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"rounds": "3"}, "rounds must be an integer, got str"),
        ({"colour": "red"}, "unknown argument 'colour'"),
        ({"agent": "command"}, "the command agent runs a user-given command line"),
        ({"max_cost": 50}, "max_cost 50 is over this server's cap of $2 per debate"),
        ({"topic": "  "}, "the topic is empty"),
    ],
    ids=["type", "unknown", "command-agent", "over-cap", "empty-topic"],
)
def test_mcp_only_checks(fake_agent: FakeAgent, args: dict[str, object], message: str) -> None:
    async def go() -> Any:
        async with mcp_session() as s:
            return await call(s, "debate_start", **{"topic": TOPIC, "agent": "fake", **args})

    res = anyio.run(go)
    assert res.is_error and message in text_of(res)
    assert runs() == []


def test_every_tool_refuses_an_argument_its_schema_does_not_have() -> None:
    """Each tool's input schema says additionalProperties: false, and each tool holds to
    it, before it does anything: worded as for a debate's options."""
    calls = {
        "server_info": ({"verbose": True}, "unknown argument 'verbose'; server_info takes none"),
        "presets_list": ({"x": 1}, "unknown argument 'x'; presets_list takes none"),
        "runs_list": ({"limt": 3}, "unknown argument 'limt'; did you mean 'limit'?"),
        "debate_status": ({"run_id": "@last", "wait": 5},
                          "unknown argument 'wait'; did you mean 'wait_s'?"),
        "debate_cancel": ({"run_id": "@last", "force": True},
                          "unknown argument 'force'; valid arguments: run_id"),
        "debate_start": ({"topic": TOPIC, "colour": "red"}, "unknown argument 'colour'; "),
    }  # fmt: skip

    async def go() -> dict[str, Any]:
        async with mcp_session() as s:
            out = {name: await call(s, name, **args) for name, (args, _) in calls.items()}
            out["known"] = await call(s, "runs_list", limit=3)
            return out

    got = anyio.run(go)
    for name, (_, message) in calls.items():
        assert got[name].is_error and text_of(got[name]).startswith(message), (name, got[name])
    assert not got["known"].is_error
    assert runs() == []


def test_blocking_debate_reports_progress_per_turn(fake_agent: FakeAgent) -> None:
    script(fake_agent, a=[{"text": "A." + contract_block(new=[("S", "e")]), "sleep": 0.3}])
    notes: list[tuple[float, float | None, str | None]] = []

    async def go() -> dict[str, Any]:
        async with mcp_session() as s:

            async def progress(p: float, total: float | None, message: str | None) -> None:
                notes.append((p, total, message))

            res = await s.call_tool("debate", {"topic": TOPIC, "agent": "fake", "rounds": 2},
                                    progress_callback=progress)  # fmt: skip
            assert not res.is_error, text_of(res)
            assert isinstance(res.structured_content, dict)
            return res.structured_content

    doc = anyio.run(go)
    assert doc["schema"] == "collab.result/2" and doc["status"] == "done"
    turn_notes = [m for _, _, m in notes if m and m.startswith("round ") and ": " in m]
    assert len(turn_notes) >= 4, notes  # one per turn
    values = [p for p, _, _ in notes]
    assert values == sorted(values) and len(set(values)) == len(values)  # strictly growing
    assert {t for _, t, _ in notes} == {5.0}  # 2 rounds x 2 sides + the Judge
    assert any(m and "Judge" in m for _, _, m in notes)


def test_client_gone_mid_debate_the_debate_finishes(fake_agent: FakeAgent) -> None:
    gate = fake_agent.dir / "let-b-answer"  # B answers only once the client is gone
    script(fake_agent, b=[{"text": "B." + contract_block(), "wait_file": str(gate)}])
    box: dict[str, str] = {}

    async def go() -> None:
        async with mcp_session() as s:
            seen = anyio.Event()

            async def progress(p: float, total: float | None, message: str | None) -> None:
                seen.set()

            async def blocking() -> None:
                await s.call_tool("debate", {"topic": TOPIC, "agent": "fake", "rounds": 2},
                                  progress_callback=progress)  # fmt: skip

            async with anyio.create_task_group() as tg:
                tg.start_soon(blocking)
                await seen.wait()
                listed = await doc_of(s, "runs_list")
                box["run_id"] = listed["runs"][0]["run_id"]
                tg.cancel_scope.cancel()
        # Leaving the session closed the server (its process group is killed).

    anyio.run(go)
    run_dir = RunDir(box["run_id"])
    assert load_state(run_dir).status != "done"
    gate.touch()
    assert wait_until(lambda: load_state(run_dir).status == "done", timeout=60)
    assert load_state(run_dir).judge is not None


def test_cancel_mid_run_then_resume_finishes(
    cli: Cli, fake_agent: FakeAgent, tmp_path: Path
) -> None:
    script(fake_agent, b=[{"hang": True}])
    box: dict[str, Any] = {}

    async def go() -> None:
        async with mcp_session() as s:
            started = await doc_of(s, "debate_start", topic=TOPIC, agent="fake", rounds=2,
                                   opening="sequential")  # fmt: skip
            rid = started["run_id"]

            async def status() -> dict[str, Any]:
                return await doc_of(s, "debate_status", run_id=rid)

            box["running"] = await poll(status, lambda d: d["turns"]["done"] == 1)
            box["cancelled"] = await doc_of(s, "debate_cancel", run_id=rid)
            box["again"] = await doc_of(s, "debate_cancel", run_id=rid)  # idempotent
            box["result"] = await doc_of(s, "debate_result", run_id=rid)

    anyio.run(go)
    cancelled, result = box["cancelled"], box["result"]
    rid = cancelled["run_id"]
    assert box["running"]["active"] and box["running"]["phase"] == "debating"
    assert cancelled["status"] == "interrupted" and not cancelled["active"]
    assert cancelled["phase"] == "stopped" and cancelled["resume"] == f"collab resume {rid}"
    assert box["again"]["status"] == "interrupted"
    assert result["status"] == "interrupted" and result["resume"] == f"collab resume {rid}"
    script(fake_agent)  # B answers now
    done = cli.process("resume", rid, "--json")
    assert done.code == 0, done.err
    doc = done.json()
    assert doc["status"] == "done" and len(doc["turns"]) == 4


def test_two_sessions_follow_one_run_and_the_cap_holds(fake_agent: FakeAgent) -> None:
    (fake_agent.dir.parent / "config.toml").open("a").write(
        "[mcp]\nmax_concurrent = 1\nmax_cost = 0.5\n"
    )
    gate = fake_agent.dir / "let-a-answer"  # the run stays active until the test has looked
    script(fake_agent, a=[{"text": "A." + contract_block(new=[("S", "e")]),
                           "wait_file": str(gate)}])  # fmt: skip
    box: dict[str, Any] = {}

    async def go() -> None:
        async with mcp_session() as one, mcp_session() as two:
            info = await doc_of(one, "server_info")
            started = await doc_of(one, "debate_start", topic=TOPIC, agent="fake", rounds=2)
            rid = started["run_id"]
            second = await call(one, "debate_start", topic="Another", agent="fake")
            box["second"] = (second.is_error, text_of(second))
            box["info"], box["started"] = info, started
            box["info_running"] = await doc_of(one, "server_info")
            gate.touch()

            async def status_two() -> dict[str, Any]:
                return await doc_of(two, "debate_status", run_id=rid)

            box["two"] = await poll(status_two, finished)
            box["one"] = await doc_of(one, "debate_status", run_id=rid)
            box["listed"] = await doc_of(two, "runs_list", limit=5)

    anyio.run(go)
    limits = box["info"]["limits"]
    assert (limits["max_cost"], limits["max_concurrent"]) == (0.5, 1)
    assert box["started"]["max_cost"] == 0.5
    rid = box["started"]["run_id"]
    assert box["info_running"]["active_runs"] == [rid]
    is_error, text = box["second"]
    assert is_error and "the most collab runs at once" in text
    assert box["two"]["status"] == "done"
    one = {k: v for k, v in box["one"].items() if k != "elapsed_s"}
    assert one == {k: v for k, v in box["two"].items() if k != "elapsed_s"}
    assert [r["run_id"] for r in box["listed"]["runs"]] == [rid]
    assert box["listed"]["server"]["schema"] == "collab.server/1"


def test_context_resolves_against_the_clients_first_root(
    fake_agent: FakeAgent, tmp_path: Path
) -> None:
    marked = "A read the design." + contract_block(new=[("S", "e")])
    script(fake_agent, first=({"match": [ROLE_A, "MARKER-7f3a"], "replies": [marked]},))
    project = tmp_path / "project"
    (project / "docs").mkdir(parents=True)
    (project / "docs" / "design.md").write_text("The design: MARKER-7f3a", encoding="utf-8")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()

    async def go() -> str:
        async with mcp_session(cwd=elsewhere, roots=[project]) as s:
            started = await doc_of(s, "debate_start", topic=TOPIC, agent="fake", rounds=2,
                                   context=["docs/design.md"])  # fmt: skip
            return str(started["run_id"])

    rid = anyio.run(go)
    cfg = load_state(RunDir(rid)).config
    assert [c.path for c in cfg.contexts] == [str(project / "docs" / "design.md")]
    assert wait_until(lambda: load_state(RunDir(rid)).status == "done", timeout=60)
    assert [c["rule"] for c in fake_agent.calls()].count(0) == 2  # A, both rounds


def test_stdout_carries_only_protocol(cli: Cli, fake_agent: FakeAgent) -> None:
    """Raw JSON-RPC over a pipe: every line the server writes is a protocol message, while
    it starts a debate, answers errors and reads a finished run."""
    script(fake_agent)
    proc = cli.popen("mcp", stdin=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None

    def send(msg: dict[str, object]) -> None:
        assert proc.stdin is not None
        proc.stdin.write(json.dumps(msg) + "\n")
        proc.stdin.flush()

    def tool(i: int, name: str, **args: object) -> None:
        send({"jsonrpc": "2.0", "id": i, "method": "tools/call",
              "params": {"name": name, "arguments": args}})  # fmt: skip

    send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"}}})  # fmt: skip
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    tool(3, "debate_start", topic=TOPIC, agent="fake", rounds=2)
    tool(4, "debate_start", topic=TOPIC, preset="nope")
    tool(5, "presets_list")
    lines = [proc.stdout.readline() for _ in range(5)]
    replies = {m["id"]: m for m in map(json.loads, lines)}
    rid = replies[3]["result"]["structuredContent"]["run_id"]
    assert wait_until(lambda: load_state(RunDir(rid)).status == "done", timeout=60)
    tool(6, "debate_result", run_id=rid)
    tool(7, "debate_status", run_id="20990101-000000-abcdef")
    lines += [proc.stdout.readline() for _ in range(2)]
    rest, err = proc.communicate(timeout=30)  # closes stdin: the server ends
    lines += rest.splitlines(keepends=True)
    for line in lines:
        msg = json.loads(line)
        assert msg["jsonrpc"] == "2.0" and ("id" in msg or "method" in msg), line
    replies = {m["id"]: m for m in map(json.loads, lines) if "id" in m}
    assert set(replies) == {1, 2, 3, 4, 5, 6, 7}
    assert replies[1]["result"]["protocolVersion"] == "2025-06-18"
    assert replies[4]["result"]["isError"] is True
    assert replies[6]["result"]["structuredContent"]["status"] == "done"
    assert "no run with id" in replies[7]["result"]["content"][0]["text"]
    assert proc.returncode == 0, err


def test_status_with_wait_answers_at_the_next_turn(fake_agent: FakeAgent) -> None:
    script(fake_agent, b=[{"text": "B." + contract_block(), "sleep": 1.5}])
    box: dict[str, Any] = {}

    async def go() -> None:
        async with mcp_session() as s:
            started = await doc_of(s, "debate_start", topic=TOPIC, agent="fake", rounds=2,
                                   opening="sequential")  # fmt: skip
            rid = started["run_id"]
            steps = []
            t0 = time.monotonic()
            while True:
                doc = await doc_of(s, "debate_status", run_id=rid, wait_s=30)
                steps.append((round(time.monotonic() - t0, 2), doc["turns"]["done"], doc["phase"]))
                if finished(doc):
                    break
            box["steps"] = steps
            bad = await call(s, "debate_status", run_id=rid, wait_s=99)
            box["bad"] = (bad.is_error, text_of(bad))

    anyio.run(go)
    steps = box["steps"]
    # One answer per step, not one per 30 s: 4 turns and the Judge in well under 30 s each.
    assert 3 <= len(steps) <= 12, steps
    assert steps[-1][2] == "finished" and steps[-1][1] == 4
    assert all(later[0] - earlier[0] < 25 for earlier, later in itertools.pairwise(steps))
    assert box["bad"][0] and "wait_s must be 0–50 seconds" in box["bad"][1]
