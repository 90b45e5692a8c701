"""gemini (Gemini CLI): its argv and isolation flags, its stream-json events, its login.

Measured with gemini 0.61.0 against tests/fakes FakeGemini, with MCP servers (user,
project and extension), an extension, hooks, a skill and GEMINI.md files planted in
~/.gemini and the project:
- `-p ""`: headless, the whole prompt from stdin (stdin first, then the empty -p
  text). `-o stream-json`: JSONL events; assistant text arrives as `message` deltas
  while the model writes, the last line is the `result` (status, token stats).
  No relaunch: one node process instead of two (~0.4 s less a turn, and SIGTERM
  reaches the process that does the work; the relauncher ignores it).
- Always: GEMINI_SYSTEM_MD replaces gemini's ~22 KB coding-agent system prompt (and
  its skills list) with collab's; a tool policy (--policy) decides the tools;
  `--approval-mode default`, whatever default settings.json names (yolo, plan).
- Lean isolates: extensions, with their MCP servers and context files (`-e none`);
  MCP servers from any settings file (`--allowed-mcp-server-names` naming none).
- Lean cannot isolate (gemini has no flag for them, and its only settings override,
  a system settings file, must be root-owned): hooks from settings.json (user and
  project) still run; GEMINI.md context (~/.gemini/GEMINI.md, and the project's up to
  its git root) still reaches the prompt, with the working directory's file tree;
  the project's .gemini/settings.json applies (headless gemini runs only in a trusted
  folder) and .env files are read.
- Tools none: a deny-all policy, the request carries no tools (~2 KB instead of
  ~33 KB with the system prompt). Tools read: read_file, list_directory, glob and
  grep_search (read_many_files where the CLI has it) — no shell, edits, web access,
  sub-agents, skills or MCP tools.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

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
)
from collab.agents.spec import AgentSpec, Family

# Files handed to gemini by path (system prompt, tool policies): they ship in the package.
AGENT_DATA = Path(__file__).resolve().with_name("agent_data")

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
# gemini's exit code for FatalAuthenticationError (no usable login, before any request).
GEMINI_AUTH_EXIT = 41

SPEC = AgentSpec(
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
)


class GeminiDecoder(JsonLinesDecoder):
    """``gemini-json``: ``gemini -o stream-json`` (gemini 0.61): ``init`` (session_id),
    ``message`` (role user: the prompt; role assistant: text deltas, ``delta: true``),
    ``tool_use``/``tool_result``, ``error`` (severity warning or error) and last
    ``result`` (status success|error, error.message for an API error, stats). Live, text
    after a ``tool_use`` starts a new paragraph. The reply is the assistant text after
    the last tool call (else the text before it), as gemini's own json output picks it.
    A broken or empty stream still exits 0, with ``status: error``: a failed turn."""

    kind = "gemini-json"

    def __init__(self, limit: int | None = None, stderr_failures: tuple[str, ...] = ()) -> None:
        super().__init__(limit, stderr_failures)
        self._spoke = False
        self._tool = False

    def text_of(self, obj: dict[str, object]) -> str:
        kind = obj.get("type")
        if kind == "tool_use":
            self._tool = True
            return ""
        if kind != "message" or obj.get("role") != "assistant":
            return ""
        content = obj.get("content")
        if not isinstance(content, str) or not content:
            return ""
        sep = "\n\n" if self._tool and self._spoke else ""
        self._spoke, self._tool = True, False
        return sep + content

    def reply(self, exit_code: int, stdout: str, stderr: str) -> AgentReply:
        events = json_lines(stdout)
        if not events:
            reply = no_stream(exit_code, stdout, stderr)
            return replace(reply, auth_failed=exit_code == GEMINI_AUTH_EXIT)
        pieces: list[str] = []
        before_tools = ""
        errors: list[str] = []
        result: dict[str, object] | None = None
        session_id: str | None = None
        for ev in events:
            kind = ev.get("type")
            if kind == "init":
                session_id = str_at(ev, "session_id")
            elif kind == "message" and ev.get("role") == "assistant":
                pieces.append(str_at(ev, "content") or "")
            elif kind == "tool_use":
                before_tools = "".join(pieces) or before_tools
                pieces = []
            elif kind == "error" and ev.get("severity") != "warning":
                errors.append(str_at(ev, "message") or "error")
            elif kind == "result":
                result = ev
        text = ("".join(pieces) or before_tools).strip()
        stats = result.get("stats") if result is not None else None
        extra = (
            {k: stats[k] for k in ("duration_ms", "tool_calls") if k in stats}
            if isinstance(stats, dict)
            else {}
        )
        base = AgentReply(
            ok=False, text=text, usage=_gemini_usage(stats), session_id=session_id, extra=extra
        )
        api_error = str_at(result, "error", "message") if result is not None else None
        finished = exit_code == 0 and result is not None
        broken = any(m in stderr for m in self.stderr_failures)
        if finished and result is not None and result.get("status") == "success" and not broken:
            if text:
                return replace(base, ok=True)
            return replace(base, empty=True, error="empty reply")
        msg = first_lines("\n".join(m for m in (api_error, *errors) if m)) or error_lines(stderr)
        if not msg:
            msg = f"exit {exit_code}" if exit_code != 0 else "stream ended without a result"
        # gemini's own message for a reply with no text ("The model returned an empty
        # response…") is a "no response", like an empty reply.
        if (
            finished
            and not text
            and api_error is None
            and all("empty response" in m for m in errors)
        ):
            return replace(base, empty=True, error=msg if errors else "empty reply")
        auth = exit_code == GEMINI_AUTH_EXIT or "UNAUTHENTICATED" in msg
        return replace(base, error=msg, auth_failed=auth)


def _gemini_usage(raw: object) -> Usage | None:
    """``input`` is the uncached part of ``input_tokens``; ``cached`` the rest."""
    if not isinstance(raw, dict):
        return None
    n = counter(raw)
    cached = n("cached")
    uncached = n("input") if "input" in raw else max(0, n("input_tokens") - cached)
    return Usage(
        input_tokens=uncached,
        output_tokens=n("output_tokens"),
        cache_read_tokens=cached,
    )


def _stored_login(env: Mapping[str, str]) -> str | None:
    """Where gemini's login was found (e.g. "GEMINI_API_KEY is set"), or None."""
    home = Path(env.get("HOME") or Path.home())
    for var in ("GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI"):
        if env.get(var):
            return f"{var} is set"
    creds = home / ".gemini" / "oauth_creds.json"
    return f"login in {creds}" if creds.is_file() else None


FAMILY = Family(spec=SPEC, decoder=GeminiDecoder, models="google", login=_stored_login)
