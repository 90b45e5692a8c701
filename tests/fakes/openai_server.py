"""A fake OpenAI Responses API on 127.0.0.1, for the real ``codex exec`` offline.

``codex exec`` 0.17x speaks only the Responses API: one streaming ``POST /v1/responses``
per call. Point it here with ``agent_envs.codex_env(server.url, home)``. Replies are
scripted by rules matched against the prompt (the text of the last user message,
which is what was fed to ``codex exec`` on stdin)::

    with FakeOpenAI() as server:
        rule = server.add_rule(["Role B", "JWT"], ["first reply", "second reply"])
        server.add_rule("boom", [Reply(status=500)])
        ...  # run codex against server.url
        server.wait_for_requests(1, timeout=10)
        assert server.requests[0].model == "gpt-fake"

The HTTP and scripting machinery lives in ``fake_http``; ``Reply`` and
``ScriptedServer`` here are shared with ``gemini_server.FakeGemini``. Measured with
codex 0.171: the stream it needs is ``response.created`` …
``response.output_item.done`` (the assistant message) … ``response.completed``; we
also send ``response.output_item.added`` and ``response.output_text.delta`` events as
the real API does. Without ``response.completed`` codex treats the stream as broken
and retries.

``Reply(word_delay=0.2)`` streams the text one word per 0.2 s (a model writing; the
first piece's send time is in ``first_text_at``). ``Reply(tool_call=(name, args))``
ends the answer with a function call (``function_call`` output item) after its text,
if any: script the answer to the call as the rule's next reply, as in
``add_rule("PING", [Reply(tool_call=("exec_command", {"cmd": "ls"})), "done"])`` (the
second request still matches: its last user message is the same prompt).
"""

from __future__ import annotations

import json
import re
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from . import fake_http
from .fake_http import Handler, OtherRequest, RecordedRequest, Rule

__all__ = [
    "FakeOpenAI",
    "OtherRequest",
    "RecordedRequest",
    "Reply",
    "Rule",
    "ScriptedServer",
    "responses_prompt",
]


@dataclass(frozen=True)
class Reply(fake_http.Reply):
    """A ``fake_http.Reply`` for the OpenAI and Gemini fakes; ``truncate`` sends the
    text but closes the stream without its final event (a broken stream)."""

    truncate: bool = False
    # Stream the text one word at a time, this many seconds apart (a model writing).
    word_delay: float = 0.0
    # (tool name, arguments): after the text (if any), the model calls this tool.
    tool_call: tuple[str, dict[str, Any]] | None = None


ReplyLike = str | Reply


class ScriptedServer(fake_http.FakeServer[Reply]):
    """A ``fake_http.FakeServer`` scripted with this module's ``Reply`` (strings are
    reply texts); ``FakeOpenAI`` and ``gemini_server.FakeGemini`` speak its wire formats.
    """

    reply_type = Reply
    name = "fake"
    thread_name = "fake"

    def __init__(self) -> None:
        super().__init__()
        # When each streamed reply's first text piece was sent (time.time()).
        self.first_text_at: list[float] = []

    def pieces(self, reply: Reply) -> Iterator[str]:
        """The reply's text in the pieces a stream sends: words ``word_delay`` apart
        (stops early when the server stops), else up to three chunks."""
        if reply.word_delay <= 0:
            parts = fake_http.chunks(reply.text)
        else:
            parts = re.findall(r"\S+\s*|\s+", reply.text) or [""]
        for n, piece in enumerate(parts):
            if n and reply.word_delay > 0 and self._stopping.wait(reply.word_delay):
                return
            if n == 0:
                self.first_text_at.append(time.time())
            yield piece


# -- the Responses API ---------------------------------------------------------------------


def responses_prompt(body: dict[str, Any]) -> str:
    """Text of the last user message of a Responses request (codex's stdin prompt)."""
    items = body.get("input")
    if isinstance(items, str):
        return items
    return fake_http.last_user_text(
        items, lambda item: fake_http.joined_text(item.get("content"), _block_text)
    )


def _block_text(block: object) -> str | None:
    if isinstance(block, dict) and isinstance(block.get("text"), str):
        return str(block["text"])
    return None


_OPENAI_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "invalid_request_error",
    403: "invalid_request_error",
    404: "invalid_request_error",
    429: "rate_limit_error",
}


class FakeOpenAI(ScriptedServer):
    """Scripted fake of ``POST /v1/responses`` (thread-safe)."""

    model_route = "/v1/responses"
    name = "FakeOpenAI"
    thread_name = "FakeOpenAI"

    def handle_get(self, h: Handler) -> None:
        if h.route == "/v1/models":
            h.other(200, {"object": "list", "data": []})
            return
        super().handle_get(h)

    def error_body(self, status: int, message: str) -> dict[str, Any]:
        kind = _OPENAI_ERROR_TYPES.get(status, "server_error")
        return {"error": {"message": message, "type": kind, "param": None, "code": None}}

    def prompt(self, body: dict[str, Any]) -> str:
        return responses_prompt(body)

    def send_reply(self, h: Handler, reply: Reply, model: str, stream: bool) -> None:
        response_id = f"resp_fake_{uuid.uuid4().hex[:24]}"
        if stream:
            self._stream(h, reply, response_id, model)
        else:
            h.send_json(200, _response_object(reply, response_id, model, "completed"))

    def _stream(self, h: Handler, reply: Reply, response_id: str, model: str) -> None:
        h.start_sse()
        seq = iter(range(1_000_000))

        def ev(kind: str, **fields: Any) -> None:
            h.event({"type": kind, "sequence_number": next(seq), **fields}, name=kind)

        created = _response_object(reply, response_id, model, "in_progress")
        created["output"] = []
        created["usage"] = None
        ev("response.created", response=created)
        if reply.stall_after_start:
            self.stall()
            return
        outputs: list[dict[str, Any]] = []
        if reply.text or reply.tool_call is None:
            item_id = f"msg_fake_{uuid.uuid4().hex[:24]}"
            empty_item = _message_item(item_id, "", "in_progress")
            empty_item["content"] = []
            ev("response.output_item.added", output_index=0, item=empty_item)
            part = {"type": "output_text", "text": "", "annotations": []}
            at = {"item_id": item_id, "output_index": 0, "content_index": 0}
            ev("response.content_part.added", **at, part=part)
            for piece in self.pieces(reply):
                ev("response.output_text.delta", **at, delta=piece)
            if reply.truncate:
                return
            ev("response.output_text.done", **at, text=reply.text)
            ev("response.content_part.done", **at, part={**part, "text": reply.text})
            outputs.append(_message_item(item_id, reply.text, "completed"))
            ev("response.output_item.done", output_index=0, item=outputs[-1])
        if reply.tool_call is not None:
            name, args = reply.tool_call
            index = len(outputs)
            call = _function_call_item(name, json.dumps(args), "in_progress")
            ev("response.output_item.added", output_index=index, item={**call, "arguments": ""})
            at = {"item_id": call["id"], "output_index": index}
            ev("response.function_call_arguments.delta", **at, delta=call["arguments"])
            ev("response.function_call_arguments.done", **at, arguments=call["arguments"])
            outputs.append({**call, "status": "completed"})
            ev("response.output_item.done", output_index=index, item=outputs[-1])
        done = _response_object(reply, response_id, model, "completed")
        done["output"] = outputs
        ev("response.completed", response=done)


def _function_call_item(name: str, arguments: str, status: str) -> dict[str, Any]:
    return {
        "type": "function_call",
        "id": f"fc_fake_{uuid.uuid4().hex[:24]}",
        "call_id": f"call_fake_{uuid.uuid4().hex[:24]}",
        "name": name,
        "arguments": arguments,
        "status": status,
    }


def _message_item(item_id: str, text: str, status: str) -> dict[str, Any]:
    return {
        "type": "message",
        "id": item_id,
        "status": status,
        "role": "assistant",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }


def _response_object(reply: Reply, response_id: str, model: str, status: str) -> dict[str, Any]:
    return {
        "id": response_id,
        "object": "response",
        "created_at": int(time.time()),
        "status": status,
        "model": model or "gpt-fake",
        "output": [_message_item(f"msg_{response_id}", reply.text, "completed")],
        "usage": {
            "input_tokens": reply.input_tokens,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": reply.output_tokens,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": reply.input_tokens + reply.output_tokens,
        },
    }
