"""A fake Gemini API (generativelanguage ``v1beta``) on 127.0.0.1, for ``gemini -p`` offline.

Point the real CLI at it with ``agent_envs.gemini_env(server.url, home)`` and always
pass ``-m MODEL`` (without it the CLI first makes a routing call). Each call is one
``POST /v1beta/models/MODEL:streamGenerateContent?alt=sse``; ``:generateContent`` and
``:countTokens`` are served too. Rules match the prompt: the text of the last user
turn. The machinery is ``fake_http``'s; ``Reply`` is ``openai_server``'s
(``word_delay`` streams one word a chunk; ``tool_call`` ends the answer with a
``functionCall`` part, and the finishReason then comes in a last chunk of its own)::

    with FakeGemini() as server:
        server.add_rule("Role B", ["scripted reply"])
        ...
        assert server.requests[0].model == "gemini-fake"
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from .fake_http import Handler, OtherRequest, RecordedRequest, Rule
from .openai_server import Reply, ScriptedServer

__all__ = [
    "FakeGemini",
    "OtherRequest",
    "RecordedRequest",
    "Reply",
    "Rule",
    "gemini_prompt",
]

_ROUTE = re.compile(r"^/(v1beta|v1|v1alpha)/models/(?P<model>[^/:]+):(?P<method>[A-Za-z]+)$")

_STATUS_NAMES = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}


def gemini_prompt(body: dict[str, Any]) -> str:
    """Text of the last user turn of a generateContent request."""
    contents = body.get("contents")
    if not isinstance(contents, list):
        return ""
    for content in reversed(contents):
        if not isinstance(content, dict) or content.get("role", "user") != "user":
            continue
        parts = content.get("parts")
        if not isinstance(parts, list):
            continue
        texts = [p["text"] for p in parts if isinstance(p, dict) and isinstance(p.get("text"), str)]
        if texts:
            return "\n".join(texts)
    return ""


class FakeGemini(ScriptedServer):
    """Scripted fake of ``models/MODEL:streamGenerateContent`` (thread-safe)."""

    name = "FakeGemini"
    thread_name = "FakeGemini"

    def error_body(self, status: int, message: str) -> dict[str, Any]:
        return {
            "error": {
                "code": status,
                "message": message,
                "status": _STATUS_NAMES.get(status, "UNKNOWN"),
            }
        }

    def handle_post(self, h: Handler, body: dict[str, Any]) -> None:
        m = _ROUTE.match(unquote(urlsplit(h.path).path))
        if m is None:
            self.not_found(h)
            return
        model, method = m.group("model"), m.group("method")
        if method == "countTokens":
            h.other(200, {"totalTokens": 100})
            return
        if method not in ("streamGenerateContent", "generateContent"):
            self.not_found(h, f"no method {method}")
            return
        self.answer(h, body, model, stream=method == "streamGenerateContent")

    def prompt(self, body: dict[str, Any]) -> str:
        return gemini_prompt(body)

    def send_reply(self, h: Handler, reply: Reply, model: str, stream: bool) -> None:
        if not stream:
            h.send_json(200, _chunk(reply, reply.text, model, final=True, call=True))
            return
        if parse_qs(urlsplit(h.path).query).get("alt") != ["sse"]:
            # Without alt=sse the API streams one JSON array of responses.
            h.send_json(200, [_chunk(reply, reply.text, model, final=True, call=True)])
            return
        h.start_sse()
        pieces = self.pieces(reply)
        if reply.stall_after_start:
            h.event(_chunk(reply, next(pieces), model, final=False))
            self.stall()
            return
        if reply.word_delay > 0 or reply.tool_call is not None:
            # Each word as it is "written"; the finishReason comes in a last chunk, empty
            # (as the real API often sends it) or with the tool call.
            for piece in pieces:
                if piece:
                    h.event(_chunk(reply, piece, model, final=False))
            if not reply.truncate and not self._stopping.is_set():
                h.event(_chunk(reply, "", model, final=True, call=True))
            return
        piece = next(pieces)
        for after in pieces:
            h.event(_chunk(reply, piece, model, final=False))
            piece = after
        # ``truncate``: all the text, but no chunk carries a finishReason.
        h.event(_chunk(reply, piece, model, final=not reply.truncate))


def _chunk(reply: Reply, text: str, model: str, final: bool, call: bool = False) -> dict[str, Any]:
    parts: list[dict[str, Any]] = [{"text": text}] if text or not call else []
    if call and reply.tool_call is not None:
        name, args = reply.tool_call
        parts.append({"functionCall": {"name": name, "args": args}})
    elif not parts:
        parts = [{"text": ""}]
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
    if final:
        candidate["finishReason"] = "STOP"
    out: dict[str, Any] = {"candidates": [candidate], "modelVersion": model}
    out["usageMetadata"] = {
        "promptTokenCount": reply.input_tokens,
        "candidatesTokenCount": reply.output_tokens if final else 0,
        "totalTokenCount": reply.input_tokens + (reply.output_tokens if final else 0),
    }
    if final:
        out["responseId"] = "fake-response"
    return out
