"""The HTTP machinery shared by the fake model APIs (Anthropic, OpenAI, Gemini).

``FakeServer`` is a threaded HTTP server on ``127.0.0.1:0`` with scripted replies:

- lifecycle: ``start()`` / ``stop()`` / context manager, ``.url`` and ``.port``;
  ``stop()`` closes and joins every connection, even a hanging one;
- scripting: ``add_rule(match, replies)`` (the first rule whose every substring is in
  the prompt answers; its replies are used in turn, the last one repeating),
  ``default(reply)``, ``reset()``;
- recording: ``.requests`` (model calls), ``.other_requests`` (everything else),
  ``.rule_counts``, ``.default_count``, ``wait_for_requests()`` / ``wait_for()``;
- ``answer()``: choose and record the reply, then handle ``hang``, ``delay`` and
  error statuses, so a protocol only writes its success bodies and streams.

A protocol module subclasses ``Reply`` (extra fields) and ``FakeServer`` (routes,
prompt extraction, error bodies, SSE event shapes); see ``anthropic_server.py``,
``openai_server.py`` and ``gemini_server.py``.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Generic, Self, TypeVar
from urllib.parse import urlsplit

from tests.helpers import wait_until

__all__ = [
    "FakeServer",
    "Handler",
    "OtherRequest",
    "RecordedRequest",
    "Reply",
    "Rule",
    "chunks",
    "joined_text",
    "last_user_text",
]


@dataclass(frozen=True)
class Reply:
    """One scripted answer (the fields every protocol shares; subclasses add more).

    ``status != 200`` answers with the API's JSON error body. ``delay`` waits before
    answering; ``hang`` accepts the request and never answers (until the server
    stops); ``stall_after_start`` sends the stream's headers and first event, then
    stalls.
    """

    text: str = ""
    status: int = 200
    delay: float = 0.0
    hang: bool = False
    stall_after_start: bool = False
    input_tokens: int = 100
    output_tokens: int = 50
    error_message: str | None = None


R = TypeVar("R", bound=Reply)


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
    """Any request that is not a model call (preconnect ``HEAD /``, unknown paths …)."""

    method: str
    path: str
    headers: dict[str, str]
    time: float


@dataclass
class Rule(Generic[R]):
    """Every ``match`` substring must occur in the prompt; replies are used in turn,
    the last one repeating."""

    match: tuple[str, ...]
    replies: tuple[R, ...]
    count: int = 0  # model calls answered by this rule

    def matches(self, prompt: str) -> bool:
        return all(m in prompt for m in self.match)

    def next_reply(self) -> R:
        reply = self.replies[min(self.count, len(self.replies) - 1)]
        self.count += 1
        return reply


def last_user_text(turns: object, turn_text: Callable[[dict[str, Any]], str]) -> str:
    """``turn_text`` of the last ``"role": "user"`` turn in a list of turns, or ""."""
    if not isinstance(turns, list):
        return ""
    for turn in reversed(turns):
        if isinstance(turn, dict) and turn.get("role") == "user":
            return turn_text(turn)
    return ""


def joined_text(content: object, block_text: Callable[[object], str | None]) -> str:
    """A content string as is, or the non-empty ``block_text`` of a list's blocks
    joined by newlines."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return "\n".join(t for t in map(block_text, content) if t)


def chunks(text: str, pieces: int = 3) -> list[str]:
    """Split ``text`` into up to ``pieces`` non-empty chunks (at least one chunk)."""
    if not text:
        return [""]
    size = max(1, -(-len(text) // pieces))
    return [text[i : i + size] for i in range(0, len(text), size)]


# -- HTTP plumbing -----------------------------------------------------------------------


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    allow_reuse_address = True
    request_queue_size = 128  # parallel CLIs connect at once; 5 would drop some

    def __init__(self, fake: FakeServer[Any]) -> None:
        self.fake = fake
        super().__init__(("127.0.0.1", 0), Handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        # Track handler threads and sockets ourselves so stop() can close and join them.
        thread = threading.Thread(
            target=self.process_request_thread,
            args=(request, client_address),
            name=f"{self.fake.thread_name}-conn",
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

    def version_string(self) -> str:
        return f"{self.fake.name}/1.0"

    @property
    def fake(self) -> FakeServer[Any]:
        return self.server.fake

    @property
    def route(self) -> str:
        """The request path without query string or trailing slash."""
        return urlsplit(self.path).path.rstrip("/")

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

    def _send_extra_headers(self) -> None:
        for key, value in self.fake.extra_headers().items():
            self.send_header(key, value)
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True

    def send(self, status: int, payload: bytes, content_type: str, head: bool = False) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        self._send_extra_headers()
        if not head:
            self.wfile.write(payload)
        self.wfile.flush()

    def send_json(self, status: int, obj: object) -> None:
        self.send(status, json.dumps(obj).encode(), "application/json")

    def start_sse(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-cache")
        self._send_extra_headers()

    def event(self, data: dict[str, Any], name: str | None = None) -> None:
        """One SSE event: ``event: NAME`` (when given) and ``data: JSON``."""
        head = f"event: {name}\n" if name else ""
        self.wfile.write(f"{head}data: {json.dumps(data)}\n\n".encode())
        self.wfile.flush()

    def other(self, status: int, body: object, head: bool = False) -> None:
        """Record a non-model request and answer it with ``body`` as JSON."""
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


# -- the scripted server -----------------------------------------------------------------


class FakeServer(Generic[R]):
    """Rules, recording and lifecycle (thread-safe); subclasses speak one wire format.

    Subclasses set ``reply_type`` (their ``Reply`` class), ``name`` (for messages and
    the ``Server`` header) and ``thread_name``, and implement ``prompt``,
    ``send_reply`` and ``error_body``, plus ``model_route`` or their own
    ``handle_post``.
    """

    reply_type: type[R]
    model_route = ""  # for the default handle_post
    name = "FakeServer"
    thread_name = "fake-server"
    default_text = "(fake default reply)"

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._rules: list[Rule[R]] = []
        self._default = self.reply_type(text=self.default_text)
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
            name=self.thread_name,
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

    def _as_reply(self, reply: R | str) -> R:
        return self.reply_type(text=reply) if isinstance(reply, str) else reply

    def add_rule(self, match: str | Sequence[str], replies: R | str | Sequence[R | str]) -> Rule[R]:
        """The first rule whose every substring is in the prompt answers.

        ``replies`` are ``Reply`` objects or strings (reply texts), used in turn; the
        last one repeats.
        """
        matches = (match,) if isinstance(match, str) else tuple(match)
        items: Sequence[R | str] = [replies] if isinstance(replies, str | Reply) else replies
        seq = tuple(self._as_reply(r) for r in items)
        if not seq:
            raise ValueError("a rule needs at least one reply")
        rule = Rule(matches, seq)
        with self._lock:
            self._rules.append(rule)
        return rule

    def default(self, reply: R | str) -> None:
        """The reply for prompts no rule matches."""
        with self._lock:
            self._default = self._as_reply(reply)

    def reset(self) -> None:
        """Forget rules, counts and recorded requests."""
        with self._lock:
            self._rules.clear()
            self._default = self.reply_type(text=self.default_text)
            self.default_count = 0
            self._requests.clear()
            self._other.clear()

    # -- inspection -----------------------------------------------------------------

    @property
    def rules(self) -> list[Rule[R]]:
        with self._lock:
            return list(self._rules)

    @property
    def rule_counts(self) -> list[int]:
        """Model calls answered per rule, in the order the rules were added."""
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

    def iter_prompts(self) -> Iterator[str]:
        for req in self.requests:
            yield req.prompt

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
        if not wait_until(lambda: predicate(self.requests), timeout):
            raise TimeoutError(
                f"{self.name}: waited {timeout}s for {what}, got {len(self.requests)} request(s)"
            )
        return self.requests

    # -- the wire format: subclasses --------------------------------------------------

    def handle_get(self, h: Handler) -> None:
        self.not_found(h)

    def handle_post(self, h: Handler, body: dict[str, Any]) -> None:
        """A model call is a POST to ``model_route`` whose JSON body names the ``model``
        and asks for a ``stream``; anything else is not found. Override for other APIs.
        """
        if not self.model_route or h.route != self.model_route:
            self.not_found(h)
            return
        self.answer(h, body, str(body.get("model") or ""), bool(body.get("stream")))

    def prompt(self, body: dict[str, Any]) -> str:
        """The text rules are matched against (usually the last user turn)."""
        raise NotImplementedError

    def send_reply(self, h: Handler, reply: R, model: str, stream: bool) -> None:
        """Send a successful ``reply`` (a JSON body, or an SSE stream when ``stream``)."""
        raise NotImplementedError

    def error_body(self, status: int, message: str) -> dict[str, Any]:
        raise NotImplementedError

    def reply_error_body(self, reply: R) -> dict[str, Any]:
        """The body of a scripted error reply (``reply.status != 200``)."""
        return self.error_body(reply.status, reply.error_message or f"fake error {reply.status}")

    def extra_headers(self) -> dict[str, str]:
        """Headers added to every response (e.g. a request id)."""
        return {}

    # -- helpers for subclasses ---------------------------------------------------------

    def answer(self, h: Handler, body: dict[str, Any], model: str, stream: bool) -> None:
        """Choose and record the reply to a model call; handle hangs, delays and error
        statuses here, and pass a success to ``send_reply``."""
        prompt = self.prompt(body)
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
        elif reply.delay > 0 and self._stopping.wait(reply.delay):
            h.close_connection = True
        elif reply.status != 200:
            h.send_json(reply.status, self.reply_error_body(reply))
        else:
            self.send_reply(h, reply, model, stream)

    def not_found(self, h: Handler, message: str | None = None) -> None:
        """Record ``h`` as an other request and answer 404 with the API's error body."""
        h.other(404, self.error_body(404, message or f"no route {h.path}"))

    def stall(self) -> None:
        """Block the handler until the server stops."""
        self._stopping.wait()

    def _choose(self, prompt: str) -> tuple[R, int | None]:
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
