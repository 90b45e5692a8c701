"""A minimal Chrome DevTools Protocol client over ``--remote-debugging-pipe`` (stdlib only).

Chromium reads commands on its fd 3 and writes replies and events on its fd 4, each one
JSON message ended by a NUL byte. ``Browser`` starts a headless Chromium so wired, opens
one page and lets a test send commands to it and read the events it raised::

    with Browser(chromium, profile_dir) as b:
        b.call("Network.enable")
        b.navigate("file:///.../report.html")
        value = b.evaluate("document.title")
        requests = b.events("Network.requestWillBeSent")
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

Message = dict[str, Any]


class CdpError(RuntimeError):
    pass


class Browser:
    def __init__(self, chromium: str, profile: Path, *, timeout: float = 60.0) -> None:
        self.timeout = timeout
        cmd_r, self._cmd_w = os.pipe()  # we write commands; Chromium reads them on fd 3
        self._out_r, out_w = os.pipe()  # Chromium writes on fd 4; we read

        def wire() -> None:  # in the child: the two pipe ends become fds 3 and 4
            high_r, high_w = os.dup(cmd_r), os.dup(out_w)
            os.dup2(high_r, 3)
            os.dup2(high_w, 4)

        argv = [
            chromium, "--headless", "--disable-gpu", "--no-first-run", "--disable-sync",
            "--disable-background-networking", "--disable-component-update",
            "--remote-debugging-pipe", f"--user-data-dir={profile}", "about:blank",
        ]  # fmt: skip
        if os.geteuid() == 0:
            argv.insert(2, "--no-sandbox")
        self.proc = subprocess.Popen(
            argv,
            preexec_fn=wire,  # only dup2 in the child before exec
            pass_fds=(3, 4),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(cmd_r)
        os.close(out_w)
        self._buf = b""
        self._next_id = 0
        self._events: list[Message] = []
        self.session = ""
        try:
            targets = self.call("Target.getTargets", session=False)["targetInfos"]
            page = next(t for t in targets if t["type"] == "page")
            attached = self.call(
                "Target.attachToTarget", {"targetId": page["targetId"], "flatten": True},
                session=False,
            )  # fmt: skip
            self.session = attached["sessionId"]
        except BaseException:
            self.close()
            raise

    # -- the protocol -------------------------------------------------------------------
    def call(self, method: str, params: Message | None = None, *, session: bool = True) -> Message:
        """Send one command and wait for its reply; events read meanwhile are kept."""
        self._next_id += 1
        msg: Message = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = self.session
        os.write(self._cmd_w, json.dumps(msg).encode("utf-8") + b"\0")
        end = time.monotonic() + self.timeout
        while True:
            reply = self._read(end)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise CdpError(f"{method}: {reply['error']}")
                result: Message = reply.get("result", {})
                return result
            if "method" in reply:
                self._events.append(reply)

    def wait_for(
        self,
        method: str,
        count: int = 1,
        where: Callable[[Message], bool] = lambda _: True,
        timeout: float | None = None,
    ) -> list[Message]:
        """Read events until ``count`` of ``method`` (that ``where`` accepts) have been seen;
        returns all of those so far."""
        end = time.monotonic() + (self.timeout if timeout is None else timeout)
        while len(self.events(method, where)) < count:
            msg = self._read(end)
            if "method" in msg:
                self._events.append(msg)
        return self.events(method, where)

    def events(
        self, method: str, where: Callable[[Message], bool] = lambda _: True
    ) -> list[Message]:
        return [e["params"] for e in self._events if e["method"] == method and where(e["params"])]

    def clear_events(self) -> None:
        self._events.clear()

    def _read(self, end: float) -> Message:
        while b"\0" not in self._buf:
            left = end - time.monotonic()
            if left <= 0:
                raise TimeoutError("no message from Chromium in time")
            ready, _, _ = select.select([self._out_r], [], [], left)
            if not ready:
                continue
            chunk = os.read(self._out_r, 1 << 16)
            if not chunk:
                raise CdpError("Chromium closed the pipe")
            self._buf += chunk
        raw, _, self._buf = self._buf.partition(b"\0")
        msg: Message = json.loads(raw)
        return msg

    # -- conveniences ----------------------------------------------------------------------
    def navigate(self, url: str) -> None:
        self.call("Page.enable")
        before = len(self.events("Page.loadEventFired"))
        self.call("Page.navigate", {"url": url})
        self.wait_for("Page.loadEventFired", before + 1)

    def evaluate(self, expression: str) -> Any:
        res = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        if "exceptionDetails" in res:
            raise CdpError(f"evaluate: {res['exceptionDetails']}")
        return res["result"].get("value")

    def close(self) -> None:
        for fd in (self._cmd_w, self._out_r):
            with contextlib.suppress(OSError):
                os.close(fd)
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=30)

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
