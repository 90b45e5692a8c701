"""What an agent's stdout means, the interface every output format implements.

A decoder has two methods, as httpx's content decoders do:

- ``feed(chunk)``: the reply text a chunk of stdout added, while the agent still writes
  (chunks of any size, split anywhere). The live views (the tmux pane, the main
  terminal, the event stream) show it, capped at ``limit`` with the same visible marker
  as every other cap (``collab.text.cut_marker``).
- ``reply(exit_code, stdout, stderr)``: the turn's reply from the finished output: text,
  tokens, cost, errors. The reply a turn keeps always comes from here, never from
  ``feed``. Success is decided by the exit code and the CLI's own error flag; stderr
  only where the spec names a known failure message (stderr is otherwise chatter).

Each agent family's module holds its decoder; ``TextDecoder`` (stdout is the reply) is
here because many agents share it. Pure: no I/O.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import field
from typing import ClassVar

from collab.records import record
from collab.text import cut_marker


@record
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


@record
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


class Decoder(ABC):
    """One output format. ``kind`` is the name an agent spec's ``output`` gives it."""

    kind: ClassVar[str]
    # May a user's ``[agents.NAME]`` in config.toml name this kind as its ``output``?
    user_defined: ClassVar[bool] = False
    # Does the agent report what a turn cost (else collab.prices estimates it)?
    reports_cost: ClassVar[bool] = False

    def __init__(self, limit: int | None = None, stderr_failures: tuple[str, ...] = ()) -> None:
        self.stderr_failures = stderr_failures
        self._limit = limit
        self._shown = 0

    @abstractmethod
    def feed(self, chunk: str) -> str:
        """The reply text that ``chunk`` of stdout added (possibly empty)."""

    @abstractmethod
    def reply(self, exit_code: int, stdout: str, stderr: str) -> AgentReply:
        """The reply of a finished turn, read from its whole stdout and stderr."""

    def admit(self, text: str) -> str:
        """``text`` as far as the live cap lets it through, with the cut marker at the cap."""
        if self._limit is None or not text:
            return text
        room = self._limit - self._shown
        if room <= 0:
            return ""
        if len(text) <= room:
            self._shown += len(text)
            return text
        self._shown = self._limit
        return text[:room] + cut_marker(None)


class TextDecoder(Decoder):
    """``text``: stdout itself is the reply."""

    kind = "text"
    user_defined = True

    def feed(self, chunk: str) -> str:
        return self.admit(chunk)

    def reply(self, exit_code: int, stdout: str, stderr: str) -> AgentReply:
        text = stdout.strip()
        if exit_code != 0:
            return AgentReply(ok=False, text=text, error=error_lines(stderr or stdout))
        if any(m in stderr for m in self.stderr_failures):
            return AgentReply(ok=False, text=text, error=error_lines(stderr))
        if not text:
            return AgentReply(ok=False, text="", empty=True, error="empty reply")
        return AgentReply(ok=True, text=text)


class JsonLinesDecoder(Decoder):
    """A JSON-lines stream: ``feed`` buffers partial lines and turns each complete JSON
    object into text with ``text_of``; other lines (a warning) are skipped."""

    def __init__(self, limit: int | None = None, stderr_failures: tuple[str, ...] = ()) -> None:
        super().__init__(limit, stderr_failures)
        self._buf = ""

    def feed(self, chunk: str) -> str:
        self._buf += chunk
        *lines, self._buf = self._buf.split("\n")
        out: list[str] = []
        for line in lines:
            line = line.strip()
            if not line.startswith("{"):
                continue
            try:
                obj = json.loads(line)
            except ValueError:
                continue
            if isinstance(obj, dict):
                out.append(self.text_of(obj))
        return self.admit("".join(out))

    @abstractmethod
    def text_of(self, obj: dict[str, object]) -> str:
        """The live text one event adds."""


def json_lines(stdout: str) -> list[dict[str, object]]:
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


def no_stream(exit_code: int, stdout: str, stderr: str) -> AgentReply:
    """A JSON-lines agent that printed no event: it failed before its stream began
    (config, login, usage errors go to stderr), or printed nothing at all."""
    if exit_code != 0:
        err = error_lines(stderr or stdout) or f"exit {exit_code} with no output"
        return AgentReply(ok=False, text="", error=err)
    if not stdout.strip():
        return AgentReply(ok=False, text="", empty=True, error="empty reply")
    return AgentReply(ok=False, text="", error=f"unreadable JSON output: {first_lines(stdout)}")


def value_at(obj: object, *keys: str) -> object:
    """``obj[k1][k2]…``, or None where a level is not a dict."""
    for key in keys:
        if not isinstance(obj, dict):
            return None
        obj = obj.get(key)
    return obj


def str_at(obj: object, *keys: str) -> str | None:
    value = value_at(obj, *keys)
    return value if isinstance(value, str) else None


def counter(raw: Mapping[str, object]) -> Callable[[str], int]:
    """A reader of ``raw``'s token counts: a number, else 0."""

    def n(key: str) -> int:
        v = raw.get(key)
        return int(v) if isinstance(v, int | float) and not isinstance(v, bool) else 0

    return n


def error_lines(text: str, n: int = 5) -> str:
    """The lines that say what went wrong: those marked as errors (codex prints a banner
    first), else the first ``n``."""
    lines = [ln.rstrip() for ln in text.strip().splitlines() if ln.strip()]
    marked = [ln for ln in lines if ln.lstrip().lstrip("[").upper().startswith("ERROR")]
    return "\n".join((marked or lines)[:n])


def first_lines(text: str, n: int = 5) -> str:
    lines = [ln.rstrip() for ln in text.strip().splitlines() if ln.strip()]
    return "\n".join(lines[:n])
