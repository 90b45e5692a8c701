"""claude (Claude Code): its argv and isolation flags, its stream-json output, its login.

Measured with claude 2.1.197 against tests/fakes FakeAnthropic (tests/real/
test_lean_turns.py): stream-json for the live view (the last line is the same result object as
--output-format json); --tools "" and our system prompt: ~300 input tokens instead of
~19,100; --setting-sources user keeps ~/.claude/settings.json (a gateway's env,
apiKeyHelper) but drops project settings and CLAUDE.md; --settings (highest precedence)
turns off hooks, output styles, CLAUDE.md/auto memory and bounds the CLI's retries;
--strict-mcp-config: no MCP servers; --disable-slash-commands: no skills.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

from collab.agents.decoding import AgentReply, JsonLinesDecoder, Usage, first_lines, value_at
from collab.agents.spec import AgentSetup, AgentSpec, Family

# Variables that make a nested `claude -p` think it runs inside another Claude Code.
CLAUDE_NESTING_VARS = ("CLAUDECODE", "CLAUDE_CODE_ENTRYPOINT")
CLAUDE_LOGIN_HINT = "run `claude` once and log in (/login), or set ANTHROPIC_API_KEY"

# collab's own short system prompt for every claude turn (fixed text, never user text):
# it replaces Claude Code's coding-agent prompt; the debate prompt comes on stdin.
CLAUDE_SYSTEM_PROMPT = (
    "You are one voice in a structured debate run by collab, or its neutral judge. "
    "Answer the user's message directly, in the format it asks for."
)
# Retries the CLI may make by itself inside one turn: an API error *response* is then
# reported within the turn instead of after ~3 minutes of the CLI's default 10 retries.
CLAUDE_MAX_RETRIES = 2

# Becomes the turn's ``--settings`` JSON (``claude_settings``).
SETTINGS = "{settings}"

SPEC = AgentSpec(
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
        SETTINGS,
    ),
    inherit_argv=("--settings", SETTINGS),
    no_tools_argv=("--tools", ""),
    read_tools_argv=("--tools", "Read,Grep,Glob"),
)


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


def _settings_argv(setup: AgentSetup, timeout: float, env: Mapping[str, str]) -> list[str]:
    return [claude_settings(setup, timeout)]


class ClaudeDecoder(JsonLinesDecoder):
    """``claude-json``: Claude Code's ``--output-format stream-json --verbose
    --include-partial-messages`` lines. Live, the text is in ``stream_event`` /
    ``content_block_delta`` / ``text_delta``; a whole ``assistant`` message counts only
    when no delta came before it (a CLI run without partial messages). The reply is the
    last line's result object (the same as ``--output-format json``)."""

    kind = "claude-json"
    user_defined = True
    reports_cost = True

    def __init__(self, limit: int | None = None, stderr_failures: tuple[str, ...] = ()) -> None:
        super().__init__(limit, stderr_failures)
        self._deltas = False

    def text_of(self, obj: dict[str, object]) -> str:
        kind = obj.get("type")
        if kind == "stream_event":
            event = obj.get("event")
            if value_at(event, "type") == "content_block_delta":
                text = value_at(event, "delta", "text")
                if value_at(event, "delta", "type") == "text_delta" and isinstance(text, str):
                    self._deltas = True
                    return text
            return ""
        if kind == "assistant" and not self._deltas:
            return _message_text(obj.get("message"))
        return ""

    def reply(self, exit_code: int, stdout: str, stderr: str) -> AgentReply:
        doc = _last_json_object(stdout)
        if doc is None:
            err = first_lines(stdout or stderr) or f"exit {exit_code} with no output"
            if exit_code == 0:
                if not stdout.strip():
                    return AgentReply(ok=False, text="", empty=True, error="empty reply")
                return AgentReply(ok=False, text="", error=f"unreadable JSON output: {err}")
            return AgentReply(ok=False, text="", error=err)
        result = doc.get("result")
        text = result.strip() if isinstance(result, str) else ""
        usage = _usage(doc.get("usage"))
        if usage is None or usage == Usage():
            # After a broken stream the CLI's top-level usage is all zeros; modelUsage is right.
            usage = _model_usage(doc.get("modelUsage")) or usage
        cost = doc.get("total_cost_usd")
        cost_usd = float(cost) if isinstance(cost, int | float) else None
        sid = doc.get("session_id")
        session_id = sid if isinstance(sid, str) else None
        is_error = doc.get("is_error") is True
        extra = {k: doc[k] for k in ("duration_ms", "num_turns", "api_error_status") if k in doc}
        common = {"usage": usage, "cost_usd": cost_usd, "session_id": session_id, "extra": extra}
        if exit_code != 0 or is_error:
            status = doc.get("api_error_status")
            msg = first_lines(text or stderr) or f"exit {exit_code}"
            if status is not None and str(status) not in msg:
                msg = f"API status {status}: {msg}"
            return AgentReply(
                ok=False,
                text=text,
                error=msg,
                auth_failed=status == 401,
                **common,  # type: ignore[arg-type]
            )
        if not text:
            return AgentReply(ok=False, text="", empty=True, error="empty result", **common)  # type: ignore[arg-type]
        return AgentReply(ok=True, text=text, **common)  # type: ignore[arg-type]


def _message_text(message: object) -> str:
    content = value_at(message, "content")
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return "".join(
        str(block["text"])
        for block in content
        if isinstance(block, dict) and block.get("type") == "text" and "text" in block
    )


def _usage(raw: object) -> Usage | None:
    if not isinstance(raw, dict):
        return None

    def n(key: str) -> int:
        v = raw.get(key)
        return int(v) if isinstance(v, int | float) else 0

    return Usage(
        input_tokens=n("input_tokens"),
        output_tokens=n("output_tokens"),
        cache_read_tokens=n("cache_read_input_tokens"),
        cache_write_tokens=n("cache_creation_input_tokens"),
    )


def _model_usage(raw: object) -> Usage | None:
    if not isinstance(raw, dict) or not raw:
        return None

    def n(entry: object, key: str) -> int:
        v = entry.get(key) if isinstance(entry, dict) else None
        return int(v) if isinstance(v, int | float) else 0

    entries = list(raw.values())
    return Usage(
        input_tokens=sum(n(e, "inputTokens") for e in entries),
        output_tokens=sum(n(e, "outputTokens") for e in entries),
        cache_read_tokens=sum(n(e, "cacheReadInputTokens") for e in entries),
        cache_write_tokens=sum(n(e, "cacheCreationInputTokens") for e in entries),
    )


def _last_json_object(stdout: str) -> dict[str, object] | None:
    text = stdout.strip()
    if not text:
        return None
    candidates: Sequence[str] = [text, *reversed(text.splitlines())]
    for cand in candidates:
        cand = cand.strip()
        if not cand.startswith("{"):
            continue
        try:
            doc = json.loads(cand)
        except json.JSONDecodeError:
            continue
        if isinstance(doc, dict):
            return doc
    return None


_KEYS = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN")
# A gateway or proxy: its login is its own business, so it counts ("cannot tell").
_GATEWAY = "ANTHROPIC_BASE_URL"
# A cloud provider's switch: its login is the cloud's (AWS, Google, Azure), so it counts
# too — when the CLI reads it as on: "1", "true", "yes" or "on", any case, or JSON true.
_CLOUD = (
    "CLAUDE_CODE_USE_BEDROCK",
    "CLAUDE_CODE_USE_VERTEX",
    "CLAUDE_CODE_USE_FOUNDRY",
    "CLAUDE_CODE_USE_ANTHROPIC_AWS",
    "CLAUDE_CODE_USE_MANTLE",
)
_ON = ("1", "true", "yes", "on")
# Settings an administrator manages for every user of the machine (Linux): their ``env``
# applies to every claude the machine runs, so a key there is a login too.
MANAGED_DIR = Path("/etc/claude-code")


def _set_in(env: Mapping[str, object], var: str) -> bool:
    """``var`` set to something (a cloud switch: to what the CLI reads as on)."""
    value = env.get(var)
    if var in _CLOUD:  # a JSON value becomes its JavaScript string (true, 1) in the CLI
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        text = str(value).lower() if isinstance(value, bool | int | float) else value
        return isinstance(text, str) and text.strip().lower() in _ON
    return bool(value)


def _settings_files(home: Path, config_dir: Path) -> list[Path]:
    """Where the CLI's stored login and ``env`` may be: its state file, the user's
    settings, then the managed settings and their drop-in folder (sorted, as read: the
    CLI passes over a hidden ``.name.json``, which ``Path.glob`` would take)."""
    try:
        folder = (MANAGED_DIR / "managed-settings.d").glob("*.json")
        drop_ins = sorted(p for p in folder if not p.name.startswith("."))
    except OSError:
        drop_ins = []
    return [
        home / ".claude.json",
        config_dir / ".claude.json",
        config_dir / "settings.json",
        MANAGED_DIR / "managed-settings.json",
        *drop_ins,
    ]


def _stored_login(env: Mapping[str, str]) -> str | None:
    """Where claude's login was found (e.g. "ANTHROPIC_API_KEY is set"), or None."""
    home = Path(env.get("HOME") or Path.home())
    for var in (*_KEYS, _GATEWAY, *_CLOUD):
        if _set_in(env, var):
            return f"{var} is set"
    config_dir = Path(env.get("CLAUDE_CONFIG_DIR") or home / ".claude")
    if (config_dir / ".credentials.json").is_file():
        return f"credentials in {config_dir}"
    # (with CLAUDE_CONFIG_DIR set, the CLI keeps its .claude.json in that folder)
    for settings in _settings_files(home, config_dir):
        try:
            data = json.loads(settings.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if not isinstance(data, dict):
            continue
        if data.get("oauthAccount") or data.get("apiKeyHelper"):
            return f"login recorded in {settings}"
        set_env = data.get("env")  # what the CLI sets for itself: a key there is a login
        for var in (*_KEYS, _GATEWAY, *_CLOUD):
            if isinstance(set_env, dict) and _set_in(set_env, var):
                return f"{var} set in {settings} (env)"
    return None


FAMILY = Family(
    spec=SPEC,
    decoder=ClaudeDecoder,
    models="anthropic",
    login=_stored_login,
    placeholders={SETTINGS: _settings_argv},
)
