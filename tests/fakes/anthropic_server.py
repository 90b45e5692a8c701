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

import contextlib
import json
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any
from urllib.parse import urlsplit

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
class Reply:
    """One scripted answer.

    ``status != 200`` answers with an Anthropic-style JSON error body. ``delay`` waits
    before answering; ``hang`` accepts the request and never answers (until the
    server stops); ``stall_after_start`` sends the SSE headers and ``message_start``
    and then stalls (a stream that broke mid-way, as the CLI sees it).
    """

    text: str = ""
    status: int = 200
    delay: float = 0.0
    hang: bool = False
    stall_after_start: bool = False
    break_stream: bool = False
    input_tokens: int = 100
    output_tokens: int = 50
    cache_read_input_tokens: int = 0
    cache_creation_input_tokens: int = 0
    model: str | None = None  # None: echo the request's model
    stop_reason: str = "end_turn"
    error_type: str | None = None  # None: derived from status
    error_message: str | None = None


@dataclass(frozen=True)
class RecordedRequest:
    """One ``POST /v1/messages`` as the server received it."""

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
    """Any request that is not ``POST /v1/messages`` (preconnect ``HEAD /`` etc.)."""

    method: str
    path: str
    headers: dict[str, str]
    time: float


@dataclass
class Rule:
    """A scripted rule: every ``match`` substring must occur in the prompt text."""

    match: tuple[str, ...]
    replies: tuple[Reply, ...]
    count: int = 0  # POSTs answered by this rule

    def matches(self, prompt: str) -> bool:
        return all(m in prompt for m in self.match)

    def next_reply(self) -> Reply:
        reply = self.replies[min(self.count, len(self.replies) - 1)]
        self.count += 1
        return reply


def prompt_text(body: dict[str, Any]) -> str:
    """Concatenated text of the last user message's content (strings and text blocks)."""
    messages = body.get("messages")
    if not isinstance(messages, list):
        return ""
    for message in reversed(messages):
        if not isinstance(message, dict) or message.get("role") != "user":
            continue
        return _content_text(message.get("content"))
    return ""


def _content_text(content: object) -> str:
    if isinstance(content, str):
        return content
    parts: list[str] = []
    if isinstance(content, list):
        for block in content:
            if isinstance(block, str):
                parts.append(block)
            elif isinstance(block, dict):
                if block.get("type") == "text" and isinstance(block.get("text"), str):
                    parts.append(block["text"])
                elif block.get("type") == "tool_result":
                    parts.append(_content_text(block.get("content")))
    return "\n".join(p for p in parts if p)


def _chunks(text: str, pieces: int = 3) -> list[str]:
    """Split ``text`` into up to ``pieces`` non-empty chunks (at least one chunk)."""
    if not text:
        return [""]
    size = max(1, -(-len(text) // pieces))
    return [text[i : i + size] for i in range(0, len(text), size)]


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    allow_reuse_address = True
    request_queue_size = 128  # parallel CLIs connect at once; 5 would drop some

    def __init__(self, fake: FakeAnthropic) -> None:
        self.fake = fake
        super().__init__(("127.0.0.1", 0), _Handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        # Track handler threads and sockets ourselves so stop() can close and join them.
        thread = threading.Thread(
            target=self.process_request_thread,
            args=(request, client_address),
            name="fake-anthropic-conn",
            daemon=True,
        )
        self.fake._track(thread, request)
        thread.start()

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.fake._untrack(threading.current_thread(), request)

    def handle_error(self, request: Any, client_address: Any) -> None:
        # Clients (the CLI being killed, a test timing out) drop connections; stay quiet.
        pass


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"
    server_version = "FakeAnthropic/1.0"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    # -- plumbing -------------------------------------------------------------------

    def _headers(self) -> dict[str, str]:
        return {k.lower(): v for k, v in self.headers.items()}

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

    def _send(self, status: int, payload: bytes, content_type: str, head: bool = False) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        self.send_header("request-id", f"req_fake_{uuid.uuid4().hex[:20]}")
        self.send_header("Connection", "close")
        self.end_headers()
        if not head:
            self.wfile.write(payload)
        self.wfile.flush()
        self.close_connection = True

    def _send_json(self, status: int, obj: object) -> None:
        self._send(status, json.dumps(obj).encode(), "application/json")

    def _other(self, status: int = 200, head: bool = False) -> None:
        fake = self.server.fake
        fake._record_other(OtherRequest(self.command, self.path, self._headers(), time.time()))
        self._read_body()
        if status == 200:
            self._send(200, b"{}", "application/json", head=head)
        else:
            self._send_json(
                status,
                {
                    "type": "error",
                    "error": {"type": "not_found_error", "message": f"no route {self.path}"},
                },
            )

    # -- verbs ----------------------------------------------------------------------

    def do_HEAD(self) -> None:
        self._other(head=True)

    def do_GET(self) -> None:
        self._other()

    def do_POST(self) -> None:
        route = urlsplit(self.path).path.rstrip("/")
        if route == "/v1/messages/count_tokens":
            self._read_body()
            self._send_json(200, {"input_tokens": 100})
            return
        if route != "/v1/messages":
            self._other(status=404)
            return
        raw = self._read_body()
        try:
            body = json.loads(raw or b"{}")
            if not isinstance(body, dict):
                raise ValueError("body is not an object")
        except ValueError as exc:
            self._send_json(
                400,
                {
                    "type": "error",
                    "error": {"type": "invalid_request_error", "message": f"bad JSON: {exc}"},
                },
            )
            return
        self._messages(body)

    def _messages(self, body: dict[str, Any]) -> None:
        fake = self.server.fake
        prompt = prompt_text(body)
        model = str(body.get("model") or "")
        stream = bool(body.get("stream"))
        reply, rule_index = fake._choose(prompt)
        fake._record(
            RecordedRequest(
                method=self.command,
                path=self.path,
                headers=self._headers(),
                body=body,
                model=model,
                prompt=prompt,
                stream=stream,
                time=time.time(),
                rule=rule_index,
            )
        )
        if reply.hang:
            fake._stopping.wait()
            self.close_connection = True
            return
        if reply.delay > 0 and fake._stopping.wait(reply.delay):
            self.close_connection = True
            return
        if reply.status != 200:
            self._send_json(
                reply.status,
                {
                    "type": "error",
                    "error": {
                        "type": reply.error_type or error_type_for_status(reply.status),
                        "message": reply.error_message or f"fake error {reply.status}",
                    },
                },
            )
            return
        message_id = f"msg_fake_{uuid.uuid4().hex[:24]}"
        out_model = reply.model or model or "claude-fake"
        if stream:
            self._stream(reply, message_id, out_model)
        else:
            self._send_json(200, _message_object(reply, message_id, out_model))

    def _stream(self, reply: Reply, message_id: str, model: str) -> None:
        fake = self.server.fake
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("request-id", f"req_fake_{uuid.uuid4().hex[:20]}")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        start = _message_object(reply, message_id, model)
        start["content"] = []
        start["stop_reason"] = None
        start["usage"] = {**start["usage"], "output_tokens": 1}
        self._event("message_start", {"type": "message_start", "message": start})
        if reply.stall_after_start:
            fake._stopping.wait()
            return
        if reply.break_stream:
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        self._event(
            "content_block_start",
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "text", "text": ""},
            },
        )
        self._event("ping", {"type": "ping"})
        for chunk in _chunks(reply.text):
            self._event(
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {"type": "text_delta", "text": chunk},
                },
            )
        self._event("content_block_stop", {"type": "content_block_stop", "index": 0})
        self._event(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": reply.stop_reason, "stop_sequence": None},
                "usage": _usage(reply),
            },
        )
        self._event("message_stop", {"type": "message_stop"})

    def _event(self, name: str, data: dict[str, Any]) -> None:
        self.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())
        self.wfile.flush()


def _usage(reply: Reply) -> dict[str, Any]:
    return {
        "input_tokens": reply.input_tokens,
        "cache_creation_input_tokens": reply.cache_creation_input_tokens,
        "cache_read_input_tokens": reply.cache_read_input_tokens,
        "output_tokens": reply.output_tokens,
    }


def _message_object(reply: Reply, message_id: str, model: str) -> dict[str, Any]:
    return {
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [{"type": "text", "text": reply.text}],
        "stop_reason": reply.stop_reason,
        "stop_sequence": None,
        "usage": _usage(reply),
    }


class FakeAnthropic:
    """Scripted fake of the Anthropic Messages API (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._rules: list[Rule] = []
        self._default = Reply(text="(fake default reply)")
        self.default_count = 0
        self._requests: list[RecordedRequest] = []
        self._other: list[OtherRequest] = []
        self._conns: dict[threading.Thread, socket.socket] = {}
        self._server: _Server | None = None
        self._serve_thread: threading.Thread | None = None

    # -- lifecycle ------------------------------------------------------------------

    def start(self) -> FakeAnthropic:
        if self._server is not None:
            raise RuntimeError("FakeAnthropic already started")
        self._stopping.clear()
        self._server = _Server(self)
        self._serve_thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="fake-anthropic",
            daemon=True,
        )
        self._serve_thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        server, serve_thread = self._server, self._serve_thread
        if server is None or serve_thread is None:
            return
        self._stopping.set()  # wakes hanging / delayed handlers
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

    def __enter__(self) -> FakeAnthropic:
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
        if self._server is None:
            raise RuntimeError("FakeAnthropic not started")
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("FakeAnthropic not started")
        return int(self._server.server_address[1])

    # -- scripting ------------------------------------------------------------------

    def add_rule(self, match: str | Sequence[str], replies: Reply | Sequence[Reply]) -> Rule:
        """Add a rule; the first rule whose every substring is in the prompt answers."""
        matches = (match,) if isinstance(match, str) else tuple(match)
        seq = (replies,) if isinstance(replies, Reply) else tuple(replies)
        if not seq:
            raise ValueError("a rule needs at least one reply")
        rule = Rule(matches, seq)
        with self._lock:
            self._rules.append(rule)
        return rule

    def default(self, reply: Reply) -> None:
        """The reply for prompts no rule matches."""
        with self._lock:
            self._default = reply

    def reset(self) -> None:
        """Forget rules, counts and recorded requests."""
        with self._lock:
            self._rules.clear()
            self._default = Reply(text="(fake default reply)")
            self.default_count = 0
            self._requests.clear()
            self._other.clear()

    # -- inspection -----------------------------------------------------------------

    @property
    def rules(self) -> list[Rule]:
        with self._lock:
            return list(self._rules)

    @property
    def rule_counts(self) -> list[int]:
        """POSTs answered per rule, in the order the rules were added."""
        with self._lock:
            return [r.count for r in self._rules]

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._requests)

    @property
    def other_requests(self) -> list[OtherRequest]:
        with self._lock:
            return list(self._other)

    def wait_for_requests(self, n: int, timeout: float = 10.0) -> list[RecordedRequest]:
        """Poll until at least ``n`` message POSTs arrived; raise TimeoutError if not."""
        return self._wait(lambda: len(self._requests) >= n, timeout, f"{n} request(s)")

    def wait_for(
        self, predicate: Callable[[list[RecordedRequest]], bool], timeout: float = 10.0
    ) -> list[RecordedRequest]:
        """Poll until ``predicate(requests)`` holds; raise TimeoutError if not."""
        return self._wait(lambda: predicate(list(self._requests)), timeout, "predicate")

    def _wait(self, cond: Callable[[], bool], timeout: float, what: str) -> list[RecordedRequest]:
        deadline = time.monotonic() + timeout
        while True:
            with self._lock:
                if cond():
                    return list(self._requests)
                got = len(self._requests)
            if time.monotonic() >= deadline:
                raise TimeoutError(f"FakeAnthropic: waited {timeout}s for {what}, got {got}")
            time.sleep(0.01)

    def iter_prompts(self) -> Iterator[str]:
        for req in self.requests:
            yield req.prompt

    # -- used by the handler ----------------------------------------------------------

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

    def _untrack(self, thread: threading.Thread, sock: socket.socket) -> None:
        with self._lock:
            self._conns.pop(thread, None)
