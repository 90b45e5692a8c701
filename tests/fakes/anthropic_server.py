"""A fake Anthropic Messages API served on 127.0.0.1 for offline tests.

Point the real ``claude`` CLI at it with ``ANTHROPIC_BASE_URL=server.url`` (see
``claude_env.py``). Replies are scripted with rules matched against the prompt text
(the concatenated text of the last user message)::

    with FakeAnthropic() as server:
        rule = server.add_rule(["Role A", "JWT"], [Reply("first"), Reply("again")])
        server.default(Reply("fallback"))
        ...  # run claude against server.url
        server.wait_for_requests(1, timeout=10)
        assert rule.count == 1

``.requests`` records every ``POST /v1/messages``; everything else (the ``HEAD /``
preconnect, unknown paths) goes to ``.other_requests``.
"""

from __future__ import annotations

import re
import socket
import time
import uuid
from dataclasses import dataclass
from typing import Any

from . import fake_http
from .fake_http import FakeServer, Handler, OtherRequest, RecordedRequest, Rule

__all__ = [
    "FakeAnthropic",
    "OtherRequest",
    "RecordedRequest",
    "Reply",
    "Rule",
    "error_type_for_status",
    "prompt_text",
]

_ERROR_TYPES: dict[int, str] = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}


def error_type_for_status(status: int) -> str:
    """The Anthropic error ``type`` the real API uses for an HTTP status."""
    return _ERROR_TYPES.get(status, "api_error")


@dataclass(frozen=True)
class Reply(fake_http.Reply):
    """One scripted answer: the ``fake_http.Reply`` fields plus Anthropic's own.

    ``status != 200`` answers with an Anthropic-style JSON error body of type
    ``error_type`` (None: derived from the status). ``stall_after_start`` sends the SSE
    headers and ``message_start`` and then stalls (a stream that broke mid-way, as the
    CLI sees it); ``break_stream`` resets the connection right after ``message_start``.
    """

    break_stream: bool = False
    cache_read_input_tokens: int = 0
    cache_creation_input_tokens: int = 0
    model: str | None = None  # None: echo the request's model
    stop_reason: str = "end_turn"
    error_type: str | None = None  # None: derived from status
    # Stream the text one word at a time, this many seconds apart (a model writing).
    word_delay: float = 0.0
    # Report input tokens as the request body's size / 4 (what a real API bills for it)
    # instead of ``input_tokens``: for measuring what a call sends.
    count_input: bool = False


def prompt_text(body: dict[str, Any]) -> str:
    """Concatenated text of the last user message's content (strings and text blocks)."""
    return fake_http.last_user_text(
        body.get("messages"), lambda msg: _content_text(msg.get("content"))
    )


def _content_text(content: object) -> str:
    return fake_http.joined_text(content, _block_text)


def _block_text(block: object) -> str | None:
    if isinstance(block, str):
        return block
    if not isinstance(block, dict):
        return None
    if block.get("type") == "text" and isinstance(block.get("text"), str):
        return str(block["text"])
    if block.get("type") == "tool_result":
        return _content_text(block.get("content"))
    return None


def _usage(reply: Reply, body_bytes: int = 0) -> dict[str, Any]:
    return {
        "input_tokens": body_bytes // 4 if reply.count_input else reply.input_tokens,
        "cache_creation_input_tokens": reply.cache_creation_input_tokens,
        "cache_read_input_tokens": reply.cache_read_input_tokens,
        "output_tokens": reply.output_tokens,
    }


def _message_object(
    reply: Reply, message_id: str, model: str, body_bytes: int = 0
) -> dict[str, Any]:
    return {
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [{"type": "text", "text": reply.text}],
        "stop_reason": reply.stop_reason,
        "stop_sequence": None,
        "usage": _usage(reply, body_bytes),
    }


class FakeAnthropic(FakeServer[Reply]):
    """Scripted fake of the Anthropic Messages API (thread-safe)."""

    reply_type = Reply
    model_route = "/v1/messages"
    name = "FakeAnthropic"
    thread_name = "fake-anthropic"

    def __init__(self) -> None:
        super().__init__()
        # When each streamed reply's first text delta was sent (time.time()).
        self.first_text_at: list[float] = []

    def extra_headers(self) -> dict[str, str]:
        return {"request-id": f"req_fake_{uuid.uuid4().hex[:20]}"}

    def error_body(self, status: int, message: str) -> dict[str, Any]:
        return {
            "type": "error",
            "error": {"type": error_type_for_status(status), "message": message},
        }

    def reply_error_body(self, reply: Reply) -> dict[str, Any]:
        body = super().reply_error_body(reply)
        if reply.error_type:
            body["error"]["type"] = reply.error_type
        return body

    def handle_get(self, h: Handler) -> None:
        h.other(200, {})  # the CLI's preconnect; any path will do

    def handle_post(self, h: Handler, body: dict[str, Any]) -> None:
        if h.route == "/v1/messages/count_tokens":
            h.send_json(200, {"input_tokens": 100})
        else:
            super().handle_post(h, body)

    def prompt(self, body: dict[str, Any]) -> str:
        return prompt_text(body)

    def send_reply(self, h: Handler, reply: Reply, model: str, stream: bool) -> None:
        message_id = f"msg_fake_{uuid.uuid4().hex[:24]}"
        out_model = reply.model or model or "claude-fake"
        if stream:
            self._stream(h, reply, message_id, out_model)
        else:
            h.send_json(200, _message_object(reply, message_id, out_model, len(h.read_body())))

    def _stream(self, h: Handler, reply: Reply, message_id: str, model: str) -> None:
        h.start_sse()

        def ev(kind: str, **fields: Any) -> None:
            h.event({"type": kind, **fields}, name=kind)

        body_bytes = len(h.read_body())
        start = _message_object(reply, message_id, model, body_bytes)
        start["content"] = []
        start["stop_reason"] = None
        start["usage"] = {**start["usage"], "output_tokens": 1}
        ev("message_start", message=start)
        if reply.stall_after_start:
            self.stall()
            return
        if reply.break_stream:
            h.connection.shutdown(socket.SHUT_RDWR)
            return
        ev("content_block_start", index=0, content_block={"type": "text", "text": ""})
        ev("ping")
        if reply.word_delay > 0:
            pieces = re.findall(r"\S+\s*|\s+", reply.text)
        else:
            pieces = fake_http.chunks(reply.text)
        for n, piece in enumerate(pieces):
            if n and reply.word_delay > 0 and self._stopping.wait(reply.word_delay):
                return
            if n == 0:
                self.first_text_at.append(time.time())
            ev("content_block_delta", index=0, delta={"type": "text_delta", "text": piece})
        ev("content_block_stop", index=0)
        ev(
            "message_delta",
            delta={"stop_reason": reply.stop_reason, "stop_sequence": None},
            usage=_usage(reply, body_bytes),
        )
        ev("message_stop")
