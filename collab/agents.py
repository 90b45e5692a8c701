"""Agents are data: how to call a CLI and how the prompt goes in (the catalogue).

Built-in agents live in ``BUILTIN``; ``$COLLAB_HOME/config.toml`` may add more under
``[agents.NAME]`` (see README). Nothing here runs a process (the runners do), and
what a reply means is ``collab.replies``.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from collab.errors import PrerequisiteError, UsageError
from collab.paths import config_table

PromptVia = Literal["stdin", "file"]
OutputKind = Literal["claude-json", "codex-json", "gemini-json", "text"]
# Whose setup a turn runs with: "lean" isolates it from the user's hooks, MCP servers,
# skills, plugins and memory (provider settings still apply); "inherit" keeps them.
AgentSetup = Literal["lean", "inherit"]
# Which tools the debaters get: none, or read-only ones in the working directory.
ToolSet = Literal["none", "read"]
AGENT_SETUPS: tuple[AgentSetup, ...] = ("lean", "inherit")
TOOL_SETS: tuple[ToolSet, ...] = ("none", "read")

# Variables that make a nested `claude -p` think it runs inside another Claude Code.
CLAUDE_NESTING_VARS = ("CLAUDECODE", "CLAUDE_CODE_ENTRYPOINT")
CLAUDE_LOGIN_HINT = "run `claude` once and log in (/login), or set ANTHROPIC_API_KEY"


@dataclass(frozen=True)
class AgentSpec:
    """One agent CLI. ``argv`` tokens may be ``{prompt_file}`` or ``{model}``."""

    name: str
    argv: tuple[str, ...]
    model_argv: tuple[str, ...] = ()
    prompt: PromptVia = "stdin"
    output: OutputKind = "text"
    env_unset: tuple[str, ...] = ()
    env_set: tuple[tuple[str, str], ...] = ()
    needs_model: bool = False
    install_hint: str = ""
    version_argv: tuple[str, ...] = ("--version",)
    # stderr lines that mean the reply is broken even though the exit code is 0.
    stderr_failures: tuple[str, ...] = ()
    # Output that means the CLI has no usable login: no retry can mend it.
    login_failures: tuple[str, ...] = ()
    login_hint: str = ""
    # Added by the turn's setup and tool set (DESIGN §9); ``{settings}`` becomes the
    # CLI's per-turn settings (see ``claude_settings``).
    lean_argv: tuple[str, ...] = ()
    inherit_argv: tuple[str, ...] = ()
    no_tools_argv: tuple[str, ...] = ()
    read_tools_argv: tuple[str, ...] = ()

    @property
    def binary(self) -> str:
        return self.argv[0]


# collab's own short system prompt for every claude turn (fixed text, never user text):
# it replaces Claude Code's coding-agent prompt; the debate prompt comes on stdin.
CLAUDE_SYSTEM_PROMPT = (
    "You are one voice in a structured debate run by collab, or its neutral judge. "
    "Answer the user's message directly, in the format it asks for."
)
# Retries the CLI may make by itself inside one turn: an API error *response* is then
# reported within the turn instead of after ~3 minutes of the CLI's default 10 retries.
CLAUDE_MAX_RETRIES = 2

# Files handed to agent CLIs by path (system prompt, tool policies): they ship in the package.
AGENT_DATA = Path(__file__).resolve().with_name("agent_data")

# Expands to one `-c mcp_servers.NAME={enabled=false,…}` per server the user's codex
# config files name (see ``codex_mcp_overrides``).
CODEX_MCP_OFF = "{codex_mcp_off}"
# Tools codex offers besides the shell, off for every tool set: web search, goals,
# sub-agents, questions to the user, the plan tool.
CODEX_NO_EXTRA_TOOLS = (
    "-c",
    'web_search="disabled"',
    "--disable",
    "goals",
    "--disable",
    "multi_agent",
    "-c",
    "tools.experimental_request_user_input.enabled=false",
    "-c",
    "tools.update_plan.enabled=false",
)
# What codex 0.171 says when its login is gone: a 401 from the API ("unexpected status
# 401 Unauthorized: …"), a ChatGPT token it cannot refresh, a provider key not set.
CODEX_LOGIN_FAILURES = (
    "401 Unauthorized",
    "Incorrect API key",
    "refresh token",
    "sign in again",
    "codex login",
    "Not logged in",
    "Missing environment variable",
)
CODEX_LOGIN_HINT = (
    "run `codex login` (or `codex login --with-api-key`), or set the API-key variable "
    "your model provider names (env_key in ~/.codex/config.toml)"
)
# What gemini 0.61 says: a 401 ("UNAUTHENTICATED"), the API's answer to a bad key
# ("API key not valid", reason API_KEY_INVALID), no cached Google login in a headless
# run, no key or auth method, a refresh token Google refused.
GEMINI_LOGIN_FAILURES = (
    "UNAUTHENTICATED",
    "API key not valid",
    "API_KEY_INVALID",
    "Manual authorization is required",
    "must specify the GEMINI_API_KEY",
    "Invalid auth method selected",
    "Please set an Auth method",
    "Error authenticating",
    "invalid_grant",
)
GEMINI_LOGIN_HINT = "run `gemini` once and log in, or set GEMINI_API_KEY"

BUILTIN: dict[str, AgentSpec] = {
    # Measured with claude 2.1.197 (REAL_AGENTS.md, "Lean turns"): stream-json for the
    # live view (the last line is the same result object as --output-format json);
    # --tools "" and our system prompt: ~300 input tokens instead of ~19,100;
    # --setting-sources user keeps ~/.claude/settings.json (a gateway's env, apiKeyHelper)
    # but drops project settings and CLAUDE.md; --settings (highest precedence) turns off
    # hooks, output styles, CLAUDE.md/auto memory and bounds the CLI's retries;
    # --strict-mcp-config: no MCP servers; --disable-slash-commands: no skills.
    "claude": AgentSpec(
        name="claude",
        argv=(
            "claude",
            "-p",
            "--output-format",
            "stream-json",
            "--verbose",
            "--include-partial-messages",
            "--no-session-persistence",
            "--system-prompt",
            CLAUDE_SYSTEM_PROMPT,
        ),
        model_argv=("--model", "{model}"),
        output="claude-json",
        env_unset=CLAUDE_NESTING_VARS,
        install_hint="npm install -g @anthropic-ai/claude-code, then run `claude` once to log in",
        login_failures=(
            "Not logged in",
            "Failed to authenticate",
            "authentication_error",
            "OAuth token has expired",
            "Invalid API key",
        ),
        login_hint=CLAUDE_LOGIN_HINT,
        lean_argv=(
            "--setting-sources",
            "user",
            "--strict-mcp-config",
            "--disable-slash-commands",
            "--settings",
            "{settings}",
        ),
        inherit_argv=("--settings", "{settings}"),
        no_tools_argv=("--tools", ""),
        read_tools_argv=("--tools", "Read,Grep,Glob"),
    ),
    # codex — measured with codex-cli 0.171.0 against tests/fakes FakeOpenAI, with an MCP
    # server, hooks, a skill and AGENTS.md files planted in $CODEX_HOME and the project:
    # - `exec --json`: JSONL events on stdout (replies.py, streams.py); an agent message
    #   arrives whole (`item.completed`), codex prints no deltas, so the live view shows
    #   each message when it is complete. `-`: the prompt comes on stdin.
    # - Always: `-c instructions=…` replaces codex's coding-agent prompt with collab's;
    #   --sandbox read-only; --ephemeral (no session files); no colour.
    # - Lean isolates: MCP servers (`-c mcp_servers={}` does NOT clear them: codex merges
    #   -c tables into config.toml's, so collab disables each server named in
    #   $CODEX_HOME/config.toml or a .codex/config.toml from the working directory up,
    #   `-c mcp_servers.NAME={enabled=false,…}`); hooks, even trusted ones (`--disable
    #   hooks`); plugins, apps (connectors) and memories (`--disable …`); the project's
    #   AGENTS.md (`-c project_doc_max_bytes=0`); the skills list
    #   (`skills.include_instructions=false`, `skills.bundled.enabled=false`); exec-policy
    #   rules (`--ignore-rules`). config.toml's provider, model and login still apply
    #   (`--ignore-user-config` would drop the provider, so it is not used).
    # - Lean cannot isolate: the global $CODEX_HOME/AGENTS.md (or AGENTS.override.md) —
    #   codex loads it even with --ignore-user-config; settings an admin manages
    #   (managed config, requirements.toml); MCP servers that come from neither file.
    # - Tools none: no shell, no view_image, goals, sub-agents, user-input or plan tools,
    #   no web search, no permissions/environment context: the request carries no tools,
    #   ~2 KB instead of ~41 KB. Tools read: codex has no file tool but its shell, so
    #   `exec_command` in the read-only sandbox (it can read the working directory;
    #   writes and network are blocked) and view_image; still no web search or sub-agents.
    "codex": AgentSpec(
        name="codex",
        argv=(
            "codex",
            "exec",
            "--json",
            "--skip-git-repo-check",
            "--ephemeral",
            "--sandbox",
            "read-only",
            "--color",
            "never",
            "-c",
            "instructions=" + json.dumps(CLAUDE_SYSTEM_PROMPT),
            "-",
        ),
        model_argv=("-m", "{model}"),
        output="codex-json",
        install_hint="npm install -g @openai/codex",
        login_failures=CODEX_LOGIN_FAILURES,
        login_hint=CODEX_LOGIN_HINT,
        lean_argv=(
            CODEX_MCP_OFF,
            "--disable",
            "hooks",
            "--disable",
            "plugins",
            "--disable",
            "apps",
            "--disable",
            "memories",
            "-c",
            "project_doc_max_bytes=0",
            "-c",
            "skills.include_instructions=false",
            "-c",
            "skills.bundled.enabled=false",
            "--ignore-rules",
        ),
        no_tools_argv=(
            *CODEX_NO_EXTRA_TOOLS,
            "--disable",
            "shell_tool",
            "--disable",
            "unified_exec",
            "--disable",
            "view_image",
            "-c",
            "include_permissions_instructions=false",
            "-c",
            "include_environment_context=false",
        ),
        read_tools_argv=CODEX_NO_EXTRA_TOOLS,
    ),
    # gemini — measured with gemini 0.61.0 against tests/fakes FakeGemini, with MCP
    # servers (user, project and extension), an extension, hooks, a skill and GEMINI.md
    # files planted in ~/.gemini and the project:
    # - `-p ""`: headless, the whole prompt from stdin (stdin first, then the empty -p
    #   text). `-o stream-json`: JSONL events; assistant text arrives as `message` deltas
    #   while the model writes, the last line is the `result` (status, token stats).
    #   No relaunch: one node process instead of two (~0.4 s less a turn, and SIGTERM
    #   reaches the process that does the work; the relauncher ignores it).
    # - Always: GEMINI_SYSTEM_MD replaces gemini's ~22 KB coding-agent system prompt (and
    #   its skills list) with collab's; a tool policy (--policy) decides the tools.
    # - Lean isolates: extensions, with their MCP servers and context files (`-e none`);
    #   MCP servers from any settings file (`--allowed-mcp-server-names` naming none).
    # - Lean cannot isolate (gemini has no flag for them, and its only settings override,
    #   a system settings file, must be root-owned): hooks from settings.json (user and
    #   project) still run; GEMINI.md context (~/.gemini/GEMINI.md, and the project's up to
    #   its git root) still reaches the prompt, with the working directory's file tree;
    #   the project's .gemini/settings.json applies (headless gemini runs only in a trusted
    #   folder) and .env files are read.
    # - Tools none: a deny-all policy, the request carries no tools (~2 KB instead of
    #   ~33 KB with the system prompt). Tools read: read_file, read_many_files,
    #   list_directory, glob and grep_search only (no shell, edits, web or sub-agents).
    "gemini": AgentSpec(
        name="gemini",
        argv=("gemini", "-p", "", "-o", "stream-json", "--approval-mode", "default"),
        model_argv=("-m", "{model}"),
        output="gemini-json",
        env_set=(
            ("GEMINI_CLI_NO_RELAUNCH", "true"),
            ("GEMINI_SYSTEM_MD", str(AGENT_DATA / "gemini-system.md")),
        ),
        install_hint="npm install -g @google/gemini-cli",
        # A broken stream still exits 0 (its error is in the stream; in text mode on stderr).
        stderr_failures=("Model stream ended without a finish reason",),
        login_failures=GEMINI_LOGIN_FAILURES,
        login_hint=GEMINI_LOGIN_HINT,
        lean_argv=("-e", "none", "--allowed-mcp-server-names", "collab-lean-no-mcp-servers"),
        no_tools_argv=("--policy", str(AGENT_DATA / "gemini-no-tools.toml")),
        read_tools_argv=("--policy", str(AGENT_DATA / "gemini-read-tools.toml")),
    ),
    "ollama": AgentSpec(
        name="ollama",
        argv=("ollama", "run", "{model}"),
        needs_model=True,
        install_hint="install ollama and pull a model (ollama pull llama3.2)",
    ),
    # llm (simonw/llm) — already lean: no tools unless -T/--functions, no system prompt
    # unless -s, no templates or fragments unless asked, nothing from the project.
    # Cannot isolate: plugins (a model may come from one), the default model's saved
    # options and aliases. Tools read: llm ships no file-reading tool, so none.
    "llm": AgentSpec(
        name="llm",
        argv=("llm", "prompt", "--no-log"),
        model_argv=("-m", "{model}"),
        install_hint="pip install llm (or pip install 'collab[local]' for an offline model)",
    ),
}


def load_agents(config_path: Path | None = None) -> dict[str, AgentSpec]:
    """Built-ins plus ``[agents.NAME]`` tables from the user's config.toml."""
    agents = dict(BUILTIN)
    path, table = config_table("agents", config_path)
    for name, raw in table.items():
        agents[name] = _spec_from_toml(path, name, raw)
    return agents


def _spec_from_toml(path: Path, name: str, raw: object) -> AgentSpec:
    where = f"{path}: [agents.{name}]"
    if not isinstance(raw, dict):
        raise UsageError(f"{where} must be a table")
    argv = raw.get("argv")
    if not _str_list(argv) or not argv:
        raise UsageError(f"{where}: argv must be a non-empty list of strings")
    model_argv = raw.get("model_argv", [])
    if not _str_list(model_argv):
        raise UsageError(f"{where}: model_argv must be a list of strings")
    prompt = raw.get("prompt", "file" if "{prompt_file}" in argv else "stdin")
    if prompt not in ("stdin", "file"):
        raise UsageError(f"{where}: prompt must be 'stdin' or 'file'")
    if prompt == "file" and "{prompt_file}" not in argv:
        raise UsageError(f"{where}: prompt = 'file' needs a '{{prompt_file}}' item in argv")
    output = raw.get("output", "text")
    if output not in ("claude-json", "text"):
        raise UsageError(f"{where}: output must be 'claude-json' or 'text'")
    env = raw.get("env", {})
    if not isinstance(env, dict) or not all(isinstance(v, str) for v in env.values()):
        raise UsageError(f"{where}: env must be a table of strings")
    unset = raw.get("env_unset", [])
    if not _str_list(unset):
        raise UsageError(f"{where}: env_unset must be a list of strings")
    return AgentSpec(
        name=name,
        argv=tuple(argv),
        model_argv=tuple(model_argv),
        prompt=prompt,
        output=output,
        env_unset=tuple(unset),
        env_set=tuple(sorted(env.items())),
        needs_model=bool(raw.get("needs_model", False)),
        install_hint=str(raw.get("install_hint", "")),
    )


def _str_list(v: object) -> bool:
    return isinstance(v, list) and all(isinstance(x, str) for x in v)


def command_spec(template: str) -> AgentSpec:
    """The ``command`` agent: a user argv template, split like a shell would, never run by one."""
    try:
        argv = tuple(shlex.split(template))
    except ValueError as exc:
        raise UsageError(f"--agent-command: {exc}") from None
    if not argv:
        raise UsageError("--agent-command is empty")
    prompt: PromptVia = "file" if any("{prompt_file}" in a for a in argv) else "stdin"
    return AgentSpec(name="command", argv=argv, prompt=prompt)


def spec_for(agent: str, command: str | None, agents: Mapping[str, AgentSpec]) -> AgentSpec:
    """The spec of one seat: a named agent, or the user's ``command`` template."""
    if agent == "command":
        if not command:
            raise UsageError("the command agent needs --agent-command")
        return command_spec(command)
    return get_agent(agent, agents)


def get_agent(name: str, agents: Mapping[str, AgentSpec]) -> AgentSpec:
    try:
        return agents[name]
    except KeyError:
        valid = ", ".join(sorted(agents))
        raise UsageError(f"unknown agent '{name}'; choose one of: {valid}") from None


def resolve_binary(spec: AgentSpec, path: str | None = None) -> str:
    """Absolute path of the agent's executable, or a PrerequisiteError saying how to get it."""
    override = os.environ.get(f"COLLAB_{spec.name.upper().replace('-', '_')}_BIN")
    candidate = override or spec.binary
    found = shutil.which(candidate, path=path)
    if not found:
        hint = spec.install_hint or "install it or fix PATH"
        raise PrerequisiteError(f"agent CLI '{candidate}' not found on PATH", hint=hint)
    return os.path.abspath(found)


def claude_settings(setup: AgentSetup, timeout: float) -> str:
    """The per-turn ``--settings`` JSON: flag settings outrank the user's settings.json, so
    its env cannot lift the retry bound; lean turns also drop hooks, styles and memory."""
    env = {
        "CLAUDE_CODE_MAX_RETRIES": str(CLAUDE_MAX_RETRIES),
        # Per request: an answer that does not start within the turn is a timeout anyway.
        "API_TIMEOUT_MS": str(max(1000, int(timeout * 1000))),
    }
    settings: dict[str, object] = {"env": env}
    if setup == "lean":
        env["CLAUDE_CODE_DISABLE_CLAUDE_MDS"] = "1"
        env["CLAUDE_CODE_DISABLE_AUTO_MEMORY"] = "1"
        settings["disableAllHooks"] = True
        settings["outputStyle"] = "default"
    return json.dumps(settings, sort_keys=True, separators=(",", ":"))


# An MCP server name codex accepts (and one a dotted -c path can address).
_CODEX_MCP_NAME = re.compile(r"[A-Za-z0-9_-]+")


def codex_mcp_overrides(env: Mapping[str, str], cwd: Path | None = None) -> list[str]:
    """``-c`` overrides that disable every MCP server in the user's codex config files.

    codex merges ``-c mcp_servers={}`` into config.toml's table instead of replacing it,
    so each server is disabled by name. The files read: ``$CODEX_HOME/config.toml`` and
    each ``.codex/config.toml`` from ``cwd`` up (codex loads those only for a trusted
    project). A server that is not defined in a layer codex loads would have no
    transport, and codex refuses such a config, so each override names one: a URL for a
    URL server, else a command — never run, the server is disabled.
    """
    home = env.get("CODEX_HOME") or str(Path(env.get("HOME") or Path.home()) / ".codex")
    files = [Path(home) / "config.toml"]
    here = (cwd or Path.cwd()).resolve()
    files += [d / ".codex" / "config.toml" for d in (here, *here.parents)]
    remote: dict[str, bool] = {}
    for path in files:
        for name, entry in _codex_mcp_servers(path).items():
            if _CODEX_MCP_NAME.fullmatch(name):
                remote[name] = remote.get(name, False) or "url" in entry
    out: list[str] = []
    for name in sorted(remote):
        transport = 'url="http://127.0.0.1:9/"' if remote[name] else 'command="true"'
        out += ["-c", f"mcp_servers.{name}={{enabled=false,{transport}}}"]
    return out


def _codex_mcp_servers(path: Path) -> dict[str, dict[str, object]]:
    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return {}
    servers = doc.get("mcp_servers")
    if not isinstance(servers, dict):
        return {}
    return {k: v for k, v in servers.items() if isinstance(v, dict)}


def build_argv(
    spec: AgentSpec,
    binary: str,
    model: str | None,
    prompt_file: Path,
    *,
    setup: AgentSetup = "lean",
    tools: ToolSet = "none",
    timeout: float = 120.0,
    env: Mapping[str, str] | None = None,
) -> list[str]:
    """The argv list; user text (model, path) only ever becomes one whole argument.
    ``env`` is the environment the agent runs with (default: ours)."""
    if spec.needs_model and not model:
        raise UsageError(f"agent '{spec.name}' needs a model: pass --model")
    tokens = list(spec.argv[1:])
    tokens += spec.lean_argv if setup == "lean" else spec.inherit_argv
    tokens += spec.no_tools_argv if tools == "none" else spec.read_tools_argv
    if model and spec.model_argv and "{model}" not in " ".join(tokens):
        tokens += list(spec.model_argv)
    out = [binary]
    for tok in tokens:
        if "{model}" in tok and not model:
            continue
        if tok == "{settings}":
            out.append(claude_settings(setup, timeout))
            continue
        if tok == CODEX_MCP_OFF:
            out += codex_mcp_overrides(os.environ if env is None else env)
            continue
        out.append(tok.replace("{prompt_file}", str(prompt_file)).replace("{model}", model or ""))
    return out


def build_env(spec: AgentSpec, base: Mapping[str, str]) -> dict[str, str]:
    env = {k: v for k, v in base.items() if k not in spec.env_unset}
    env.update(dict(spec.env_set))
    return env
