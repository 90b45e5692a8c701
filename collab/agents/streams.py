"""What an agent has written so far, read from its stdout while it is still running.

Pure: a decoder is fed the raw stdout as it grows (in chunks of any size, split
anywhere) and returns the reply text that the chunk added. The live views (the tmux
pane, the main terminal, the event stream) show that text; the reply a turn keeps is
always read from the finished output file by ``collab.agents.replies``, never from here.

- ``claude-json``: Claude Code's ``--output-format stream-json --verbose
  --include-partial-messages`` lines; the text is in ``stream_event`` /
  ``content_block_delta`` / ``text_delta``; a whole ``assistant`` message counts only
  when no delta came before it (a CLI run without partial messages).
- ``codex-json``: ``codex exec --json`` events; an agent message arrives whole in
  ``item.completed`` (codex streams no deltas: the text appears message by message).
- ``gemini-json``: ``gemini -o stream-json`` lines; assistant ``message`` events carry
  the text as deltas, while the model writes.
- ``text``: the stdout itself.

Every decoder stops at ``limit`` characters with the same visible marker as every other
cap (``collab.text.cut_marker``).
"""

from __future__ import annotations

import json
from typing import Protocol

from collab.text import cut_marker


class Decoder(Protocol):
    def feed(self, chunk: str) -> str:
        """The reply text that ``chunk`` of stdout added (possibly empty)."""
        ...


class _Capped:
    """Counts what it lets through and stops at ``limit`` with the cut marker."""

    def __init__(self, limit: int | None) -> None:
        self.limit = limit
        self.shown = 0

    def admit(self, text: str) -> str:
        if self.limit is None or not text:
            return text
        room = self.limit - self.shown
        if room <= 0:
            return ""
        if len(text) <= room:
            self.shown += len(text)
            return text
        self.shown = self.limit
        return text[:room] + cut_marker(None)


class TextDecoder:
    def __init__(self, limit: int | None = None) -> None:
        self._cap = _Capped(limit)

    def feed(self, chunk: str) -> str:
        return self._cap.admit(chunk)


class _JsonLines:
    """Buffers partial lines; subclasses turn each complete JSON object into text."""

    def __init__(self, limit: int | None = None) -> None:
        self._buf = ""
        self._cap = _Capped(limit)

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
        return self._cap.admit("".join(out))

    def text_of(self, obj: dict[str, object]) -> str:
        raise NotImplementedError


def _get(obj: object, *keys: str) -> object:
    for key in keys:
        if not isinstance(obj, dict):
            return None
        obj = obj.get(key)
    return obj


def _message_text(message: object) -> str:
    content = _get(message, "content")
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return "".join(
        str(block["text"])
        for block in content
        if isinstance(block, dict) and block.get("type") == "text" and "text" in block
    )


class ClaudeStreamDecoder(_JsonLines):
    def __init__(self, limit: int | None = None) -> None:
        super().__init__(limit)
        self._deltas = False

    def text_of(self, obj: dict[str, object]) -> str:
        kind = obj.get("type")
        if kind == "stream_event":
            event = obj.get("event")
            if _get(event, "type") == "content_block_delta":
                text = _get(event, "delta", "text")
                if _get(event, "delta", "type") == "text_delta" and isinstance(text, str):
                    self._deltas = True
                    return text
            return ""
        if kind == "assistant" and not self._deltas:
            return _message_text(obj.get("message"))
        return ""


class CodexJsonDecoder(_JsonLines):
    """``codex exec --json`` (codex 0.171): an agent message arrives whole, as an
    ``item.completed`` event whose item has ``type: agent_message`` and ``text`` (codex
    prints no deltas); later messages of the same turn follow after a blank line."""

    def __init__(self, limit: int | None = None) -> None:
        super().__init__(limit)
        self._shown = False

    def text_of(self, obj: dict[str, object]) -> str:
        if obj.get("type") != "item.completed":
            return ""
        item = obj.get("item")
        text = _get(item, "text")
        if _get(item, "type") != "agent_message" or not isinstance(text, str) or not text:
            return ""
        sep = "\n\n" if self._shown else ""
        self._shown = True
        return sep + text


class GeminiStreamDecoder(_JsonLines):
    """``gemini -o stream-json`` (gemini 0.61): ``message`` events with ``role:
    assistant`` carry the text as it is written (``delta: true``); the ``role: user``
    one echoes the prompt. Text after a ``tool_use`` starts a new paragraph."""

    def __init__(self, limit: int | None = None) -> None:
        super().__init__(limit)
        self._shown = False
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
        sep = "\n\n" if self._tool and self._shown else ""
        self._shown, self._tool = True, False
        return sep + content


def decoder_for(output: str, limit: int | None = None) -> Decoder:
    """The decoder for an agent spec's ``output`` kind."""
    if output == "claude-json":
        return ClaudeStreamDecoder(limit)
    if output == "codex-json":
        return CodexJsonDecoder(limit)
    if output == "gemini-json":
        return GeminiStreamDecoder(limit)
    return TextDecoder(limit)
