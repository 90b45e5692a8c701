"""The real ``codex`` and ``gemini`` CLIs, offline, against fake API servers on 127.0.0.1.

- A direct turn through ``AgentCaller`` + ``SubprocessRunner`` for each CLI, including
  the faults that matter to collab (HTTP error, empty reply, broken stream, hang), a
  lost login (the run stops), the live text of a reply being written, and ``--tools
  read`` reading the working directory.
- Lean turns against a planted user setup (MCP servers, hooks, skills, extensions,
  instruction files): what the lean flags keep out of the request, and what they
  cannot (the notes above each spec in collab/agents.py).
- A mixed debate through the ``collab`` CLI in tmux: Role A and the judge are the real
  ``claude`` against ``FakeAnthropic``; Role B is ``codex`` against ``FakeOpenAI`` or
  ``gemini`` against ``FakeGemini``. Each side must reach only its own server with its
  own model, and the run's state must hold both sides' scripted prose and issues.

Each of those skips with a visible reason when a binary it needs is absent. The fake
servers and the env helpers have fast tests of their own at the end (no binary needed).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
import tomllib
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from collab.agents import (
    BUILTIN,
    AgentSetup,
    ToolSet,
    build_argv,
    build_env,
    codex_mcp_overrides,
)
from collab.agents.catalogue import interpret
from collab.caller import AgentCaller, CallResult, TextHook
from collab.config import AgentChoice
from collab.errors import PrerequisiteError
from collab.runners.subprocess import SubprocessRunner
from collab.runners.turnfiles import TurnDir, group_alive
from tests.fakes.agent_envs import (
    Planted,
    agent_env,
    codex_binary,
    codex_env,
    gemini_binary,
    gemini_env,
    plant_codex_setup,
    plant_gemini_setup,
)
from tests.fakes.fake_http import RecordedRequest
from tests.fakes.gemini_server import FakeGemini
from tests.fakes.openai_server import FakeOpenAI, Reply, ScriptedServer
from tests.helpers import wait_until

CODEX = codex_binary()
GEMINI = gemini_binary()
REAL = [pytest.mark.real_agent, pytest.mark.slow]
needs_codex = [
    *REAL,
    pytest.mark.skipif(
        CODEX is None,
        reason="codex CLI not found (npm install @openai/codex, or set COLLAB_CODEX_BIN)",
    ),
]
needs_gemini = [
    *REAL,
    pytest.mark.skipif(
        GEMINI is None,
        reason="gemini CLI not found (npm install @google/gemini-cli, or set COLLAB_GEMINI_BIN)",
    ),
]
needs_tmux = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux not installed")


# -- one CLI, one server -----------------------------------------------------------------


@dataclass(frozen=True)
class Cli:
    """How to run one real CLI against its fake."""

    agent: str  # collab's agent name
    binary: str | None
    server: Callable[[], ScriptedServer]
    env: Callable[[str, Path], dict[str, str]]
    # Enough for the CLI to start and reach the server even on a loaded machine:
    # codex takes ~0.3 s, gemini ~2 s idle and up to ~7 s under load (measured).
    start_within: float
    plant: Callable[[Path, Path], Planted]
    # The variable that holds the API key (unset: no login at all).
    key_var: str
    # A tool call that reads notes.txt in the working directory and tries to write.
    read_call: tuple[str, dict[str, Any]]


CLIS = {
    "codex": Cli(
        "codex", CODEX, FakeOpenAI, codex_env, 8.0, plant_codex_setup, "STUB_API_KEY",
        ("exec_command", {"cmd": "cat notes.txt; touch written.txt"}),
    ),
    "gemini": Cli(
        "gemini", GEMINI, FakeGemini, gemini_env, 15.0, plant_gemini_setup, "GEMINI_API_KEY",
        ("read_file", {"file_path": "notes.txt"}),
    ),
}  # fmt: skip
NEEDS = {"codex": needs_codex, "gemini": needs_gemini}


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty cwd for the agents: they list and may read their working directory."""
    wd = tmp_path / "work"
    wd.mkdir()
    monkeypatch.chdir(wd)
    return wd


def _call(
    cli: Cli,
    server: ScriptedServer,
    home: Path,
    monkeypatch: pytest.MonkeyPatch,
    prompt: str,
    model: str,
    timeout: float = 60.0,
    attempts: int = 2,
    *,
    tools: ToolSet = "none",
    on_text: TextHook | None = None,
    env_drop: tuple[str, ...] = (),
) -> tuple[CallResult, list[int]]:
    """One collab turn; returns the result and the pids the turn's attempts ran as."""
    assert cli.binary is not None
    # resolve_binary reads COLLAB_<NAME>_BIN from our own environment.
    monkeypatch.setenv(f"COLLAB_{cli.agent.upper()}_BIN", cli.binary)
    env = agent_env(cli.env(server.url, home))
    for var in env_drop:
        env.pop(var, None)
    tdir = TurnDir()
    runner = SubprocessRunner(tdir)
    try:
        caller = AgentCaller(runner, tdir, BUILTIN, env)
        res = caller.call(
            "t1", AgentChoice(cli.agent, model), prompt, timeout, attempts=attempts,
            tools=tools, on_text=on_text,
        )  # fmt: skip
        pids = [p for n in range(1, attempts + 1) if (p := tdir.pid(f"t1-{n}")) is not None]
    finally:
        runner.close()
        tdir.cleanup()
    return res, pids


PROMPT = (
    "You are Role B in a test.\n"
    "Line two carries the marker PING-7731.\n\n"
    "```json\n"
    '{"not": "a reply"}\n'
    "```\n"
    "Last line: reply with the scripted text."
)
ANSWER = "Scripted answer for PING-7731.\n\nSecond paragraph, with `code` and ünïcödé."


@pytest.mark.parametrize("name", [pytest.param(n, marks=NEEDS[n]) for n in CLIS])
def test_direct_call_returns_scripted_text(
    name: str, tmp_path: Path, workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cli = CLIS[name]
    with cli.server() as server:
        server.add_rule("PING-7731", [ANSWER])
        res, _ = _call(cli, server, tmp_path / "home", monkeypatch, PROMPT, f"{name}-model-x")
        reqs = server.requests
    assert res.status == "ok", res.meta.error
    assert res.reply.text == ANSWER
    assert res.meta.attempts == 1
    assert res.meta.exit_code == 0
    assert len(reqs) == 1
    assert reqs[0].model == f"{name}-model-x"
    # The whole multi-line prompt arrived intact (fed on stdin).
    assert PROMPT in reqs[0].prompt
    assert reqs[0].stream


class Fault(NamedTuple):
    test_id: str
    reply: Reply
    status: str  # CallResult.status after collab's own retry
    exit_code: dict[str, int]  # per CLI: gemini exits with the HTTP status mod 256
    error_has: str


FAULTS = [
    Fault("http-500", Reply(status=500, error_message="fake outage"), "error",
          {"codex": 1, "gemini": 500 % 256}, "", ),
    Fault("http-400", Reply(status=400, error_message="fake bad request"), "error",
          {"codex": 1, "gemini": 400 % 256}, "fake bad request"),
    # Both CLIs exit 0 with no reply text: collab must call that a failure.
    Fault("empty-reply", Reply(text=""), "no-response", {"codex": 0, "gemini": 0}, ""),
    # The stream ends before its last event: codex says so and exits 1; gemini exits 0
    # with the partial text and says so in the stream.
    Fault("broken-stream", Reply(text="partial answer", truncate=True), "error",
          {"codex": 1, "gemini": 0}, "stream"),
]  # fmt: skip


@pytest.mark.parametrize("fault", [pytest.param(f, id=f.test_id) for f in FAULTS])
@pytest.mark.parametrize("name", [pytest.param(n, marks=NEEDS[n]) for n in CLIS])
def test_direct_call_faults(
    name: str, fault: Fault, tmp_path: Path, workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Failures are failures: non-zero exit or empty stdout, and collab retries once."""
    cli = CLIS[name]
    with cli.server() as server:
        server.add_rule("PING-7731", [fault.reply])
        res, _ = _call(cli, server, tmp_path / "home", monkeypatch, PROMPT, "m-fault")
        reqs = server.requests
    assert res.status == fault.status, res
    assert not res.reply.ok
    assert res.meta.attempts == 2
    assert res.meta.exit_code == fault.exit_code[name]
    assert res.meta.error and fault.error_has in res.meta.error
    # The CLI itself gave up after one request per attempt (agent_envs turns its
    # retries off): collab's retry is the only one.
    assert len(reqs) == 2


@pytest.mark.parametrize("name", [pytest.param(n, marks=NEEDS[n]) for n in CLIS])
def test_direct_call_hang_is_killed(
    name: str, tmp_path: Path, workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server that never answers: collab's timeout kills the CLI's whole group."""
    cli = CLIS[name]
    with cli.server() as server:
        server.add_rule("PING-7731", [Reply(hang=True)])
        home = tmp_path / "home"
        timeout = cli.start_within
        res, pids = _call(cli, server, home, monkeypatch, PROMPT, "m", timeout, attempts=1)
        # It hung waiting for the server, not somewhere in its start-up.
        assert len(server.requests) == 1
    assert res.status == "timeout"
    assert pids
    # The CLI ran as a process-group leader (node plus its children): all gone.
    assert wait_until(lambda: not any(group_alive(p) for p in pids), timeout=10)


class LoginFault(NamedTuple):
    test_id: str
    agent: str
    reply: Reply | None  # None: the CLI has no key at all and sends nothing
    error_has: str


LOGIN_FAULTS = [
    LoginFault("codex-401", "codex",
               Reply(status=401, error_message="Incorrect API key provided: stub-****"),
               "401 Unauthorized"),
    LoginFault("codex-no-key", "codex", None, "Missing environment variable"),
    LoginFault("gemini-401", "gemini",
               Reply(status=401, error_message="Request had invalid authentication credentials."),
               "UNAUTHENTICATED"),
    # What the real Gemini API answers to a bad key: 400, not 401.
    LoginFault("gemini-bad-key", "gemini",
               Reply(status=400, error_message="API key not valid. Please pass a valid API key."),
               "API key not valid"),
    LoginFault("gemini-no-key", "gemini", None, "GEMINI_API_KEY"),
]  # fmt: skip


@pytest.mark.parametrize(
    "fault", [pytest.param(f, id=f.test_id, marks=NEEDS[f.agent]) for f in LOGIN_FAULTS]
)
def test_lost_login_stops_the_run(
    fault: LoginFault, tmp_path: Path, workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The CLI's own words for a lost login are recognised: no retry, the run stops with
    the agent's login hint."""
    cli = CLIS[fault.agent]
    with cli.server() as server:
        server.add_rule("PING-7731", [fault.reply or ANSWER])
        drop = (cli.key_var,) if fault.reply is None else ()
        with pytest.raises(PrerequisiteError) as err:
            _call(cli, server, tmp_path / "home", monkeypatch, PROMPT, "m", env_drop=drop)
        reqs = server.requests
    assert f"{cli.agent} login failed" in err.value.message
    assert fault.error_has in err.value.message
    assert err.value.hint == BUILTIN[cli.agent].login_hint
    assert len(reqs) == (0 if fault.reply is None else 1)


@pytest.mark.parametrize("name", [pytest.param(n, marks=NEEDS[n]) for n in CLIS])
def test_reply_text_is_shown_as_it_is_written(
    name: str, tmp_path: Path, workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """gemini streams deltas: the words show while the model writes. codex prints an
    agent message only once it is complete: the text shows whole, before the turn ends."""
    cli = CLIS[name]
    words = "one two three four five six seven eight"
    seen: list[tuple[str, float]] = []
    with cli.server() as server:
        server.add_rule("PING-7731", [Reply(text=words, word_delay=0.25)])
        res, _ = _call(
            cli, server, tmp_path / "home", monkeypatch, PROMPT, "m",
            on_text=lambda text, elapsed: seen.append((text, elapsed)),
        )  # fmt: skip
    assert res.status == "ok", res.meta.error
    assert res.reply.text == words
    shown = [(t, at) for t, at in seen if t]
    assert "".join(t for t, _ in shown) == words
    if name == "gemini":
        # ~1.75 s of writing: the first words were on screen long before the last.
        assert len(shown) >= 4, shown
        assert shown[-1][1] - shown[0][1] > 1.0, shown
    else:
        assert len(shown) == 1


@pytest.mark.parametrize("name", [pytest.param(n, marks=NEEDS[n]) for n in CLIS])
def test_read_tools_read_the_working_directory(
    name: str, tmp_path: Path, workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--tools read``: the model reads a file in the working directory (its content
    reaches the next request) and cannot write; the reply is the text after the tool."""
    cli = CLIS[name]
    (workdir / "notes.txt").write_text("READ-MARKER-5150 is in the notes.\n", encoding="utf-8")
    with cli.server() as server:
        server.add_rule(
            "PING-7731",
            [Reply(text="Let me read the notes.", tool_call=cli.read_call), "Final answer."],
        )
        res, _ = _call(cli, server, tmp_path / "home", monkeypatch, PROMPT, "m", tools="read")
        reqs = server.requests
    assert res.status == "ok", res.meta.error
    assert res.reply.text == "Final answer."
    assert len(reqs) == 2
    assert "READ-MARKER-5150" in json.dumps(reqs[1].body)
    assert not (workdir / "written.txt").exists()
    tools = _tool_names(reqs[0])
    if name == "gemini":
        assert tools == {"read_file", "list_directory", "glob", "grep_search"}
    else:
        assert tools == {"exec_command", "write_stdin", "view_image"}


# -- lean turns against a planted user setup ---------------------------------------------------


def _tool_names(req: RecordedRequest) -> set[str]:
    tools = req.body.get("tools") or []
    if "contents" in req.body:  # Gemini: [{"functionDeclarations": [...]}]
        return {f["name"] for t in tools for f in t.get("functionDeclarations", [])}
    return {t.get("name") or t.get("type") for t in tools}


def _run_spec(
    cli: Cli,
    server: ScriptedServer,
    env: dict[str, str],
    workdir: Path,
    setup: AgentSetup,
    extra: tuple[str, ...] = (),
) -> tuple[subprocess.CompletedProcess[str], RecordedRequest]:
    """One call of the built-in spec's argv (no collab retry), and its one request."""
    assert cli.binary is not None
    spec = BUILTIN[cli.agent]
    argv = build_argv(spec, cli.binary, "m-lean", workdir / "prompt", setup=setup, env=env)
    proc = subprocess.run(
        [*argv, *extra], input=PROMPT, env=build_env(spec, env), cwd=workdir,
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    reqs = server.wait_for_requests(1, timeout=5)
    assert len(reqs) == 1, [r.path for r in reqs]
    return proc, reqs[0]


# What each CLI's lean flags keep out; the rest of the planted setup still reaches the
# turn (see the notes above each spec in collab/agents.py).
KEPT_OUT = {
    "codex": {"project", "skill"},
    "gemini": {"skill", "extension"},
}
STILL_IN = {
    "codex": {"global"},  # $CODEX_HOME/AGENTS.md: loaded whatever the flags
    "gemini": {"global", "project"},  # GEMINI.md: no flag or settings override drops it
}
# What an inherit turn carries. gemini's skills list is part of the system prompt that
# collab's replaces in every setup (GEMINI_SYSTEM_MD).
IN_INHERIT = {
    "codex": {"global", "project", "skill"},
    "gemini": {"global", "project", "extension"},
}
STARTED_INHERIT = {
    "codex": {"mcp", "hook-SessionStart", "hook-UserPromptSubmit", "hook-Stop"},
    "gemini": {"mcp", "mcp-project", "mcp-extension",
               "hook-SessionStart", "hook-BeforeAgent", "hook-BeforeModel"},
}  # fmt: skip
STARTED_LEAN = {
    "codex": set(),
    "gemini": {"hook-SessionStart", "hook-BeforeAgent", "hook-BeforeModel"},  # hooks run
}


@pytest.mark.parametrize("name", [pytest.param(n, marks=NEEDS[n]) for n in CLIS])
def test_lean_turn_keeps_the_user_setup_out(name: str, tmp_path: Path, workdir: Path) -> None:
    """A planted MCP server does not start and the project instruction file, skills and
    extensions do not reach the request of a lean turn, while the same setup does reach
    an ``inherit`` turn (so the plant works)."""
    cli = CLIS[name]
    # codex runs a user's hooks only once trusted: the flag stands in for that trust.
    extra = ("--dangerously-bypass-hook-trust",) if name == "codex" else ()
    runs = {}
    setups: tuple[AgentSetup, ...] = ("inherit", "lean")
    for setup in setups:
        home = tmp_path / f"home-{setup}"
        with cli.server() as server:
            server.default(ANSWER)
            env = agent_env(cli.env(server.url, home))
            planted = cli.plant(home, workdir)
            proc, req = _run_spec(cli, server, env, workdir, setup, extra)
        reply = interpret(BUILTIN[name], proc.returncode, proc.stdout, proc.stderr)
        assert reply.ok and reply.text == ANSWER, (proc.stdout, proc.stderr)
        runs[setup] = (planted.started(), planted.leaked(json.dumps(req.body)), req)
    started, leaked, req = runs["inherit"]
    assert started == STARTED_INHERIT[name]
    assert leaked == IN_INHERIT[name]
    started, leaked, req = runs["lean"]
    assert started == STARTED_LEAN[name]
    assert not leaked & KEPT_OUT[name]
    assert leaked == STILL_IN[name]
    assert _tool_names(req) == set()
    # collab's short system prompt replaced the CLI's coding-agent prompt.
    assert len(json.dumps(req.body)) < 4000


# -- the mixed debate ------------------------------------------------------------------------


def _contract(new: list[tuple[str, str]], stances: list[tuple[str, str, str]]) -> str:
    doc: dict[str, Any] = {
        "new_points": [{"title": t, "evidence": e} for t, e in new],
        "stances": [{"id": i, "stance": s, "evidence": e} for i, s, e in stances],
        "abstain": None,
    }
    return "```json\n" + json.dumps(doc, indent=1) + "\n```\n"


A1 = "Claude A round one: sessions keep revocation simple and server-side."
B1 = "Role B round one from the other vendor: tokens scale without a shared store."
A2 = "Claude A round two: the shared store is one Redis, already in the stack."
B2 = "Role B round two from the other vendor: fine, revocation lists cost little."
JUDGE = (
    "## TL;DR\n- Sessions won on revocation.\n\n## Crux\n- Is one more store acceptable?\n\n"
    "## Agreements\n- I3\n\n## Minority report\n- B: revocation lists cost little.\n\n"
    "## Open disagreements\n- I1, I2\n\n## Trade-offs\n| Option | Gains | Costs | Favoured by |\n"
    "|---|---|---|---|\n| Sessions | revocation | store | A |\n\n"
    "## Recommended actions\n1. Measure the store's latency.\n"
)
# How the debater prompt names the side it is written for.
ME_A = "(Role A) in a structured debate"
ME_B = "(Role B) in a structured debate"
TITLE_A1 = "Revocation needs server state"
TITLE_B1 = "Stateless tokens scale out"
TITLE_B2 = "Revocation lists cost little"

A_REPLIES = {
    1: A1 + "\n\n" + _contract([(TITLE_A1, "logout must take effect at once")], []),
    # Round 2 ends with A (the last speaker rotates): A answers B's new point.
    2: A2
    + "\n\n"
    + _contract(
        [], [("I3", "agree", "Redis is there"), ("I2", "contest", "one store is no burden")]
    ),
}
B_REPLIES = {
    1: B1
    + "\n\n"
    + _contract(
        [(TITLE_B1, "no lookup per request")], [("I1", "contest", "short expiry bounds it")]
    ),
    2: B2 + "\n\n" + _contract([(TITLE_B2, "a denylist holds only revoked ids")], []),
}


@pytest.fixture
def tmux_socket(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A private tmux server for collab's panes, killed after the test."""
    name = f"collab-test-{uuid.uuid4().hex[:10]}"
    monkeypatch.setenv("COLLAB_TMUX_SOCKET", name)
    yield name
    subprocess.run(["tmux", "-L", name, "kill-server"], capture_output=True, check=False)
    # A server that exited by itself (its last session closed) leaves its socket file.
    tmpdir = os.environ.get("TMUX_TMPDIR") or "/tmp"
    Path(tmpdir, f"tmux-{os.getuid()}", name).unlink(missing_ok=True)


def _claude() -> str | None:
    try:
        from tests.fakes.claude_env import claude_binary
    except ImportError:
        return None
    return claude_binary()


@needs_tmux
@pytest.mark.parametrize("name", [pytest.param(n, marks=NEEDS[n]) for n in CLIS])
def test_mixed_debate_in_tmux(
    name: str, tmp_path: Path, workdir: Path, tmux_socket: str, hermetic_env: Path
) -> None:
    claude = _claude()
    if claude is None:
        pytest.skip("claude CLI not found (npm install @anthropic-ai/claude-code)")
    from tests.fakes.anthropic_server import FakeAnthropic
    from tests.fakes.anthropic_server import Reply as AReply
    from tests.fakes.claude_env import CLAUDE_ENV_UNSET, claude_env

    cli = CLIS[name]
    assert cli.binary is not None
    home = tmp_path / "home"
    with FakeAnthropic() as anth, cli.server() as other:
        for r, text in A_REPLIES.items():
            anth.add_rule([ME_A, f"This is round {r} of 2"], [AReply(text=text)])
        anth.add_rule("neutral judge", [AReply(text=JUDGE)])
        for r, text in B_REPLIES.items():
            other.add_rule([ME_B, f"This is round {r} of 2"], [text])
        env = agent_env(
            claude_env(anth.url, home),
            cli.env(other.url, home),
            {
                "COLLAB_CLAUDE_BIN": claude,
                f"COLLAB_{name.upper()}_BIN": cli.binary,
                "COLLAB_TMUX_SOCKET": tmux_socket,
                "COLLAB_HOME": str(hermetic_env),
            },
        )
        for var in CLAUDE_ENV_UNSET:
            env.pop(var, None)
        argv = [
            sys.executable, "-m", "collab", "debate", "JWT or server sessions for our API?",
            "--agent-a", "claude", "--model-a", "claude-test-a",
            "--agent-b", name, "--model-b", f"{name}-test-b",
            "--judge-agent", "claude", "--judge-model", "claude-test-judge",
            "--rounds", "2", "--runner", "tmux", "--timeout", "90",
            "--judge-timeout", "90", "--json",
            # B's round 1 answers A's (it contests I1): not a blind opening.
            "--opening", "sequential",
        ]  # fmt: skip
        proc = subprocess.run(
            argv, env=env, cwd=workdir, capture_output=True, text=True, timeout=400
        )
        anth_reqs, other_reqs = anth.requests, other.requests
    assert proc.returncode == 0, f"stdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
    doc = json.loads(proc.stdout)
    state = json.loads(
        (hermetic_env / "runs" / str(doc["run_id"]) / "state.json").read_text("utf-8")
    )

    # Each side reached only its own server, with its own model.
    a_reqs = [r for r in anth_reqs if ME_A in r.prompt]
    judge_reqs = [r for r in anth_reqs if "neutral judge" in r.prompt]
    assert len(a_reqs) == 2 and len(judge_reqs) == 1, [r.prompt[:200] for r in anth_reqs]
    assert {r.model for r in a_reqs} == {"claude-test-a"}
    assert {r.model for r in judge_reqs} == {"claude-test-judge"}
    assert not [r for r in anth_reqs if ME_B in r.prompt]
    assert len(other_reqs) == 2
    assert {r.model for r in other_reqs} == {f"{name}-test-b"}
    assert all(ME_B in r.prompt for r in other_reqs)
    # Round 2's prompt to A (who speaks last) carries B's round-2 prose: the sides really
    # talk.
    (a2_req,) = [r for r in a_reqs if "This is round 2 of 2" in r.prompt]
    assert B2 in a2_req.prompt

    # The run: both sides' prose, agents and models, the ledger, the judge.
    assert state["status"] == "done"
    assert state["rounds_done"] == 2
    turns = {(t["round_no"], t["side"]): t for t in state["turns"]}
    expected = {(1, "A"): A1, (1, "B"): B1, (2, "A"): A2, (2, "B"): B2}
    for key, prose in expected.items():
        turn = turns[key]
        assert turn["status"] == "ok", turn
        assert prose in turn["prose"]
        assert "```" not in turn["prose"]
        meta = turn["meta"]
        side_agent = ("claude", "claude-test-a") if key[1] == "A" else (name, f"{name}-test-b")
        assert (meta["agent"], meta["model"]) == side_agent
    ledger = {i["id"]: i for i in state["ledger"]}
    assert [ledger[i]["title"] for i in ("I1", "I2", "I3")] == [TITLE_A1, TITLE_B1, TITLE_B2]
    assert [ledger[i]["raised_by"] for i in ("I1", "I2", "I3")] == ["A", "B", "B"]
    assert [ledger[i]["status"] for i in ("I1", "I2", "I3")] == ["open", "open", "resolved"]
    assert ledger["I1"]["evidence_a"] == "logout must take effect at once"
    assert ledger["I1"]["evidence_b"] == "short expiry bounds it"
    assert ledger["I3"]["evidence_a"] == "Redis is there"
    assert state["judge"]["fallback"] is False
    assert "Measure the store's latency" in state["judge"]["text"]


# -- the fakes themselves (no binary needed) ---------------------------------------------------


def _post(url: str, body: dict[str, Any]) -> tuple[int, bytes]:
    req = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return int(resp.status), bytes(resp.read())
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def _sse(data: bytes) -> list[tuple[str | None, dict[str, Any]]]:
    events: list[tuple[str | None, dict[str, Any]]] = []
    for block in data.decode().split("\n\n"):
        name: str | None = None
        for line in block.splitlines():
            if line.startswith("event: "):
                name = line.removeprefix("event: ")
            elif line.startswith("data: "):
                events.append((name, json.loads(line.removeprefix("data: "))))
    return events


def _responses_body(prompt: str, model: str = "gpt-x", stream: bool = True) -> dict[str, Any]:
    def msg(role: str, text: str) -> dict[str, Any]:
        return {"type": "message", "role": role, "content": [{"type": "input_text", "text": text}]}

    turns = [msg("developer", "sys PING"), msg("user", "<env>PING</env>"), msg("user", prompt)]
    return {"model": model, "stream": stream, "input": turns}


def test_fake_openai_stream_rules_and_records() -> None:
    with FakeOpenAI() as srv:
        rule = srv.add_rule(["Role B", "round 1"], ["first reply", "second reply"])
        srv.default("fallback")
        url = f"{srv.url}/v1/responses"
        bodies = [_post(url, _responses_body(f"Role B, round 1, call {n}"))[1] for n in range(3)]
        status, other = _post(url, _responses_body("PING only"))
        reqs = srv.requests
    events = _sse(bodies[0])
    kinds = [e["type"] for _, e in events]
    assert [name for name, _ in events] == kinds
    assert kinds[0] == "response.created" and kinds[-1] == "response.completed"
    assert kinds.index("response.output_item.added") < kinds.index("response.output_text.delta")
    assert kinds.index("response.output_text.delta") < kinds.index("response.output_item.done")
    deltas = "".join(e["delta"] for _, e in events if e["type"] == "response.output_text.delta")
    assert deltas == "first reply"
    done = next(e for _, e in events if e["type"] == "response.output_item.done")
    assert done["item"]["content"][0]["text"] == "first reply"
    assert events[-1][1]["response"]["usage"]["total_tokens"] == 150
    texts = ["".join(e.get("delta", "") for _, e in _sse(b)) for b in bodies]
    assert texts == ["first reply", "second reply", "second reply"]  # the last one repeats
    assert status == 200 and "fallback" in other.decode()
    assert rule.count == 3 and srv.default_count == 1
    # The prompt is the last user message only: "PING" in the system text never matched.
    assert [r.prompt for r in reqs][:2] == ["Role B, round 1, call 0", "Role B, round 1, call 1"]
    assert [r.rule for r in reqs] == [0, 0, 0, None]
    assert {r.model for r in reqs} == {"gpt-x"}


def test_fake_openai_errors_broken_streams_and_json() -> None:
    with FakeOpenAI() as srv:
        srv.add_rule("limit", [Reply(status=429, error_message="slow down")])
        srv.add_rule("cut", [Reply(text="partial", truncate=True)])
        srv.add_rule("plain", ["not streamed"])
        url = f"{srv.url}/v1/responses"
        status, body = _post(url, _responses_body("limit"))
        _, cut = _post(url, _responses_body("cut"))
        _, plain = _post(url, _responses_body("plain", stream=False))
        missing, _ = _post(f"{srv.url}/v1/chat/completions", {})
    assert status == 429
    assert json.loads(body)["error"] == {
        "message": "slow down", "type": "rate_limit_error", "param": None, "code": None,
    }  # fmt: skip
    assert "response.completed" not in [e["type"] for _, e in _sse(cut)]
    doc = json.loads(plain)
    assert doc["status"] == "completed"
    assert doc["output"][0]["content"][0]["text"] == "not streamed"
    assert missing == 404


def test_fake_gemini_stream_and_methods() -> None:
    body = {
        "contents": [
            {"role": "user", "parts": [{"text": "<session_context/>"}, {"text": "Role B here"}]}
        ]
    }
    with FakeGemini() as srv:
        srv.add_rule("Role B", ["a reply in pieces", Reply(status=503), "a reply in pieces"])
        base = f"{srv.url}/v1beta/models/gemini-x"
        status, data = _post(f"{base}:streamGenerateContent?alt=sse", body)
        err_status, err = _post(f"{base}:streamGenerateContent?alt=sse", body)
        _, plain = _post(f"{srv.url}/v1beta/models/gemini-y:generateContent", body)
        _, count = _post(f"{base}:countTokens", body)
        reqs, others = srv.requests, srv.other_requests
    chunks = [payload for _, payload in _sse(data)]
    assert status == 200 and len(chunks) > 1
    text = "".join(c["candidates"][0]["content"]["parts"][0]["text"] for c in chunks)
    assert text == "a reply in pieces"
    assert [c["candidates"][0].get("finishReason") for c in chunks][-1] == "STOP"
    assert all("finishReason" not in c["candidates"][0] for c in chunks[:-1])
    assert err_status == 503 and json.loads(err)["error"]["status"] == "UNAVAILABLE"
    assert json.loads(plain)["candidates"][0]["content"]["parts"][0]["text"] == "a reply in pieces"
    assert json.loads(count) == {"totalTokens": 100}
    assert [r.model for r in reqs] == ["gemini-x", "gemini-x", "gemini-y"]
    assert reqs[0].stream and not reqs[2].stream
    assert "Role B here" in reqs[0].prompt
    assert [o.path.rsplit(":", 1)[-1] for o in others] == ["countTokens"]


def test_fakes_stream_words_slowly_and_call_tools() -> None:
    call = ("read_file", {"file_path": "notes.txt"})
    with FakeOpenAI() as oa, FakeGemini() as gm:
        for srv in (oa, gm):
            srv.add_rule("slow", [Reply(text="one two three", word_delay=0.2)])
            srv.add_rule("tool", [Reply(text="Let me look.", tool_call=call)])
        started = time.time()
        _, slow = _post(f"{oa.url}/v1/responses", _responses_body("slow"))
        took = time.time() - started
        _, tool = _post(f"{oa.url}/v1/responses", _responses_body("tool"))
        g_url = f"{gm.url}/v1beta/models/g:streamGenerateContent?alt=sse"
        _, g_slow = _post(g_url, {"contents": [{"role": "user", "parts": [{"text": "slow"}]}]})
        _, g_tool = _post(g_url, {"contents": [{"role": "user", "parts": [{"text": "tool"}]}]})
        first = oa.first_text_at[0]
    assert took >= 0.4 and first - started < 0.3
    deltas = [e["delta"] for _, e in _sse(slow) if e["type"] == "response.output_text.delta"]
    assert deltas == ["one ", "two ", "three"]
    done = _sse(tool)[-1][1]["response"]["output"]
    assert [o["type"] for o in done] == ["message", "function_call"]
    assert done[1]["name"] == "read_file" and json.loads(done[1]["arguments"]) == call[1]
    chunks = [p["candidates"][0] for _, p in _sse(g_slow)]
    assert [c["content"]["parts"][0]["text"] for c in chunks] == ["one ", "two ", "three", ""]
    assert [c.get("finishReason") for c in chunks] == [None, None, None, "STOP"]
    last = [p["candidates"][0] for _, p in _sse(g_tool)][-1]
    assert last["content"]["parts"] == [{"functionCall": {"name": call[0], "args": call[1]}}]
    assert last["finishReason"] == "STOP"


@pytest.mark.parametrize("fake", [FakeOpenAI, FakeGemini])
def test_fake_hang_does_not_block_stop(fake: Callable[[], ScriptedServer]) -> None:
    srv = fake().start()
    srv.default(Reply(hang=True))
    url = (
        f"{srv.url}/v1/responses"
        if isinstance(srv, FakeOpenAI)
        else (f"{srv.url}/v1beta/models/m:streamGenerateContent?alt=sse")
    )
    body = _responses_body("x") if isinstance(srv, FakeOpenAI) else {"contents": []}
    results: list[object] = []

    def client() -> None:
        try:
            results.append(_post(url, body))
        except OSError as exc:
            results.append(exc)

    thread = threading.Thread(target=client, daemon=True)
    thread.start()
    srv.wait_for_requests(1, timeout=5)
    started = time.monotonic()
    srv.stop()
    thread.join(5)
    assert time.monotonic() - started < 5
    assert not thread.is_alive() and results


def test_codex_mcp_overrides_name_every_configured_server(tmp_path: Path) -> None:
    home = tmp_path / "codex-home"
    home.mkdir()
    (home / "config.toml").write_text(
        'model = "x"\n[mcp_servers.docs]\ncommand = "docs-mcp"\n'
        '[mcp_servers.remote]\nurl = "https://mcp.example/x"\n'
        '[mcp_servers."bad.name"]\ncommand = "x"\n',
        encoding="utf-8",
    )
    project = tmp_path / "repo" / "sub"
    (tmp_path / "repo" / ".codex").mkdir(parents=True)
    project.mkdir()
    (tmp_path / "repo" / ".codex" / "config.toml").write_text(
        '[mcp_servers.local_db]\ncommand = "db"\n[mcp_servers.docs]\ncommand = "d2"\n',
        encoding="utf-8",
    )
    out = codex_mcp_overrides({"CODEX_HOME": str(home)}, cwd=project)
    assert out == [
        "-c", 'mcp_servers.docs={enabled=false,command="true"}',
        "-c", 'mcp_servers.local_db={enabled=false,command="true"}',
        "-c", 'mcp_servers.remote={enabled=false,url="http://127.0.0.1:9/"}',
    ]  # fmt: skip
    # No config, a broken config: nothing to disable, no error.
    assert codex_mcp_overrides({"HOME": str(tmp_path / "none")}, cwd=tmp_path) == []
    (home / "config.toml").write_text("[mcp_servers\n", encoding="utf-8")
    assert codex_mcp_overrides({"CODEX_HOME": str(home)}, cwd=tmp_path) == []


def test_lean_and_tool_flags_of_codex_and_gemini(tmp_path: Path) -> None:
    env = {"CODEX_HOME": str(tmp_path)}
    (tmp_path / "config.toml").write_text('[mcp_servers.a]\ncommand = "a"\n', encoding="utf-8")
    p = tmp_path / "prompt"

    def argv(agent: str, setup: AgentSetup, tools: ToolSet) -> list[str]:
        return build_argv(BUILTIN[agent], agent, "m", p, setup=setup, tools=tools, env=env)

    lean = argv("codex", "lean", "none")
    assert 'mcp_servers.a={enabled=false,command="true"}' in lean
    assert {"hooks", "plugins", "project_doc_max_bytes=0", "--ignore-rules"} <= set(lean)
    assert {"shell_tool", 'web_search="disabled"'} <= set(lean)
    read = argv("codex", "lean", "read")
    assert "shell_tool" not in read and 'web_search="disabled"' in read
    inherit = argv("codex", "inherit", "none")
    assert not {"hooks", "project_doc_max_bytes=0"} & set(inherit)
    assert lean[-2:] == inherit[-2:] == ["-m", "m"]
    assert lean[:3] == ["codex", "exec", "--json"]
    g = argv("gemini", "lean", "none")
    assert g[:5] == ["gemini", "-p", "", "-o", "stream-json"]
    assert {"-e", "none", "--allowed-mcp-server-names"} <= set(g)
    policy = Path(g[g.index("--policy") + 1])
    assert 'decision = "deny"' in policy.read_text(encoding="utf-8")
    g_read = argv("gemini", "inherit", "read")
    assert "-e" not in g_read
    assert "read_file" in Path(g_read[g_read.index("--policy") + 1]).read_text(encoding="utf-8")
    system_md = Path(dict(BUILTIN["gemini"].env_set)["GEMINI_SYSTEM_MD"])
    from collab.agents import CLAUDE_SYSTEM_PROMPT

    assert system_md.read_text(encoding="utf-8").strip() == CLAUDE_SYSTEM_PROMPT


def test_agent_envs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "real-secret")
    monkeypatch.setenv("GOOGLE_API_KEY", "real-secret")
    home = tmp_path / "h"
    cenv = codex_env("http://127.0.0.1:4242/", home)
    genv = gemini_env("http://127.0.0.1:4343", home)
    cfg = tomllib.loads((home / ".codex" / "config.toml").read_text("utf-8"))
    assert cfg["model_provider"] == "stub"
    stub = cfg["model_providers"]["stub"]
    assert stub["base_url"] == "http://127.0.0.1:4242/v1"
    assert stub["wire_api"] == "responses"
    assert stub["env_key"] == "STUB_API_KEY" and cenv["STUB_API_KEY"]
    assert cenv["CODEX_HOME"] == str(home / ".codex")
    settings = json.loads((home / ".gemini" / "settings.json").read_text("utf-8"))
    assert settings["security"]["auth"]["selectedType"] == "gemini-api-key"
    assert genv["GOOGLE_GEMINI_BASE_URL"] == "http://127.0.0.1:4343"
    env = agent_env(cenv, genv)
    assert "OPENAI_API_KEY" not in env and "GOOGLE_API_KEY" not in env
    assert env["HOME"] == str(home) and env["PATH"] == os.environ["PATH"]
