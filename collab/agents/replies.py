"""What an agent's output means: success or failure, the reply text, tokens and cost.

Success is decided by the exit code and the CLI's own error flag; stderr only where the
agent's spec names a known failure message (stderr is otherwise chatter).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from collab.agents import AgentSpec


@dataclass(frozen=True)
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0


def sum_usage(usages: Sequence[Usage]) -> Usage | None:
    if not usages:
        return None
    return Usage(
        input_tokens=sum(u.input_tokens for u in usages),
        output_tokens=sum(u.output_tokens for u in usages),
        cache_read_tokens=sum(u.cache_read_tokens for u in usages),
        cache_write_tokens=sum(u.cache_write_tokens for u in usages),
    )


@dataclass(frozen=True)
class AgentReply:
    """A reply as the agent reported it. ``ok`` False means the turn failed."""

    ok: bool
    text: str
    error: str | None = None
    empty: bool = False
    usage: Usage | None = None
    cost_usd: float | None = None
    session_id: str | None = None
    extra: Mapping[str, object] = field(default_factory=dict)
    # The API refused the credentials (HTTP 401): no retry and no further turn can work.
    auth_failed: bool = False


def interpret(spec: AgentSpec, exit_code: int, stdout: str, stderr: str) -> AgentReply:
    """Decide success by exit code and the CLI's own error flag; stderr only where the
    spec names a known failure message (stderr is otherwise chatter: banners, warnings)."""
    if spec.output == "claude-json":
        return _interpret_claude(exit_code, stdout, stderr)
    if spec.output == "codex-json":
        return _interpret_codex(exit_code, stdout, stderr)
    if spec.output == "gemini-json":
        return _interpret_gemini(spec, exit_code, stdout, stderr)
    text = stdout.strip()
    if exit_code != 0:
        return AgentReply(ok=False, text=text, error=_error_lines(stderr or stdout))
    broken = [m for m in spec.stderr_failures if m in stderr]
    if broken:
        return AgentReply(ok=False, text=text, error=_error_lines(stderr))
    if not text:
        return AgentReply(ok=False, text="", empty=True, error="empty reply")
    return AgentReply(ok=True, text=text)


def _interpret_claude(exit_code: int, stdout: str, stderr: str) -> AgentReply:
    doc = _last_json_object(stdout)
    if doc is None:
        err = _first_lines(stdout or stderr) or f"exit {exit_code} with no output"
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
        msg = _first_lines(text or stderr) or f"exit {exit_code}"
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


def _interpret_codex(exit_code: int, stdout: str, stderr: str) -> AgentReply:
    """``codex exec --json`` (codex 0.171): ``thread.started`` (thread_id),
    ``turn.started``, ``item.started``/``item.updated``/``item.completed`` (the reply is
    the last ``agent_message`` item's text), then ``turn.completed`` (usage) or
    ``turn.failed`` (error.message). Top-level ``error`` events are also sent for retries
    ("Reconnecting... 2/5"), and ``error`` *items* are warnings: neither fails a turn."""
    events = _json_lines(stdout)
    if not events:
        return _no_stream(exit_code, stdout, stderr)
    messages: list[str] = []
    failures: list[str] = []
    errors: list[str] = []
    usages: list[Usage] = []
    session_id: str | None = None
    for ev in events:
        kind = ev.get("type")
        item = ev.get("item")
        if kind == "thread.started":
            session_id = _str_at(ev, "thread_id")
        elif kind == "item.completed" and isinstance(item, dict):
            if item.get("type") == "agent_message" and isinstance(item.get("text"), str):
                messages.append(str(item["text"]))
        elif kind == "turn.completed":
            usage = _codex_usage(ev.get("usage"))
            if usage is not None:
                usages.append(usage)
        elif kind == "turn.failed":
            failures.append(_str_at(ev, "error", "message") or "turn failed")
        elif kind == "error":
            errors.append(_str_at(ev, "message") or "error")
    text = messages[-1].strip() if messages else ""
    base = AgentReply(ok=False, text=text, usage=sum_usage(usages), session_id=session_id)
    if exit_code != 0 or failures:
        msg = _first_lines("\n".join(failures or errors[-1:])) or _error_lines(stderr)
        msg = msg or f"exit {exit_code}"
        return replace(base, error=msg, auth_failed="status 401" in msg)
    if not text:
        return replace(base, empty=True, error="empty reply")
    return replace(base, ok=True)


def _codex_usage(raw: object) -> Usage | None:
    """codex's ``input_tokens`` include the cached ones; ``Usage`` counts them apart."""
    if not isinstance(raw, dict):
        return None
    n = _counter(raw)
    cached = n("cached_input_tokens")
    return Usage(
        input_tokens=max(0, n("input_tokens") - cached),
        output_tokens=n("output_tokens"),
        cache_read_tokens=cached,
        cache_write_tokens=n("cache_write_input_tokens"),
    )


# gemini's exit code for FatalAuthenticationError (no usable login, before any request).
GEMINI_AUTH_EXIT = 41


def _interpret_gemini(spec: AgentSpec, exit_code: int, stdout: str, stderr: str) -> AgentReply:
    """``gemini -o stream-json`` (gemini 0.61): ``init`` (session_id), ``message`` (role
    user: the prompt; role assistant: text deltas), ``tool_use``/``tool_result``,
    ``error`` (severity warning or error) and last ``result`` (status success|error,
    error.message for an API error, stats). The reply is the assistant text after the
    last tool call (else the text before it), as gemini's own json output picks it. A
    broken or empty stream still exits 0, with ``status: error``: a failed turn."""
    events = _json_lines(stdout)
    if not events:
        reply = _no_stream(exit_code, stdout, stderr)
        return replace(reply, auth_failed=exit_code == GEMINI_AUTH_EXIT)
    pieces: list[str] = []
    before_tools = ""
    errors: list[str] = []
    result: dict[str, object] | None = None
    session_id: str | None = None
    for ev in events:
        kind = ev.get("type")
        if kind == "init":
            session_id = _str_at(ev, "session_id")
        elif kind == "message" and ev.get("role") == "assistant":
            pieces.append(_str_at(ev, "content") or "")
        elif kind == "tool_use":
            before_tools = "".join(pieces) or before_tools
            pieces = []
        elif kind == "error" and ev.get("severity") != "warning":
            errors.append(_str_at(ev, "message") or "error")
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
    api_error = _str_at(result, "error", "message") if result is not None else None
    finished = exit_code == 0 and result is not None
    broken = any(m in stderr for m in spec.stderr_failures)
    if finished and result is not None and result.get("status") == "success" and not broken:
        return replace(base, ok=True) if text else replace(base, empty=True, error="empty reply")
    msg = _first_lines("\n".join(m for m in (api_error, *errors) if m)) or _error_lines(stderr)
    if not msg:
        msg = f"exit {exit_code}" if exit_code != 0 else "stream ended without a result"
    # gemini's own message for a reply with no text ("The model returned an empty
    # response…") is a "no response", like an empty reply.
    if finished and not text and api_error is None and all("empty response" in m for m in errors):
        return replace(base, empty=True, error=msg if errors else "empty reply")
    auth = exit_code == GEMINI_AUTH_EXIT or "UNAUTHENTICATED" in msg
    return replace(base, error=msg, auth_failed=auth)


def _gemini_usage(raw: object) -> Usage | None:
    """``input`` is the uncached part of ``input_tokens``; ``cached`` the rest."""
    if not isinstance(raw, dict):
        return None
    n = _counter(raw)
    cached = n("cached")
    uncached = n("input") if "input" in raw else max(0, n("input_tokens") - cached)
    return Usage(
        input_tokens=uncached,
        output_tokens=n("output_tokens"),
        cache_read_tokens=cached,
    )


def _no_stream(exit_code: int, stdout: str, stderr: str) -> AgentReply:
    """A JSON-lines agent that printed no event: it failed before its stream began
    (config, login, usage errors go to stderr), or printed nothing at all."""
    if exit_code != 0:
        err = _error_lines(stderr or stdout) or f"exit {exit_code} with no output"
        return AgentReply(ok=False, text="", error=err)
    if not stdout.strip():
        return AgentReply(ok=False, text="", empty=True, error="empty reply")
    return AgentReply(ok=False, text="", error=f"unreadable JSON output: {_first_lines(stdout)}")


def _json_lines(stdout: str) -> list[dict[str, object]]:
    """The JSON objects of a JSON-lines stream; other lines (a warning) are skipped."""
    out: list[dict[str, object]] = []
    for line in stdout.splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            doc = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(doc, dict):
            out.append(doc)
    return out


def _str_at(doc: Mapping[str, object], *keys: str) -> str | None:
    cur: object = doc
    for key in keys:
        if not isinstance(cur, dict):
            return None
        cur = cur.get(key)
    return cur if isinstance(cur, str) else None


def _counter(raw: Mapping[str, object]) -> Callable[[str], int]:
    def n(key: str) -> int:
        v = raw.get(key)
        return int(v) if isinstance(v, int | float) and not isinstance(v, bool) else 0

    return n


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


def _error_lines(text: str, n: int = 5) -> str:
    """The lines that say what went wrong: those marked as errors (codex prints a banner
    first), else the first ``n``."""
    lines = [ln.rstrip() for ln in text.strip().splitlines() if ln.strip()]
    marked = [ln for ln in lines if ln.lstrip().lstrip("[").upper().startswith("ERROR")]
    return "\n".join((marked or lines)[:n])


def _first_lines(text: str, n: int = 5) -> str:
    lines = [ln.rstrip() for ln in text.strip().splitlines() if ln.strip()]
    return "\n".join(lines[:n])
