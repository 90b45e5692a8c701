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

The scripting machinery (``Reply``, ``Rule``, ``ScriptedServer``) is shared with
``gemini_server.FakeGemini``. Measured with codex 0.171: the stream it needs is
``response.created`` … ``response.output_item.done`` (the assistant message) …
``response.completed``; we also send ``response.output_item.added`` and
``response.output_text.delta`` events as the real API does. Without
``response.completed`` codex treats the stream as broken and retries.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Self
from urllib.parse import urlsplit

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
class Reply:
    """One scripted answer.

    ``status != 200`` answers with the API's JSON error body. ``delay`` waits before
    answering; ``hang`` never answers (until the server stops); ``stall_after_start``
    sends the stream's headers and first event, then stalls; ``truncate`` sends the
    text but closes the stream without its final event (a broken stream).
    """

    text: str = ""
    status: int = 200
    delay: float = 0.0
    hang: bool = False
    stall_after_start: bool = False
    truncate: bool = False
    input_tokens: int = 100
    output_tokens: int = 50
    error_message: str | None = None


ReplyLike = str | Reply


def _as_reply(r: ReplyLike) -> Reply:
    return Reply(text=r) if isinstance(r, str) else r


@dataclass(frozen=True)
class RecordedRequest:
    """One model call as the server received it."""

    method: str
    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    model: str
    prompt: str
    stream: bool
    time: float
    rule: int | None  # index of the answering rule; None for the default reply


@dataclass(frozen=True)
class OtherRequest:
    """Any request that is not a model call."""

    method: str
    path: str
    headers: dict[str, str]
    time: float


@dataclass
class Rule:
    """Every ``match`` substring must occur in the prompt; replies are used in turn,
    the last one repeating."""

    match: tuple[str, ...]
    replies: tuple[Reply, ...]
    count: int = 0

    def matches(self, prompt: str) -> bool:
        return all(m in prompt for m in self.match)

    def next_reply(self) -> Reply:
        reply = self.replies[min(self.count, len(self.replies) - 1)]
        self.count += 1
        return reply


def chunks(text: str, pieces: int = 3) -> list[str]:
    """Split ``text`` into up to ``pieces`` non-empty chunks (at least one)."""
    if not text:
        return [""]
    size = max(1, -(-len(text) // pieces))
    return [text[i : i + size] for i in range(0, len(text), size)]


# -- HTTP plumbing shared by the fakes ---------------------------------------------------


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    allow_reuse_address = True

    def __init__(self, fake: ScriptedServer) -> None:
        self.fake = fake
        super().__init__(("127.0.0.1", 0), Handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        # Track handler threads and sockets so stop() can close and join them.
        thread = threading.Thread(
            target=self.process_request_thread,
            args=(request, client_address),
            name=f"{self.fake.name}-conn",
            daemon=True,
        )
        self.fake._track(thread, request)
        thread.start()

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.fake._untrack(threading.current_thread())

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # clients (a killed CLI, a timed-out test) drop connections; stay quiet


class Handler(BaseHTTPRequestHandler):
    """Reads the request, then lets the fake answer through the helpers below."""

    server: _Server
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    @property
    def fake(self) -> ScriptedServer:
        return self.server.fake

    def headers_dict(self) -> dict[str, str]:
        return {k.lower(): v for k, v in self.headers.items()}

    _body: bytes | None = None

    def read_body(self) -> bytes:
        """The request body, read once (later calls return the same bytes)."""
        if self._body is None:
            self._body = self._read_body()
        return self._body

    def _read_body(self) -> bytes:
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            return self.rfile.read(length)
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            data = bytearray()
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    self.rfile.readline()
                    return bytes(data)
                data += self.rfile.read(size)
                self.rfile.readline()
        return b""

    def send(self, status: int, payload: bytes, content_type: str, head: bool = False) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        self.send_header("Connection", "close")
        self.end_headers()
        if not head:
            self.wfile.write(payload)
        self.wfile.flush()
        self.close_connection = True

    def send_json(self, status: int, obj: object) -> None:
        self.send(status, json.dumps(obj).encode(), "application/json")

    def start_sse(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True

    def event(self, data: dict[str, Any], name: str | None = None) -> None:
        head = f"event: {name}\n" if name else ""
        self.wfile.write(f"{head}data: {json.dumps(data)}\n\n".encode())
        self.wfile.flush()

    def other(self, status: int, body: object, head: bool = False) -> None:
        self.fake._record_other(
            OtherRequest(self.command, self.path, self.headers_dict(), time.time())
        )
        self.read_body()
        self.send(status, json.dumps(body).encode(), "application/json", head=head)

    def do_HEAD(self) -> None:
        self._body = None
        self.other(200, {}, head=True)

    def do_GET(self) -> None:
        self._body = None
        self.fake.handle_get(self)

    def do_POST(self) -> None:
        self._body = None
        raw = self.read_body()
        try:
            body = json.loads(raw or b"{}")
            if not isinstance(body, dict):
                raise ValueError("body is not an object")
        except ValueError as exc:
            self.send_json(400, self.fake.error_body(400, f"bad JSON: {exc}"))
            return
        self.fake.handle_post(self, body)


# -- the scripted server -------------------------------------------------------------


class ScriptedServer:
    """Rules, recording and lifecycle; subclasses speak one API's wire format."""

    name = "fake"
    default_text = "(fake default reply)"

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._rules: list[Rule] = []
        self._default = Reply(text=self.default_text)
        self.default_count = 0
        self._requests: list[RecordedRequest] = []
        self._other: list[OtherRequest] = []
        self._conns: dict[threading.Thread, socket.socket] = {}
        self._server: _Server | None = None
        self._serve_thread: threading.Thread | None = None

    # -- lifecycle ------------------------------------------------------------------

    def start(self) -> Self:
        if self._server is not None:
            raise RuntimeError(f"{self.name} already started")
        self._stopping.clear()
        self._server = _Server(self)
        self._serve_thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.05},
            name=self.name,
            daemon=True,
        )
        self._serve_thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        server, serve_thread = self._server, self._serve_thread
        if server is None or serve_thread is None:
            return
        self._stopping.set()  # wakes hanging and delayed handlers
        server.shutdown()
        serve_thread.join(timeout)
        server.server_close()
        with self._lock:
            conns = list(self._conns.items())
        for _thread, sock in conns:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
        deadline = time.monotonic() + timeout
        for thread, _sock in conns:
            thread.join(max(0.0, deadline - time.monotonic()))
        self._server = None
        self._serve_thread = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT`` with no path."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError(f"{self.name} not started")
        return int(self._server.server_address[1])

    # -- scripting ------------------------------------------------------------------

    def add_rule(
        self, match: str | Sequence[str], replies: ReplyLike | Sequence[ReplyLike]
    ) -> Rule:
        """The first rule whose every substring is in the prompt answers.

        ``replies`` are strings (reply texts) or ``Reply`` objects, used in turn; the
        last one repeats.
        """
        matches = (match,) if isinstance(match, str) else tuple(match)
        if isinstance(replies, str | Reply):
            replies = [replies]
        seq = tuple(_as_reply(r) for r in replies)
        if not seq:
            raise ValueError("a rule needs at least one reply")
        rule = Rule(matches, seq)
        with self._lock:
            self._rules.append(rule)
        return rule

    def default(self, reply: ReplyLike) -> None:
        """The reply for prompts no rule matches."""
        with self._lock:
            self._default = _as_reply(reply)

    def reset(self) -> None:
        """Forget rules, counts and recorded requests."""
        with self._lock:
            self._rules.clear()
            self._default = Reply(text=self.default_text)
            self.default_count = 0
            self._requests.clear()
            self._other.clear()

    # -- inspection -----------------------------------------------------------------

    @property
    def rules(self) -> list[Rule]:
        with self._lock:
            return list(self._rules)

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._requests)

    @property
    def other_requests(self) -> list[OtherRequest]:
        with self._lock:
            return list(self._other)

    def wait_for_requests(self, n: int, timeout: float = 10.0) -> list[RecordedRequest]:
        """Poll until at least ``n`` model calls arrived; raise TimeoutError if not."""
        return self.wait_for(lambda reqs: len(reqs) >= n, timeout, f"{n} request(s)")

    def wait_for(
        self,
        predicate: Callable[[list[RecordedRequest]], bool],
        timeout: float = 10.0,
        what: str = "predicate",
    ) -> list[RecordedRequest]:
        """Poll until ``predicate(requests)`` holds; raise TimeoutError if not."""
        deadline = time.monotonic() + timeout
        while True:
            reqs = self.requests
            if predicate(reqs):
                return reqs
            if time.monotonic() >= deadline:
                raise TimeoutError(
                    f"{self.name}: waited {timeout}s for {what}, got {len(reqs)} request(s)"
                )
            time.sleep(0.01)

    # -- the wire format: subclasses --------------------------------------------------

    def handle_get(self, h: Handler) -> None:
        h.other(404, self.error_body(404, f"no route {h.path}"))

    def handle_post(self, h: Handler, body: dict[str, Any]) -> None:
        raise NotImplementedError

    def error_body(self, status: int, message: str) -> dict[str, Any]:
        raise NotImplementedError

    # -- helpers for subclasses ---------------------------------------------------------

    def answer(
        self, h: Handler, body: dict[str, Any], model: str, prompt: str, stream: bool
    ) -> Reply | None:
        """Choose and record the reply; handle errors, delays and hangs.

        Returns the reply to send as a success, or None when it was already dealt with.
        """
        reply, rule_index = self._choose(prompt)
        self._record(
            RecordedRequest(
                method=h.command,
                path=h.path,
                headers=h.headers_dict(),
                body=body,
                model=model,
                prompt=prompt,
                stream=stream,
                time=time.time(),
                rule=rule_index,
            )
        )
        if reply.hang:
            self._stopping.wait()
            h.close_connection = True
            return None
        if reply.delay > 0 and self._stopping.wait(reply.delay):
            h.close_connection = True
            return None
        if reply.status != 200:
            message = reply.error_message or f"fake error {reply.status}"
            h.send_json(reply.status, self.error_body(reply.status, message))
            return None
        return reply

    def stall(self) -> None:
        """Block the handler until the server stops."""
        self._stopping.wait()

    def _choose(self, prompt: str) -> tuple[Reply, int | None]:
        with self._lock:
            for index, rule in enumerate(self._rules):
                if rule.matches(prompt):
                    return rule.next_reply(), index
            self.default_count += 1
            return self._default, None

    def _record(self, req: RecordedRequest) -> None:
        with self._lock:
            self._requests.append(req)

    def _record_other(self, req: OtherRequest) -> None:
        with self._lock:
            self._other.append(req)

    def _track(self, thread: threading.Thread, sock: socket.socket) -> None:
        with self._lock:
            self._conns[thread] = sock

    def _untrack(self, thread: threading.Thread) -> None:
        with self._lock:
            self._conns.pop(thread, None)


# -- the Responses API ---------------------------------------------------------------------


def responses_prompt(body: dict[str, Any]) -> str:
    """Text of the last user message of a Responses request (codex's stdin prompt)."""
    items = body.get("input")
    if isinstance(items, str):
        return items
    if not isinstance(items, list):
        return ""
    for item in reversed(items):
        if isinstance(item, dict) and item.get("role") == "user":
            return _content_text(item.get("content"))
    return ""


def _content_text(content: object) -> str:
    if isinstance(content, str):
        return content
    parts: list[str] = []
    if isinstance(content, list):
        for block in content:
            if isinstance(block, dict) and isinstance(block.get("text"), str):
                parts.append(block["text"])
    return "\n".join(p for p in parts if p)


_OPENAI_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "invalid_request_error",
    403: "invalid_request_error",
    404: "invalid_request_error",
    429: "rate_limit_error",
}


class FakeOpenAI(ScriptedServer):
    """Scripted fake of ``POST /v1/responses`` (thread-safe)."""

    name = "FakeOpenAI"

    def handle_get(self, h: Handler) -> None:
        if urlsplit(h.path).path.rstrip("/") == "/v1/models":
            h.other(200, {"object": "list", "data": []})
            return
        super().handle_get(h)

    def error_body(self, status: int, message: str) -> dict[str, Any]:
        kind = _OPENAI_ERROR_TYPES.get(status, "server_error")
        return {"error": {"message": message, "type": kind, "param": None, "code": None}}

    def handle_post(self, h: Handler, body: dict[str, Any]) -> None:
        if urlsplit(h.path).path.rstrip("/") != "/v1/responses":
            h.other(404, self.error_body(404, f"no route {h.path}"))
            return
        model = str(body.get("model") or "")
        stream = bool(body.get("stream"))
        reply = self.answer(h, body, model, responses_prompt(body), stream)
        if reply is None:
            return
        response_id = f"resp_fake_{uuid.uuid4().hex[:24]}"
        if not stream:
            h.send_json(200, _response_object(reply, response_id, model, "completed"))
            return
        self._stream(h, reply, response_id, model)

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
        item_id = f"msg_fake_{uuid.uuid4().hex[:24]}"
        empty_item = _message_item(item_id, "", "in_progress")
        empty_item["content"] = []
        ev("response.output_item.added", output_index=0, item=empty_item)
        part = {"type": "output_text", "text": "", "annotations": []}
        ev(
            "response.content_part.added",
            item_id=item_id,
            output_index=0,
            content_index=0,
            part=part,
        )
        for piece in chunks(reply.text):
            ev(
                "response.output_text.delta",
                item_id=item_id,
                output_index=0,
                content_index=0,
                delta=piece,
            )
        if reply.truncate:
            return
        ev(
            "response.output_text.done",
            item_id=item_id,
            output_index=0,
            content_index=0,
            text=reply.text,
        )
        ev(
            "response.content_part.done",
            item_id=item_id,
            output_index=0,
            content_index=0,
            part={**part, "text": reply.text},
        )
        ev(
            "response.output_item.done",
            output_index=0,
            item=_message_item(item_id, reply.text, "completed"),
        )
        done = _response_object(reply, response_id, model, "completed")
        done["output"] = [_message_item(item_id, reply.text, "completed")]
        ev("response.completed", response=done)


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
