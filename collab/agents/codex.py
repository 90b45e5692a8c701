"""codex (OpenAI Codex CLI): its argv and isolation flags, its ``exec --json`` events,
its login.

Measured with codex-cli 0.171.0 against tests/fakes FakeOpenAI, with an MCP server,
hooks, a skill and AGENTS.md files planted in $CODEX_HOME and the project:
- `exec --json`: JSONL events on stdout; an agent message arrives whole
  (`item.completed`), codex prints no deltas, so the live view shows each message when
  it is complete. `-`: the prompt comes on stdin.
- Always: `-c instructions=…` replaces codex's coding-agent prompt with collab's;
  --sandbox read-only; --ephemeral (no session files); no colour.
- Lean isolates: MCP servers (`-c mcp_servers={}` does NOT clear them: codex merges
  -c tables into config.toml's, so collab disables each server named in
  $CODEX_HOME/config.toml or a .codex/config.toml from the working directory up,
  `-c mcp_servers.NAME={enabled=false,…}`); hooks, even trusted ones (`--disable
  hooks`); plugins, apps (connectors) and memories (`--disable …`); the project's
  AGENTS.md (`-c project_doc_max_bytes=0`); the skills list
  (`skills.include_instructions=false`, `skills.bundled.enabled=false`); exec-policy
  rules (`--ignore-rules`). config.toml's provider, model and login still apply
  (`--ignore-user-config` would drop the provider, so it is not used).
- Lean cannot isolate: the global $CODEX_HOME/AGENTS.md (or AGENTS.override.md) —
  codex loads it even with --ignore-user-config; settings an admin manages
  (managed config, requirements.toml); MCP servers that come from neither file.
- Tools none: no shell, no view_image, goals, sub-agents, user-input or plan tools,
  no web search, no permissions/environment context: the request carries no tools,
  ~2 KB instead of ~41 KB. Tools read: codex has no file tool but its shell, so
  `exec_command` in the read-only sandbox (it can read the working directory;
  writes and network are blocked) and view_image; still no web search or sub-agents.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from collab.agents.claude import CLAUDE_SYSTEM_PROMPT
from collab.agents.decoding import (
    AgentReply,
    JsonLinesDecoder,
    Usage,
    counter,
    error_lines,
    first_lines,
    json_lines,
    no_stream,
    str_at,
    sum_usage,
    value_at,
)
from collab.agents.spec import AgentSetup, AgentSpec, Family

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

SPEC = AgentSpec(
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
)


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


def _mcp_off_argv(setup: AgentSetup, timeout: float, env: Mapping[str, str]) -> list[str]:
    return codex_mcp_overrides(env)


class CodexDecoder(JsonLinesDecoder):
    """``codex-json``: ``codex exec --json`` (codex 0.171): ``thread.started``
    (thread_id), ``turn.started``, ``item.started``/``item.updated``/``item.completed``,
    then ``turn.completed`` (usage) or ``turn.failed`` (error.message). An agent message
    arrives whole, as an ``item.completed`` event whose item has ``type: agent_message``
    and ``text`` (codex prints no deltas); live, later messages of the same turn follow
    after a blank line; the reply is the last one. Top-level ``error`` events are also
    sent for retries ("Reconnecting... 2/5"), and ``error`` *items* are warnings: neither
    fails a turn."""

    kind = "codex-json"

    def __init__(self, limit: int | None = None, stderr_failures: tuple[str, ...] = ()) -> None:
        super().__init__(limit, stderr_failures)
        self._messages = False

    def text_of(self, obj: dict[str, object]) -> str:
        if obj.get("type") != "item.completed":
            return ""
        item = obj.get("item")
        text = value_at(item, "text")
        if value_at(item, "type") != "agent_message" or not isinstance(text, str) or not text:
            return ""
        sep = "\n\n" if self._messages else ""
        self._messages = True
        return sep + text

    def reply(self, exit_code: int, stdout: str, stderr: str) -> AgentReply:
        events = json_lines(stdout)
        if not events:
            return no_stream(exit_code, stdout, stderr)
        messages: list[str] = []
        failures: list[str] = []
        errors: list[str] = []
        usages: list[Usage] = []
        session_id: str | None = None
        for ev in events:
            kind = ev.get("type")
            item = ev.get("item")
            if kind == "thread.started":
                session_id = str_at(ev, "thread_id")
            elif kind == "item.completed" and isinstance(item, dict):
                if item.get("type") == "agent_message" and isinstance(item.get("text"), str):
                    messages.append(str(item["text"]))
            elif kind == "turn.completed":
                usage = _codex_usage(ev.get("usage"))
                if usage is not None:
                    usages.append(usage)
            elif kind == "turn.failed":
                failures.append(str_at(ev, "error", "message") or "turn failed")
            elif kind == "error":
                errors.append(str_at(ev, "message") or "error")
        text = messages[-1].strip() if messages else ""
        base = AgentReply(ok=False, text=text, usage=sum_usage(usages), session_id=session_id)
        if exit_code != 0 or failures:
            msg = first_lines("\n".join(failures or errors[-1:])) or error_lines(stderr)
            msg = msg or f"exit {exit_code}"
            return replace(base, error=msg, auth_failed="status 401" in msg)
        if not text:
            return replace(base, empty=True, error="empty reply")
        return replace(base, ok=True)


def _codex_usage(raw: object) -> Usage | None:
    """codex's ``input_tokens`` include the cached ones; ``Usage`` counts them apart."""
    if not isinstance(raw, dict):
        return None
    n = counter(raw)
    cached = n("cached_input_tokens")
    return Usage(
        input_tokens=max(0, n("input_tokens") - cached),
        output_tokens=n("output_tokens"),
        cache_read_tokens=cached,
        cache_write_tokens=n("cache_write_input_tokens"),
    )


def _stored_login(env: Mapping[str, str]) -> str | None:
    """Where codex's login was found (e.g. "OPENAI_API_KEY is set"), or None."""
    home = Path(env.get("HOME") or Path.home())
    for var in ("OPENAI_API_KEY", "CODEX_API_KEY"):
        if env.get(var):
            return f"{var} is set"
    auth = Path(env.get("CODEX_HOME") or home / ".codex") / "auth.json"
    return f"login in {auth}" if auth.is_file() else None


FAMILY = Family(
    spec=SPEC,
    decoder=CodexDecoder,
    models="openai",
    login=_stored_login,
    placeholders={CODEX_MCP_OFF: _mcp_off_argv},
)
