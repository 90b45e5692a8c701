"""Agents are data: argv building, output interpretation and user-defined agents."""

from __future__ import annotations

import json
from pathlib import Path
from typing import NamedTuple

import pytest

from collab.agents import (
    BUILTIN,
    CLAUDE_SYSTEM_PROMPT,
    AgentSetup,
    AgentSpec,
    ToolSet,
    build_argv,
    build_env,
    claude_settings,
    command_spec,
    load_agents,
)
from collab.agents.catalogue import interpret
from collab.agents.decoding import Usage
from collab.errors import UsageError


def claude_doc(**over: object) -> str:
    doc: dict[str, object] = {
        "type": "result",
        "subtype": "success",
        "is_error": False,
        "result": "hello",
        "session_id": "s1",
        "total_cost_usd": 0.0123,
        "usage": {"input_tokens": 10, "output_tokens": 5, "cache_read_input_tokens": 2},
    }
    doc.update(over)
    return json.dumps(doc)


class InterpretCase(NamedTuple):
    test_id: str
    output: str
    exit_code: int
    stdout: str
    stderr: str
    ok: bool
    empty: bool
    text: str
    error_has: str
    cost: float | None


INTERPRET = [
    InterpretCase(
        "claude-ok", "claude-json", 0, claude_doc(), "", True, False, "hello", "", 0.0123
    ),
    InterpretCase(
        "claude-is-error",
        "claude-json",
        1,
        claude_doc(is_error=True, result="API Error: 529 overloaded", api_error_status=529),
        "",
        False,
        False,
        "API Error: 529 overloaded",
        "529",
        0.0123,
    ),
    InterpretCase(
        "claude-is-error-exit-0",
        "claude-json",
        0,
        claude_doc(is_error=True, result="boom"),
        "",
        False,
        False,
        "boom",
        "boom",
        0.0123,
    ),
    InterpretCase(
        "claude-empty-result",
        "claude-json",
        0,
        claude_doc(result=""),
        "",
        False,
        True,
        "",
        "empty",
        0.0123,
    ),
    InterpretCase("claude-no-output", "claude-json", 0, "", "", False, True, "", "empty", None),
    InterpretCase(
        "claude-not-json",
        "claude-json",
        1,
        "Not logged in · Please run /login",
        "",
        False,
        False,
        "",
        "Not logged in",
        None,
    ),
    InterpretCase(
        "claude-junk-exit-0", "claude-json", 0, "garbage", "", False, False, "", "unreadable", None
    ),
    InterpretCase(
        "claude-json-after-noise",
        "claude-json",
        0,
        "warning: something\n" + claude_doc(),
        "",
        True,
        False,
        "hello",
        "",
        0.0123,
    ),
    InterpretCase(
        "text-ok", "text", 0, "  a reply \n", "noise on stderr", True, False, "a reply", "", None
    ),
    InterpretCase("text-empty", "text", 0, "\n", "", False, True, "", "empty", None),
    InterpretCase(
        "text-error-lines-preferred",
        "text",
        1,
        "",
        "OpenAI Codex v0.171\nworkdir: /x\nmodel: m\nERROR: unexpected status 500",
        False,
        False,
        "",
        "ERROR: unexpected status 500",
        None,
    ),
    InterpretCase(
        "text-nonzero-first-5-lines",
        "text",
        2,
        "",
        "\n".join(f"line {i}" for i in range(1, 9)),
        False,
        False,
        "",
        "line 5",
        None,
    ),
]


@pytest.mark.parametrize(list(InterpretCase._fields), INTERPRET, ids=[c.test_id for c in INTERPRET])
def test_interpret(
    test_id: str,
    output: str,
    exit_code: int,
    stdout: str,
    stderr: str,
    ok: bool,
    empty: bool,
    text: str,
    error_has: str,
    cost: float | None,
) -> None:
    spec = AgentSpec(name="x", argv=("x",), output=output)  # type: ignore[arg-type]
    reply = interpret(spec, exit_code, stdout, stderr)
    assert reply.ok is ok
    assert reply.empty is empty
    assert reply.text == text
    assert reply.cost_usd == cost
    if error_has:
        assert error_has in (reply.error or "")
    if test_id == "text-nonzero-first-5-lines":
        assert "line 6" not in (reply.error or "")


def test_claude_usage_and_model_usage_fallback() -> None:
    spec = BUILTIN["claude"]
    r = interpret(spec, 0, claude_doc(), "")
    assert r.usage == Usage(10, 5, 2, 0)
    zero = {"input_tokens": 0, "output_tokens": 0}
    model_usage = {
        "claude-opus-4-8": {"inputTokens": 7, "outputTokens": 3, "cacheReadInputTokens": 1}
    }
    r = interpret(spec, 0, claude_doc(usage=zero, modelUsage=model_usage), "")
    assert r.usage == Usage(7, 3, 1, 0)


class ArgvCase(NamedTuple):
    test_id: str
    spec: AgentSpec
    model: str | None
    expected: list[str]


P = Path("/tmp/d/r1-A-1.prompt")
CLAUDE_LEAN = [
    "/bin/claude", "-p", "--output-format", "stream-json", "--verbose",
    "--include-partial-messages", "--no-session-persistence",
    "--system-prompt", CLAUDE_SYSTEM_PROMPT,
    "--setting-sources", "user", "--strict-mcp-config", "--disable-slash-commands",
    "--settings", claude_settings("lean", 120.0),
    "--tools", "",
]  # fmt: skip
ARGV = [
    ArgvCase("claude-no-model", BUILTIN["claude"], None, CLAUDE_LEAN),
    ArgvCase(
        "claude-model-one-argument",
        BUILTIN["claude"],
        "opus; rm -rf /",
        [*CLAUDE_LEAN, "--model", "opus; rm -rf /"],
    ),
    ArgvCase(
        "prompt-file",
        AgentSpec(name="c", argv=("c", "-f", "{prompt_file}"), prompt="file"),
        None,
        ["/bin/c", "-f", str(P)],
    ),
    ArgvCase(
        "model-inline-token",
        AgentSpec(name="c", argv=("c", "--model={model}", "{prompt_file}"), prompt="file"),
        "m1",
        ["/bin/c", "--model=m1", str(P)],
    ),
    ArgvCase(
        "model-inline-token-dropped-without-model",
        AgentSpec(name="c", argv=("c", "--model={model}", "{prompt_file}"), prompt="file"),
        None,
        ["/bin/c", str(P)],
    ),
]


@pytest.mark.parametrize(list(ArgvCase._fields), ARGV, ids=[c.test_id for c in ARGV])
def test_build_argv(test_id: str, spec: AgentSpec, model: str | None, expected: list[str]) -> None:
    binary = "/bin/" + spec.argv[0]
    assert build_argv(spec, binary, model, P) == expected


class Setup(NamedTuple):
    test_id: str
    setup: AgentSetup
    tools: ToolSet
    present: tuple[str, ...]
    absent: tuple[str, ...]


SETUPS = [
    Setup("lean-no-tools", "lean", "none",
          ("--strict-mcp-config", "--disable-slash-commands", "--setting-sources"),
          ("Read,Grep,Glob",)),
    Setup("lean-read-tools", "lean", "read", ("--strict-mcp-config", "Read,Grep,Glob"), ()),
    Setup("inherit", "inherit", "none", ("--settings",),
          ("--strict-mcp-config", "--disable-slash-commands", "--setting-sources")),
]  # fmt: skip


@pytest.mark.parametrize("case", SETUPS, ids=[c.test_id for c in SETUPS])
def test_claude_setup_and_tools(case: Setup) -> None:
    argv = build_argv(
        BUILTIN["claude"], "/bin/claude", None, P, setup=case.setup, tools=case.tools, timeout=45
    )
    for flag in case.present:
        assert flag in argv, flag
    for flag in case.absent:
        assert flag not in argv, flag
    tools = argv[argv.index("--tools") + 1]
    assert tools == ("" if case.tools == "none" else "Read,Grep,Glob")
    settings = json.loads(argv[argv.index("--settings") + 1])
    # The CLI's own retries are bounded in every setup, from the turn's timeout.
    assert settings["env"]["CLAUDE_CODE_MAX_RETRIES"] == "2"
    assert settings["env"]["API_TIMEOUT_MS"] == "45000"
    lean = case.setup == "lean"
    assert settings.get("disableAllHooks", False) is lean
    assert ("CLAUDE_CODE_DISABLE_CLAUDE_MDS" in settings["env"]) is lean


def test_needs_model() -> None:
    with pytest.raises(UsageError, match="needs a model"):
        build_argv(BUILTIN["ollama"], "/bin/ollama", None, P)
    assert build_argv(BUILTIN["ollama"], "/bin/ollama", "llama3.2", P) == [
        "/bin/ollama",
        "run",
        "llama3.2",
    ]


def test_env_unsets_nesting_vars() -> None:
    env = build_env(
        BUILTIN["claude"], {"CLAUDECODE": "1", "CLAUDE_CODE_ENTRYPOINT": "cli", "A": "b"}
    )
    assert env == {"A": "b"}


def test_command_spec() -> None:
    spec = command_spec("mycli --in {prompt_file} -m '{model}'")
    assert spec.argv == ("mycli", "--in", "{prompt_file}", "-m", "{model}")
    assert spec.prompt == "file"
    assert command_spec("mycli -q").prompt == "stdin"
    with pytest.raises(UsageError):
        command_spec("")
    with pytest.raises(UsageError):
        command_spec("unbalanced 'quote")


class ConfigCase(NamedTuple):
    test_id: str
    toml: str
    error: str


CONFIGS = [
    ConfigCase("ok", '[agents.x]\nargv = ["x", "-q"]\n', ""),
    ConfigCase("argv-missing", "[agents.x]\noutput = 'text'\n", "argv must be"),
    ConfigCase("argv-not-strings", "[agents.x]\nargv = [1]\n", "argv must be"),
    ConfigCase("bad-output", '[agents.x]\nargv = ["x"]\noutput = "xml"\n', "output must be"),
    ConfigCase(
        "file-without-token", '[agents.x]\nargv = ["x"]\nprompt = "file"\n', "{prompt_file}"
    ),
    ConfigCase("bad-env", '[agents.x]\nargv = ["x"]\nenv = { A = 1 }\n', "env must be"),
    ConfigCase("bad-toml", "[agents.x\n", "cannot read"),
]


@pytest.mark.parametrize(list(ConfigCase._fields), CONFIGS, ids=[c.test_id for c in CONFIGS])
def test_load_agents_config(tmp_path: Path, test_id: str, toml: str, error: str) -> None:
    path = tmp_path / "config.toml"
    path.write_text(toml)
    if not error:
        agents = load_agents(path)
        assert agents["x"].argv == ("x", "-q")
        assert "claude" in agents
        return
    with pytest.raises(UsageError, match=error.replace("{", r"\{").replace("}", r"\}")):
        load_agents(path)


def test_stderr_failure_marks_a_broken_stream() -> None:
    # gemini's text mode: the broken stream's only sign is on stderr (exit 0).
    spec = AgentSpec(name="g", argv=("g",), stderr_failures=BUILTIN["gemini"].stderr_failures)
    r = interpret(spec, 0, "partial answ", "[ERROR] Model stream ended without a finish reason.")
    assert not r.ok
    assert "finish reason" in (r.error or "")
    assert interpret(spec, 0, "full answer", "some warning").ok
