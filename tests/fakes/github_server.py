"""A fake of the GitHub REST endpoints ``collab comment`` and the Action call, on
``127.0.0.1:0``: an issue's comments listed (paginated with a ``Link`` header), created and
edited, as GitHub answers them (201/200 with ``id`` and ``html_url``; 422 for a body over
65,536 characters; 401 for a wrong token; 404 for an unknown comment).

- ``login``: None (the default) for a workflow's ``GITHUB_TOKEN``: comments are posted as
  ``github-actions[bot]`` (``type: Bot``) and ``GET /user`` answers 403, as GitHub does for
  an installation token; a login for a personal token: comments are posted as that
  ``User`` and ``GET /user`` answers it;
- ``comments``: ``{(repo, number): [comment, …]}``, which a test may seed
  (``seed(…, user_type=, login=)`` says who wrote one);
- ``fail_next(method, status, headers=…, message=…)``: the next such request answers so
  (a 403, a 422, a rate limit);
- ``log``: every request as ``"METHOD /path?query -> status"`` (never a header), and
  ``auth``: the Authorization headers received, so a test can see the token went there.
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Self
from urllib.parse import parse_qs, urlsplit

MAX_BODY = 65_536
_LIST = re.compile(r"^/repos/([^/]+/[^/]+)/issues/(\d+)/comments$")
_ONE = re.compile(r"^/repos/([^/]+/[^/]+)/issues/comments/(\d+)$")


@dataclass
class _Failure:
    method: str
    status: int
    headers: dict[str, str]
    message: str


@dataclass
class FakeGitHub:
    token: str
    login: str | None = None
    page_size_cap: int = 100
    comments: dict[tuple[str, int], list[dict[str, Any]]] = field(default_factory=dict)
    log: list[str] = field(default_factory=list)
    auth: list[str] = field(default_factory=list)
    _failures: list[_Failure] = field(default_factory=list)
    _next_id: int = 1000
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _server: ThreadingHTTPServer | None = None

    # -- lifecycle -----------------------------------------------------------------------
    def start(self) -> Self:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                fake._handle(self, "GET")

            def do_POST(self) -> None:
                fake._handle(self, "POST")

            def do_PATCH(self) -> None:
                fake._handle(self, "PATCH")

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    # -- scripting -----------------------------------------------------------------------
    def fail_next(
        self, method: str, status: int, *, headers: dict[str, str] | None = None,
        message: str = "scripted failure",
    ) -> None:  # fmt: skip
        self._failures.append(_Failure(method, status, headers or {}, message))

    def seed(
        self, repo: str, number: int, body: str, user_type: str = "User",
        login: str | None = None,
    ) -> int:  # fmt: skip
        with self._lock:
            return self._add(repo, number, body, user_type, login)

    def bodies(self, repo: str, number: int) -> list[str]:
        return [c["body"] for c in self.comments.get((repo, number), [])]

    # -- the endpoints -------------------------------------------------------------------
    def _handle(self, h: BaseHTTPRequestHandler, method: str) -> None:
        parts = urlsplit(h.path)
        length = int(h.headers.get("Content-Length") or 0)
        raw = h.rfile.read(length) if length else b""
        with self._lock:
            self.auth.append(h.headers.get("Authorization") or "")
            status, body, headers = self._route(h, method, parts.path, parts.query, raw)
            self.log.append(f"{method} {h.path} -> {status}")
        data = json.dumps(body).encode()
        h.send_response(status)
        h.send_header("Content-Type", "application/json")
        h.send_header("Content-Length", str(len(data)))
        for k, v in headers.items():
            h.send_header(k, v)
        h.end_headers()
        h.wfile.write(data)

    def _route(
        self, h: BaseHTTPRequestHandler, method: str, path: str, query: str, raw: bytes
    ) -> tuple[int, Any, dict[str, str]]:
        for i, f in enumerate(self._failures):
            if f.method == method:
                del self._failures[i]
                return f.status, {"message": f.message}, f.headers
        if h.headers.get("Authorization") != f"Bearer {self.token}":
            return 401, {"message": "Bad credentials"}, {}
        if path == "/user" and method == "GET":
            if self.login is None:
                return 403, {"message": "Resource not accessible by integration"}, {}
            return 200, {"login": self.login, "type": "User"}, {}
        listing, one = _LIST.match(path), _ONE.match(path)
        if listing and method == "GET":
            key = (listing.group(1), int(listing.group(2)))
            q = parse_qs(query)
            size = min(int(q.get("per_page", ["30"])[0]), self.page_size_cap)
            page = int(q.get("page", ["1"])[0])
            items = self.comments.get(key, [])
            chunk = items[(page - 1) * size : page * size]
            headers = {}
            if page * size < len(items):
                nxt = f"{self.url}{path}?per_page={size}&page={page + 1}"
                headers["Link"] = f'<{nxt}>; rel="next"'
            return 200, chunk, headers
        if listing and method == "POST":
            text = json.loads(raw or b"{}").get("body", "")
            if len(text) > MAX_BODY:
                return 422, {"message": "Validation Failed: body is too long"}, {}
            who = "Bot" if self.login is None else "User"
            cid = self._add(listing.group(1), int(listing.group(2)), text, who, self.login)
            return 201, self._find(cid), {}
        if one and method == "PATCH":
            found = self._find(int(one.group(2)))
            if found is None:
                return 404, {"message": "Not Found"}, {}
            text = json.loads(raw or b"{}").get("body", "")
            if len(text) > MAX_BODY:
                return 422, {"message": "Validation Failed: body is too long"}, {}
            found["body"] = text
            return 200, found, {}
        return 404, {"message": "Not Found"}, {}

    def _add(
        self, repo: str, number: int, body: str, user_type: str, login: str | None = None
    ) -> int:
        self._next_id += 1
        cid = self._next_id
        login = login or ("github-actions[bot]" if user_type == "Bot" else "someone")
        self.comments.setdefault((repo, number), []).append({
            "id": cid,
            "body": body,
            "user": {"login": login, "type": user_type},
            "html_url": f"https://github.test/{repo}/pull/{number}#issuecomment-{cid}",
        })  # fmt: skip
        return cid

    def _find(self, cid: int) -> dict[str, Any] | None:
        for items in self.comments.values():
            for c in items:
                if c["id"] == cid:
                    return c
        return None
