"""Tests for the test fakes: the scripted agent CLI, the fake Anthropic API, and the
real ``claude`` CLI running offline against that fake."""

from __future__ import annotations

import importlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from tests.fakes import (
    FAKE_AGENT,
    SKIP_REASON,
    FakeAgent,
    FakeAnthropic,
    Reply,
    claude_binary,
    claude_env,
    claude_full_env,
    fake_agent_argv,
)
from tests.fakes.anthropic_server import prompt_text
from tests.fakes.claude_env import claude_version
from tests.helpers import pid_alive, wait_until

# the package re-exports the function claude_env, which shadows the submodule's name
claude_env_module = importlib.import_module("tests.fakes.claude_env")

# --------------------------------------------------------------------------- helpers


class Run(NamedTuple):
    code: int
    stdout: str
    stderr: str


def run_agent(
    script: FakeAgent,
    prompt: str,
    fmt: str = "claude-json",
    model: str | None = None,
    extra_env: Mapping[str, str] | None = None,
) -> Run:
    env = {**os.environ, **script.env, **(extra_env or {})}
    proc = subprocess.run(
        fake_agent_argv(fmt, model),
        input=prompt.encode(),
        capture_output=True,
        env=env,
        timeout=30,
    )
    return Run(proc.returncode, proc.stdout.decode(), proc.stderr.decode())


@pytest.fixture
def script(tmp_path: Path) -> FakeAgent:
    return FakeAgent(tmp_path / "fake")


# ------------------------------------------------------------------ fake agent: rules


class MatchCase(NamedTuple):
    test_id: str
    prompt: str
    expected: str


RULES: list[dict[str, Any]] = [
    {"match": ["Role A", "JWT"], "replies": ["A-jwt"]},
    {"match": ["Role A"], "replies": ["A-any"]},
    {"match": ["Role B"], "replies": [{"text": "B-any"}]},
]

MATCH_CASES = [
    MatchCase("all-substrings", "You are Role A. Topic: JWT vs sessions", "A-jwt"),
    MatchCase("first-rule-wins-over-later", "Role A and Role B on JWT", "A-jwt"),
    MatchCase("partial-match-falls-through", "Role A on cookies", "A-any"),
    MatchCase("second-rule", "Role B speaks", "B-any"),
    MatchCase("case-sensitive", "role a on jwt", "DEFAULT"),
    MatchCase("no-rule-default", "the judge summarises", "DEFAULT"),
    MatchCase("unicode", "Role B: 日本語のトピック", "B-any"),
]


@pytest.mark.parametrize("case", MATCH_CASES, ids=[c.test_id for c in MATCH_CASES])
def test_fake_agent_rule_matching(script: FakeAgent, case: MatchCase) -> None:
    script.script(RULES, default="DEFAULT")
    out = run_agent(script, case.prompt, fmt="text")
    assert out == Run(0, case.expected + "\n", "")


def test_fake_agent_replies_in_order_last_repeats(script: FakeAgent) -> None:
    script.script([{"match": ["turn"], "replies": ["one", "two", "three"]}], default="d")
    got = [run_agent(script, "turn", fmt="text").stdout.strip() for _ in range(5)]
    assert got == ["one", "two", "three", "three", "three"]
    assert script.counts() == {"0": 5}
    calls = script.calls()
    assert [c["reply_index"] for c in calls] == [0, 1, 2, 2, 2]
    assert all(c["rule"] == 0 and c["prompt"] == "turn" for c in calls)


def test_fake_agent_counters_survive_parallel_processes(script: FakeAgent) -> None:
    n = 16
    script.script([{"match": ["go"], "replies": [f"r{i}" for i in range(n)]}])
    with ThreadPoolExecutor(max_workers=n) as pool:
        runs = list(pool.map(lambda _: run_agent(script, "go", fmt="text"), range(n)))
    assert all(r.code == 0 for r in runs)
    # every reply handed out exactly once: no lost or doubled count under flock
    assert sorted(r.stdout.strip() for r in runs) == sorted(f"r{i}" for i in range(n))
    assert script.counts() == {"0": n}
    assert len(script.calls()) == n


def test_fake_agent_logs_calls(script: FakeAgent) -> None:
    script.script([{"match": ["x"], "replies": ["y"]}])
    prompt = "x" * 500
    run_agent(script, prompt, model="claude-sonnet-4-5")
    run_agent(script, "unmatched")
    first, second = script.calls()
    assert first["model"] == "claude-sonnet-4-5"
    assert first["prompt"] == "x" * 200
    assert first["rule"] == 0
    assert "--model" in first["argv"]
    assert second["rule"] is None
    assert first["time"] <= second["time"]


# ------------------------------------------------------- fake agent: outputs and faults


REAL_RESULT_KEYS = {
    "type",
    "subtype",
    "is_error",
    "api_error_status",
    "duration_ms",
    "num_turns",
    "result",
    "stop_reason",
    "session_id",
    "total_cost_usd",
    "usage",
    "modelUsage",
}


REPLY_Q = {"text": "answer ✓ 日本", "input_tokens": 1000, "output_tokens": 20}


def test_fake_agent_claude_json_shape(script: FakeAgent) -> None:
    script.script(
        [{"match": ["q"], "replies": [REPLY_Q]}],
    )
    out = run_agent(script, "q", model="claude-sonnet-4-5")
    assert out.code == 0
    assert out.stdout.endswith("\n") and out.stdout.count("\n") == 1
    doc = json.loads(out.stdout)
    assert doc.keys() >= REAL_RESULT_KEYS
    assert doc["type"] == "result" and doc["subtype"] == "success"
    assert doc["is_error"] is False and doc["api_error_status"] is None
    assert doc["result"] == "answer ✓ 日本"
    assert doc["stop_reason"] == "end_turn"
    assert doc["usage"]["input_tokens"] == 1000
    assert doc["usage"]["output_tokens"] == 20
    assert doc["usage"]["cache_read_input_tokens"] == 0
    assert doc["usage"]["cache_creation_input_tokens"] == 0
    assert doc["modelUsage"]["claude-sonnet-4-5"]["inputTokens"] == 1000
    # sonnet pricing, $3 / $15 per Mtok, as the real CLI computes it
    assert doc["total_cost_usd"] == pytest.approx(1000 * 3e-6 + 20 * 15e-6)
    assert len(doc["session_id"]) == 36


def test_fake_agent_scripted_cost(script: FakeAgent) -> None:
    script.script([], default={"text": "t", "cost_usd": 0.25})
    doc = json.loads(run_agent(script, "anything").stdout)
    assert doc["total_cost_usd"] == 0.25


class FaultCase(NamedTuple):
    test_id: str
    action: dict[str, Any]
    fmt: str
    code: int
    stdout: str | None  # None: claude-json, checked separately
    stderr: str


FAULT_CASES = [
    FaultCase("exit-code-text", {"text": "bad", "exit": 3}, "text", 3, "bad\n", ""),
    FaultCase("stderr", {"text": "ok", "stderr": "warning!\n"}, "text", 0, "ok\n", "warning!\n"),
    FaultCase("empty-text", {"text": "x", "empty": True}, "text", 0, "", ""),
    FaultCase("raw-bad-json", {"raw": '{"type": "res'}, "claude-json", 0, '{"type": "res', ""),
    FaultCase(
        "stdout-extra", {"text": "t", "stdout_extra": "noise\n"}, "text", 0, "noise\nt\n", ""
    ),
]


@pytest.mark.parametrize("case", FAULT_CASES, ids=[c.test_id for c in FAULT_CASES])
def test_fake_agent_faults(script: FakeAgent, case: FaultCase) -> None:
    script.script([], default=case.action)
    assert run_agent(script, "p", fmt=case.fmt) == Run(case.code, case.stdout or "", case.stderr)


def test_fake_agent_claude_json_error(script: FakeAgent) -> None:
    script.script([], default={"text": "API Error: 500 boom", "exit": 1, "api_error_status": 500})
    out = run_agent(script, "p")
    assert out.code == 1 and out.stderr == ""  # like claude: errors on stdout only
    doc = json.loads(out.stdout)
    assert doc["is_error"] is True
    assert doc["subtype"] == "success"
    assert doc["api_error_status"] == 500
    assert doc["result"] == "API Error: 500 boom"
    assert doc["usage"]["input_tokens"] == 0 and doc["total_cost_usd"] == 0


def test_fake_agent_claude_json_empty_result(script: FakeAgent) -> None:
    script.script([], default={"text": "ignored", "empty": True})
    out = run_agent(script, "p")
    doc = json.loads(out.stdout)
    assert out.code == 0 and doc["is_error"] is False and doc["result"] == ""


def test_fake_agent_accepts_claude_argv(script: FakeAgent) -> None:
    script.script([], default="hi")
    env = {**os.environ, **script.env}
    argv = [sys.executable, str(FAKE_AGENT), "-p", "--output-format", "json"]
    proc = subprocess.run(argv, input=b"q", capture_output=True, env=env, timeout=30)
    assert json.loads(proc.stdout)["result"] == "hi"


def test_fake_agent_sleep_then_answer(script: FakeAgent) -> None:
    script.script([], default={"text": "late", "sleep": 0.3})
    started = time.monotonic()
    out = run_agent(script, "p", fmt="text")
    assert out.stdout == "late\n"
    assert time.monotonic() - started >= 0.3


def test_fake_agent_hang_killed_with_its_process_group(script: FakeAgent, tmp_path: Path) -> None:
    pidfile = tmp_path / "child.pid"
    script.script([], default={"hang": True, "hang_with_child": True})
    env = {
        **os.environ,
        **script.env,
        "COLLAB_FAKE_CHILD_PIDFILE": str(pidfile),
    }
    proc = subprocess.Popen(
        fake_agent_argv("text"),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        start_new_session=True,
    )
    child = 0
    try:
        assert proc.stdin is not None
        proc.stdin.write(b"prompt")
        proc.stdin.close()
        assert wait_until(pidfile.exists, 10), "grandchild pid file never appeared"
        child = int(pidfile.read_text())
        assert pid_alive(child)
        assert os.getpgid(child) == proc.pid  # the grandchild is in the agent's group
        with pytest.raises(subprocess.TimeoutExpired):
            proc.wait(timeout=0.2)  # it really hangs
        os.killpg(proc.pid, signal.SIGKILL)
        assert proc.wait(timeout=10) == -signal.SIGKILL
        assert wait_until(lambda: not pid_alive(child), 10), "grandchild survived killpg"
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)
        if child and pid_alive(child):
            os.kill(child, signal.SIGKILL)
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()


def test_fake_agent_without_script_still_answers() -> None:
    env = {k: v for k, v in os.environ.items() if k != "COLLAB_FAKE_SCRIPT"}
    proc = subprocess.run(
        fake_agent_argv("text"), input=b"hi", capture_output=True, env=env, timeout=30
    )
    assert proc.returncode == 0 and b"COLLAB_FAKE_SCRIPT" in proc.stdout


# -------------------------------------------------------------------- FakeAnthropic


@pytest.fixture
def server() -> Iterator[FakeAnthropic]:
    before = {t.ident for t in threading.enumerate()}
    with FakeAnthropic() as fake:
        yield fake
    # no handler or serve thread outlives stop()
    leaked = [
        t for t in threading.enumerate() if t.ident not in before and t.name.startswith("fake-")
    ]
    assert not leaked


def body(prompt: str, stream: bool, model: str = "claude-opus-4-8") -> dict[str, Any]:
    """Shaped like claude 2.1.x: a system-reminder block first, a trailing system turn."""
    return {
        "model": model,
        "max_tokens": 1024,
        "stream": stream,
        "messages": [
            {"role": "user", "content": "an older turn with Role B"},
            {"role": "assistant", "content": [{"type": "text", "text": "ok"}]},
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "<system-reminder>\nctx\n</system-reminder>\n"},
                    {"type": "text", "text": prompt, "cache_control": {"type": "ephemeral"}},
                ],
            },
            {"role": "system", "content": "skills list mentioning Role B"},
        ],
    }


def post(
    server: FakeAnthropic, payload: dict[str, Any], timeout: float = 10
) -> tuple[int, str, bytes]:
    req = urllib.request.Request(
        server.url + "/v1/messages?beta=true",
        data=json.dumps(payload).encode(),
        headers={"content-type": "application/json", "x-api-key": "dummy"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return resp.status, resp.headers.get("Content-Type", ""), resp.read()
    except urllib.error.HTTPError as err:
        return err.code, err.headers.get("Content-Type", ""), err.read()


def sse_events(raw: bytes) -> list[tuple[str, dict[str, Any]]]:
    events = []
    for block in raw.decode().split("\n\n"):
        if not block.strip():
            continue
        fields = dict(line.split(": ", 1) for line in block.splitlines())
        events.append((fields["event"], json.loads(fields["data"])))
    return events


def test_server_preconnect(server: FakeAnthropic) -> None:
    for method in ("HEAD", "GET"):
        req = urllib.request.Request(server.url + "/", method=method)
        with urllib.request.urlopen(req, timeout=10) as resp:
            assert resp.status == 200
    assert [r.method for r in server.other_requests] == ["HEAD", "GET"]
    assert server.requests == []


def test_server_streaming(server: FakeAnthropic) -> None:
    text = "Streaming answer, long enough to be split into chunks ✓"
    server.default(Reply(text=text, input_tokens=321, output_tokens=45, cache_read_input_tokens=7))
    status, ctype, raw = post(server, body("hello", stream=True))
    assert status == 200 and ctype.startswith("text/event-stream")
    events = sse_events(raw)
    names = [name for name, _ in events if name != "ping"]
    assert names[:2] == ["message_start", "content_block_start"]
    assert names[-4:] == [
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]
    assert set(names[2:-3]) == {"content_block_delta"}
    assert all(data["type"] == name for name, data in events)
    deltas = [d for n, d in events if n == "content_block_delta"]
    assert len(deltas) > 1
    assert all(d["delta"]["type"] == "text_delta" for d in deltas)
    assert "".join(d["delta"]["text"] for d in deltas) == text
    start = events[0][1]["message"]
    assert start["id"].startswith("msg_") and start["model"] == "claude-opus-4-8"
    assert start["usage"]["input_tokens"] == 321
    assert start["usage"]["cache_read_input_tokens"] == 7
    delta = next(d for n, d in events if n == "message_delta")
    assert delta["delta"]["stop_reason"] == "end_turn"
    assert delta["usage"]["output_tokens"] == 45
    (req,) = server.requests
    assert req.stream and req.path == "/v1/messages?beta=true"
    assert req.headers["x-api-key"] == "dummy"


def test_server_non_streaming(server: FakeAnthropic) -> None:
    server.default(Reply(text="plain", output_tokens=9, model="claude-other"))
    status, ctype, raw = post(server, body("hello", stream=False))
    assert status == 200 and ctype.startswith("application/json")
    msg = json.loads(raw)
    assert msg["type"] == "message" and msg["role"] == "assistant"
    assert msg["content"] == [{"type": "text", "text": "plain"}]
    assert msg["stop_reason"] == "end_turn"
    assert msg["model"] == "claude-other"
    assert msg["usage"] == {
        "input_tokens": 100,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
        "output_tokens": 9,
    }
    assert server.requests[0].stream is False


@pytest.mark.parametrize(
    ("status", "error_type"),
    [
        (400, "invalid_request_error"),
        (401, "authentication_error"),
        (429, "rate_limit_error"),
        (500, "api_error"),
        (529, "overloaded_error"),
    ],
)
def test_server_error_status(server: FakeAnthropic, status: int, error_type: str) -> None:
    server.default(Reply(status=status, error_message="scripted failure"))
    for stream in (True, False):
        code, ctype, raw = post(server, body("hello", stream=stream))
        assert code == status and ctype.startswith("application/json")
        assert json.loads(raw) == {
            "type": "error",
            "error": {"type": error_type, "message": "scripted failure"},
        }


def test_server_prompt_is_last_user_message() -> None:
    text = prompt_text(body("MY PROMPT", stream=True))
    assert text.startswith("<system-reminder>") and text.endswith("MY PROMPT")
    assert "older turn" not in text and "skills list" not in text
    assert prompt_text({"messages": [{"role": "user", "content": "plain string"}]}) == (
        "plain string"
    )
    assert prompt_text({}) == ""


def test_server_rules(server: FakeAnthropic) -> None:
    jwt = server.add_rule(["Role A", "JWT"], [Reply("a1"), Reply("a2")])
    role_b = server.add_rule("Role B", [Reply("b")])
    server.default(Reply("dflt"))

    def ask(prompt: str) -> str:
        _, _, raw = post(server, body(prompt, stream=False))
        return str(json.loads(raw)["content"][0]["text"])

    # "Role B" also appears in an older user turn and the trailing system turn:
    # only the last user message counts.
    assert [ask("Role A on JWT") for _ in range(3)] == ["a1", "a2", "a2"]
    assert ask("Role A only") == "dflt"
    assert ask("Role B, JWT") == "b"
    assert (jwt.count, role_b.count, server.default_count) == (3, 1, 1)
    assert server.rule_counts == [3, 1]
    assert [r.rule for r in server.requests] == [0, 0, 0, None, 1]
    assert server.requests[0].prompt.endswith("Role A on JWT")


def test_server_concurrent_requests(server: FakeAnthropic) -> None:
    n = 20
    rule = server.add_rule("go", [Reply(f"r{i}") for i in range(n)])
    with ThreadPoolExecutor(max_workers=n) as pool:
        results = list(pool.map(lambda _: post(server, body("go", stream=True)), range(n)))
    texts = [
        "".join(d["delta"]["text"] for n_, d in sse_events(raw) if n_ == "content_block_delta")
        for _, _, raw in results
    ]
    assert sorted(texts) == sorted(f"r{i}" for i in range(n))
    assert rule.count == n
    assert len(server.wait_for_requests(n, timeout=5)) == n


def test_server_delay(server: FakeAnthropic) -> None:
    server.default(Reply("slow", delay=0.3))
    started = time.monotonic()
    status, _, _ = post(server, body("x", stream=True))
    assert status == 200 and time.monotonic() - started >= 0.3


def test_server_hang_does_not_block_stop() -> None:
    fake = FakeAnthropic().start()
    fake.default(Reply(hang=True))
    errors: list[BaseException] = []

    def client() -> None:
        try:
            post(fake, body("x", stream=True), timeout=30)
        except (OSError, urllib.error.URLError) as exc:
            errors.append(exc)

    thread = threading.Thread(target=client)
    thread.start()
    try:
        fake.wait_for_requests(1, timeout=10)
        with pytest.raises(TimeoutError):
            fake.wait_for_requests(2, timeout=0.2)
        started = time.monotonic()
        fake.stop()
        assert time.monotonic() - started < 3
        thread.join(10)
        assert not thread.is_alive()  # the client saw the connection close
        assert not [t for t in threading.enumerate() if t.name.startswith("fake-anthropic")]
    finally:
        fake.stop()
        thread.join(10)


def test_server_restart_gets_fresh_port() -> None:
    fake = FakeAnthropic()
    with fake:
        url = fake.url
    with pytest.raises(RuntimeError):
        _ = fake.url
    with FakeAnthropic() as other:
        assert other.url.startswith("http://127.0.0.1:") and other.url != ""
    assert url.startswith("http://127.0.0.1:")


# ----------------------------------------------------------------- claude env helpers


def test_claude_version_rejects_stub(tmp_path: Path) -> None:
    stub = tmp_path / "claude-stub"
    stub.write_text("#!/bin/sh\necho 'claude native binary not installed' >&2\nexit 1\n")
    stub.chmod(0o755)
    real = tmp_path / "claude-real"
    real.write_text("#!/bin/sh\necho '2.1.197 (Claude Code)'\n")
    real.chmod(0o755)
    assert claude_version(stub) is None
    assert claude_version(real) == "2.1.197"
    assert claude_version(tmp_path / "missing") is None


def test_claude_binary_search_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stub = tmp_path / "stub"
    stub.write_text("#!/bin/sh\nexit 1\n")
    stub.chmod(0o755)
    real = tmp_path / "bin" / "claude"
    real.parent.mkdir()
    real.write_text("#!/bin/sh\necho '2.1.5 (Claude Code)'\n")
    real.chmod(0o755)
    monkeypatch.setattr(claude_env_module, "DEFAULT_CLAUDE_PATH", tmp_path / "absent")
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.setenv("COLLAB_CLAUDE_BIN", str(stub))
    assert claude_binary() is None  # a stub that cannot print its version is not claude
    monkeypatch.setenv("PATH", str(real.parent))
    assert claude_binary() == str(real)
    monkeypatch.setenv("COLLAB_CLAUDE_BIN", str(real))
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert claude_binary() == str(real)


def test_claude_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "h"
    env = claude_env("http://127.0.0.1:9/", home)
    assert home.is_dir()
    assert env["ANTHROPIC_BASE_URL"] == "http://127.0.0.1:9"
    assert env["ANTHROPIC_API_KEY"] == "dummy"
    assert env["HOME"] == str(home)
    assert env["CLAUDE_CODE_MAX_RETRIES"] == "0"
    assert env["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"] == "1"
    monkeypatch.setenv("CLAUDECODE", "1")
    monkeypatch.setenv("ANTHROPIC_AUTH_TOKEN", "secret")
    full = claude_full_env("http://127.0.0.1:9", home)
    assert "CLAUDECODE" not in full and "ANTHROPIC_AUTH_TOKEN" not in full
    assert full["PATH"] == os.environ["PATH"]


# ------------------------------------------------------- the real claude CLI, offline


@pytest.fixture(scope="module")
def claude() -> str:
    path = claude_binary()
    if path is None:
        pytest.skip(SKIP_REASON)
    return path


def run_claude(
    claude: str, server: FakeAnthropic, tmp_path: Path, prompt: str, *args: str
) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    proc = subprocess.run(
        [claude, "-p", "--output-format", "json", *args],
        input=prompt,
        capture_output=True,
        text=True,
        env=claude_full_env(server.url, tmp_path / "home"),
        cwd=work,
        timeout=120,
    )
    doc: dict[str, Any] = json.loads(proc.stdout)
    return proc, doc


@pytest.mark.real_agent
def test_real_claude_against_fake(claude: str, server: FakeAnthropic, tmp_path: Path) -> None:
    rule = server.add_rule(
        "MARKER-7f3a", [Reply("Scripted answer ✓ 日本語", input_tokens=1234, output_tokens=56)]
    )
    server.default(Reply("wrong rule"))
    proc, doc = run_claude(claude, server, tmp_path, "Please answer. MARKER-7f3a")
    assert proc.returncode == 0, proc.stdout
    assert proc.stderr == ""
    assert doc["type"] == "result"
    assert doc["is_error"] is False
    assert doc["result"] == "Scripted answer ✓ 日本語"
    assert doc["usage"]["input_tokens"] == 1234
    assert doc["usage"]["output_tokens"] == 56
    assert doc["total_cost_usd"] > 0  # priced from the request's model name
    assert rule.count == 1 and server.default_count == 0
    (req,) = server.requests
    assert req.stream and req.path.startswith("/v1/messages")
    assert req.prompt.endswith("MARKER-7f3a")
    assert "<system-reminder>" in req.prompt


@pytest.mark.real_agent
@pytest.mark.parametrize(
    ("status", "needle"),
    [(500, "API Error: 500"), (401, "401")],
)
def test_real_claude_api_error(
    claude: str, server: FakeAnthropic, tmp_path: Path, status: int, needle: str
) -> None:
    server.default(Reply(status=status))
    started = time.monotonic()
    proc, doc = run_claude(claude, server, tmp_path, "fail please")
    assert proc.returncode == 1
    assert proc.stderr == ""  # errors go to stdout
    assert doc["is_error"] is True
    assert doc["api_error_status"] == status
    assert needle in doc["result"]
    assert len(server.requests) == 1  # CLAUDE_CODE_MAX_RETRIES=0: no retry
    assert time.monotonic() - started < 60


@pytest.mark.real_agent
def test_real_claude_falls_back_to_non_streaming(
    claude: str, server: FakeAnthropic, tmp_path: Path
) -> None:
    server.add_rule(
        "MARKER-broken",
        [Reply("lost", break_stream=True), Reply("recovered", input_tokens=7, output_tokens=9)],
    )
    proc, doc = run_claude(claude, server, tmp_path, "MARKER-broken")
    assert proc.returncode == 0, proc.stdout
    assert doc["result"] == "recovered" and doc["is_error"] is False
    assert [r.stream for r in server.requests] == [True, False]
    # 2.1.x reports zeros in top-level "usage" after this fallback; modelUsage is right
    (usage,) = doc["modelUsage"].values()
    assert (usage["inputTokens"], usage["outputTokens"]) == (7, 9)


@pytest.mark.real_agent
def test_real_claude_empty_reply_exits_zero(
    claude: str, server: FakeAnthropic, tmp_path: Path
) -> None:
    # The upstream quirk collab must treat as a failed turn: exit 0, empty result.
    server.default(Reply(""))
    proc, doc = run_claude(claude, server, tmp_path, "say nothing")
    assert proc.returncode == 0
    assert doc["is_error"] is False and doc["result"] == ""
    assert len(server.requests) >= 1  # 2.1.x re-asks once with a "no visible output" nudge
