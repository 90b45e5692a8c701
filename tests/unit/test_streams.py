"""The agents' event streams: live text (``Decoder.feed``) and the reply (``interpret``).

``stream_records/*.jsonl`` are the stdout of real CLI runs, recorded verbatim: each
built-in spec's argv (``build_argv``, lean, no tools) run against the fakes in
tests/fakes — claude 2.1.197 (FakeAnthropic), codex-cli 0.171.0 (FakeOpenAI), gemini
0.61.0 (FakeGemini) — with a reply streamed one word at a time (``*-ok``), an HTTP error
(``*-e401``, ``*-e500``; ``gemini-badkey`` is the 400 the real Gemini API gives a bad
key), an empty reply, a stream cut before its last event (``*-trunc``) and one tool call
between two messages (``*-tool-read``, ``--tools read``). The exit codes and stderr
lines in the tables below are the ones those runs had.

Each record is fed to its decoder as the runners do: bytes split anywhere (even inside
a UTF-8 character), decoded incrementally, in chunks of every size.
"""

from __future__ import annotations

import codecs
import itertools
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import pytest

from collab.agents import BUILTIN, AgentSpec
from collab.agents.catalogue import decoder_for, interpret
from collab.agents.decoding import Usage
from collab.text import cut_marker

RECORDS = Path(__file__).with_name("stream_records")
TEXT = 'Café ünïcödé reply — with `code`.\n\nSecond paragraph: 2 > 1 & "quotes".'
TOOL_TEXT = "Let me read the notes.\n\nFinal answer after reading."
OUTPUT = {"claude": "claude-json", "codex": "codex-json", "gemini": "gemini-json"}


def record(name: str) -> str:
    return (RECORDS / f"{name}.jsonl").read_text(encoding="utf-8")


def byte_chunks(data: bytes, sizes: Iterator[int]) -> Iterator[str]:
    """``data`` cut into chunks of the given sizes, decoded as ``OutputTail`` does."""
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    at = 0
    while at < len(data):
        size = next(sizes)
        yield decoder.decode(data[at : at + size])
        at += size
    yield decoder.decode(b"", final=True)


def splits(data: bytes) -> Iterator[tuple[str, list[str]]]:
    """The ways a test cuts a record: whole, every byte, line by line, random sizes."""
    yield "whole", [data.decode()]
    yield "bytes-1", list(byte_chunks(data, itertools.repeat(1)))
    yield "lines", data.decode().splitlines(keepends=True)
    for seed in range(5):
        rng = random.Random(seed)
        sizes = (rng.randint(1, 97) for _ in itertools.count())
        yield f"random-{seed}", list(byte_chunks(data, sizes))


class Live(NamedTuple):
    record: str
    text: str  # all the live text the record yields
    why: str


LIVE = [
    Live("claude-ok", TEXT, "text_delta events; the whole assistant message after them is skipped"),
    Live("claude-e401", "Invalid API key · Fix external API key",
         "no delta came: the CLI's synthetic assistant message is shown"),
    Live("codex-ok", TEXT, "item.completed agent_message, whole"),
    Live("codex-tool-read", TOOL_TEXT, "two agent messages around a tool call, a blank line apart"),
    Live("codex-e401", "", "turn.failed and error events are not reply text"),
    Live("codex-empty", "", "an empty agent message adds nothing"),
    Live("gemini-ok", TEXT, "assistant message deltas; the user message (the prompt) is skipped"),
    Live("gemini-tool-read", TOOL_TEXT, "text after a tool_use starts a new paragraph"),
    Live("gemini-trunc", "partial answer", "the text written before the stream broke"),
    Live("gemini-empty", "", "an error event only"),
    Live("gemini-e401", "", "a result event only"),
]  # fmt: skip


@pytest.mark.parametrize("case", LIVE, ids=[c.record for c in LIVE])
def test_decoder_yields_the_live_text_however_stdout_is_cut(case: Live) -> None:
    data = record(case.record).encode("utf-8")
    kind = OUTPUT[case.record.split("-")[0]]
    for how, chunks in splits(data):
        decoder = decoder_for(kind)
        assert "".join(decoder.feed(c) for c in chunks) == case.text, (how, case.why)


@pytest.mark.parametrize("name", ["claude-ok", "gemini-ok"])
def test_text_appears_as_it_is_written(name: str) -> None:
    """Each delta line adds its words at once: nothing waits for the end of the reply."""
    decoder = decoder_for(OUTPUT[name.split("-")[0]])
    shown = ""
    grew = 0
    for line in record(name).splitlines(keepends=True):
        added = decoder.feed(line)
        if '"delta"' in line and ("text_delta" in line or '"assistant"' in line):
            assert added, line
            grew += 1
        shown += added
    assert shown == TEXT
    assert grew == 13  # one event per word (the fakes' word_delay)


def test_codex_message_appears_when_complete() -> None:
    """codex prints no deltas: a message is shown the moment its item.completed arrives."""
    decoder = decoder_for("codex-json")
    lines = record("codex-tool-read").splitlines(keepends=True)
    seen = [decoder.feed(line) for line in lines]
    assert [s for s in seen if s] == ["Let me read the notes.", "\n\nFinal answer after reading."]
    assert seen.index("Let me read the notes.") == 3  # before the turn ended


@pytest.mark.parametrize("name", ["claude-ok", "codex-ok", "gemini-ok"])
def test_decoder_stops_at_the_limit(name: str) -> None:
    decoder = decoder_for(OUTPUT[name.split("-")[0]], limit=10)
    out = "".join(decoder.feed(line) for line in record(name).splitlines(keepends=True))
    assert out == TEXT[:10] + cut_marker(None)


def test_text_decoder_passes_stdout_through() -> None:
    data = "plain ünïcödé output\nline two".encode()
    for _how, chunks in splits(data):
        decoder = decoder_for("text", limit=None)
        assert "".join(decoder.feed(c) for c in chunks) == data.decode()


def test_decoders_skip_what_is_not_an_event() -> None:
    noise = 'Reading additional input from stdin...\n{"half": \n[1, 2]\n"str"\n'
    for kind in OUTPUT.values():
        assert decoder_for(kind).feed(noise) == ""


# -- interpret: the reply, usage and errors read from the finished stream ---------------------


class Case(NamedTuple):
    test_id: str
    agent: str
    stdout: str  # a record's name, or literal JSON lines
    exit_code: int
    stderr: str
    ok: bool
    text: str
    error_has: str = ""
    empty: bool = False
    auth_failed: bool = False
    login: bool = False  # the error matches the spec's login_failures (the run stops)
    usage: Usage | None = None


def lines(*events: dict[str, object]) -> str:
    return "".join(json.dumps(e) + "\n" for e in events)


G_INIT = {"type": "init", "session_id": "g-1", "model": "m"}
G_STATS = {"input_tokens": 900, "output_tokens": 40, "cached": 300, "input": 600,
           "duration_ms": 5, "tool_calls": 0}  # fmt: skip
C_START = {"type": "thread.started", "thread_id": "t-1"}
C_DONE = {"type": "turn.completed", "usage": {"input_tokens": 900, "cached_input_tokens": 300,
          "cache_write_input_tokens": 7, "output_tokens": 40}}  # fmt: skip
C_MSG = {"type": "item.completed", "item": {"id": "item_1", "type": "agent_message", "text": "hi"}}

CASES = [
    # codex exec --json
    Case("codex-ok", "codex", "codex-ok", 0, "", True, TEXT, usage=Usage(1234, 56)),
    Case("codex-last-message-is-the-reply", "codex", "codex-tool-read", 0, "", True,
         "Final answer after reading.", usage=Usage(200, 100)),
    Case("codex-401", "codex", "codex-e401", 1, "", False, "", "401 Unauthorized",
         auth_failed=True, login=True),
    Case("codex-500", "codex", "codex-e500", 1, "", False, "", "high demand"),
    Case("codex-empty", "codex", "codex-empty", 0, "", False, "", "empty reply", empty=True,
         usage=Usage(100, 50)),
    Case("codex-broken-stream", "codex", "codex-trunc", 1, "", False, "", "stream disconnected"),
    Case("codex-cached-tokens-apart", "codex", lines(C_START, C_MSG, C_DONE), 0, "", True, "hi",
         usage=Usage(600, 40, 300, 7)),
    Case("codex-retry-error-is-not-a-failure", "codex",
         lines(C_START, {"type": "error", "message": "Reconnecting... 2/5 (timeout)"}, C_MSG,
               C_DONE), 0, "", True, "hi", usage=Usage(600, 40, 300, 7)),
    Case("codex-missing-key", "codex",
         lines(C_START, {"type": "turn.started"},
               {"type": "error", "message": "Missing environment variable: `STUB_API_KEY`."},
               {"type": "turn.failed",
                "error": {"message": "Missing environment variable: `STUB_API_KEY`."}}),
         1, "", False, "", "STUB_API_KEY", login=True),
    Case("codex-config-error-before-stream", "codex", "", 1,
         "WARNING: proceeding\nError loading config.toml: invalid transport\nin `mcp_servers.x`",
         False, "", "invalid transport"),
    Case("codex-nothing-at-all", "codex", "", 0, "", False, "", "empty reply", empty=True),
    Case("codex-not-json", "codex", "hello\n", 0, "", False, "", "unreadable JSON"),
    # gemini -o stream-json
    Case("gemini-ok", "gemini", "gemini-ok", 0, "", True, TEXT, usage=Usage(1234, 56)),
    Case("gemini-text-after-the-last-tool", "gemini", "gemini-tool-read", 0, "", True,
         "Final answer after reading.", usage=Usage(200, 100)),
    Case("gemini-401", "gemini", "gemini-e401", 145, "", False, "", "UNAUTHENTICATED",
         auth_failed=True, login=True),
    Case("gemini-bad-key", "gemini", "gemini-badkey", 144, "", False, "", "API key not valid",
         login=True),
    Case("gemini-500", "gemini", "gemini-e500", 244, "Attempt 1 failed: …", False, "",
         '"code":500'),
    Case("gemini-empty", "gemini", "gemini-empty", 0, "", False, "", "empty response",
         empty=True, usage=Usage(100, 50)),
    Case("gemini-broken-stream", "gemini", "gemini-trunc", 0, "", False, "partial answer",
         "without a finish reason", usage=Usage(100, 0)),
    Case("gemini-cached-tokens-apart", "gemini",
         lines(G_INIT, {"type": "message", "role": "assistant", "content": "hi", "delta": True},
               {"type": "result", "status": "success", "stats": G_STATS}),
         0, "", True, "hi", usage=Usage(600, 40, 300)),
    Case("gemini-warning-is-not-a-failure", "gemini",
         lines(G_INIT, {"type": "error", "severity": "warning", "message": "Loop detected"},
               {"type": "message", "role": "assistant", "content": "hi", "delta": True},
               {"type": "result", "status": "success", "stats": G_STATS}),
         0, "", True, "hi", usage=Usage(600, 40, 300)),
    Case("gemini-no-result-event", "gemini",
         lines(G_INIT, {"type": "message", "role": "assistant", "content": "hal", "delta": True}),
         0, "", False, "hal", "without a result"),
    Case("gemini-stderr-failure", "gemini",
         lines(G_INIT, {"type": "message", "role": "assistant", "content": "hi", "delta": True},
               {"type": "result", "status": "success", "stats": G_STATS}),
         0, "[ERROR] Model stream ended without a finish reason.", False, "hi", "finish reason",
         usage=Usage(600, 40, 300)),
    Case("gemini-no-key", "gemini", "", 41,
         "When using Gemini API, you must specify the GEMINI_API_KEY environment variable.\n"
         "Update your environment and try again (no reload needed if using .env)!",
         False, "", "GEMINI_API_KEY", auth_failed=True, login=True),
    Case("gemini-no-login-headless", "gemini", "", 41,
         "Error authenticating: FatalAuthenticationError: Manual authorization is required but "
         "the current session is non-interactive.\n    at initOauthClient (file:///x.js:1:1)",
         False, "", "Manual authorization", auth_failed=True, login=True),
    Case("gemini-untrusted-folder", "gemini", "", 55,
         "Gemini CLI is not running in a trusted directory. To proceed, either use "
         "`--skip-trust`, set the `GEMINI_CLI_TRUST_WORKSPACE=true` environment variable",
         False, "", "trusted directory"),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=[c.test_id for c in CASES])
def test_interpret_stream(case: Case) -> None:
    spec = BUILTIN[case.agent]
    stdout = case.stdout if "\n" in case.stdout or not case.stdout else record(case.stdout)
    reply = interpret(spec, case.exit_code, stdout, case.stderr)
    assert reply.ok is case.ok, reply
    assert reply.text == case.text
    assert reply.empty is case.empty
    assert reply.auth_failed is case.auth_failed
    assert (reply.error is None) is case.ok
    assert case.error_has in (reply.error or ""), reply.error
    login = any(m in (reply.error or "") for m in spec.login_failures)
    assert login is case.login, reply.error
    if case.usage is not None:
        assert reply.usage == case.usage
    assert reply.cost_usd is None  # neither CLI reports a price


def test_interpret_keeps_the_session_and_stats() -> None:
    codex = interpret(BUILTIN["codex"], 0, record("codex-ok"), "")
    assert codex.session_id == "01a230de-7bc8-72a0-9425-1b1687780957"
    gemini = interpret(BUILTIN["gemini"], 0, record("gemini-tool-read"), "")
    assert gemini.session_id == "796a266e-5600-4c2d-8c5c-5450c5acf25d"
    assert gemini.extra == {"duration_ms": 666, "tool_calls": 1}


def test_claude_stream_reads_the_result_event() -> None:
    """The claude records go through the lead's reader unchanged: the last line is the
    same result object as --output-format json."""
    ok = interpret(BUILTIN["claude"], 0, record("claude-ok"), "")
    assert ok.ok and ok.text == TEXT
    assert ok.usage is not None and ok.usage.input_tokens == 1234
    failed = interpret(BUILTIN["claude"], 1, record("claude-e401"), "")
    assert not failed.ok and failed.auth_failed


def test_output_kinds_of_the_builtins() -> None:
    kinds = {name: spec.output for name, spec in BUILTIN.items()}
    assert kinds["codex"] == "codex-json" and kinds["gemini"] == "gemini-json"
    custom = AgentSpec(name="x", argv=("x",), output="codex-json")
    assert interpret(custom, 0, record("codex-ok"), "").text == TEXT
