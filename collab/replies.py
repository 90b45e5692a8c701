"""What an agent's output means: success or failure, the reply text, tokens and cost.

Success is decided by the exit code and the CLI's own error flag; stderr only where the
agent's spec names a known failure message (stderr is otherwise chatter).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

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


def interpret(spec: AgentSpec, exit_code: int, stdout: str, stderr: str) -> AgentReply:
    """Decide success by exit code and the CLI's own error flag; stderr only where the
    spec names a known failure message (stderr is otherwise chatter: banners, warnings)."""
    if spec.output == "claude-json":
        return _interpret_claude(exit_code, stdout, stderr)
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
        return AgentReply(ok=False, text=text, error=msg, **common)  # type: ignore[arg-type]
    if not text:
        return AgentReply(ok=False, text="", empty=True, error="empty result", **common)  # type: ignore[arg-type]
    return AgentReply(ok=True, text=text, **common)  # type: ignore[arg-type]


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
