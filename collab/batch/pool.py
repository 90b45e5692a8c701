"""The child pool: one ``python -m collab.batch.child`` process per run of a batch.

We keep ``parallel`` children running and up to ``WARM_MAX`` more started and waiting
(imports done, state loaded), so a finished debate is replaced at once. Children start in
their own session, so a terminal Ctrl-C reaches only us; we pass it on as SIGTERM, which
every child turns into a saved, resumable ``interrupted`` state. Besides ``runners/``, this
is the only place that starts processes.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence

from collab.batch.item import Item
from collab.store import RunDir

POLL = 0.02  # how soon a finished child's slot is refilled
TICK = 0.25  # how often the display re-reads every run's state
# Children kept started and waiting, so runs that end together are replaced at once.
WARM_MAX = 4
STOP_GRACE = 15.0


def run_children(
    items: Sequence[Item],
    parallel: int,
    tmux_session: str,
    on_tick: Callable[[], None] | None = None,
) -> bool:
    """Drive every item to its end, ``parallel`` at a time; True if we were interrupted."""
    todo = list(items)
    env = dict(os.environ)
    env["COLLAB_TMUX_SESSION"] = tmux_session
    running: list[Item] = []
    warm: list[Item] = []  # started, imported, waiting for their go
    pool = min(parallel, WARM_MAX)
    next_tick = 0.0
    old_term = _install_term_handler()
    try:
        while todo or running or warm:
            for item in list(running):
                if item.proc is not None and item.proc.poll() is not None:
                    item.exit_code = item.proc.returncode
                    item.ended = time.monotonic()
                    running.remove(item)
            while len(running) < parallel and (warm or todo):
                item = warm.pop(0) if warm else _spawn(todo.pop(0), env)
                _go(item)
                item.started = time.monotonic()
                running.append(item)
            while len(warm) < pool and todo:
                warm.append(_spawn(todo.pop(0), env))
            now = time.monotonic()
            if on_tick is not None and now >= next_tick:
                on_tick()
                next_tick = now + TICK
            if running:
                time.sleep(POLL)
    except KeyboardInterrupt:
        # Every child started so far, also one the signal caught before it was listed.
        _stop([i for i in items if i.proc is not None and i.proc.poll() is None])
        return True
    finally:
        signal.signal(signal.SIGTERM, old_term)
    return False


def _spawn(item: Item, env: dict[str, str]) -> Item:
    run_path = RunDir(item.run_id).path
    log = open(run_path / "batch.log", "ab")  # noqa: SIM115 - handed to the child
    try:
        item.proc = subprocess.Popen(
            [sys.executable, "-m", "collab.batch.child", item.run_id],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=log,
            env=env,
            start_new_session=True,
            close_fds=True,
        )
        return item
    finally:
        log.close()


def _go(item: Item) -> None:
    """Tell a waiting child to start (one byte, then EOF)."""
    assert item.proc is not None and item.proc.stdin is not None
    try:
        item.proc.stdin.write(b"g")
        item.proc.stdin.close()
    except BrokenPipeError:
        pass  # it died while waiting: reaped as finished, its run stays resumable


def _stop(running: list[Item]) -> None:
    for item in running:
        _close_stdin(item)
    for item in running:
        if item.proc is not None and item.proc.poll() is None:
            item.proc.send_signal(signal.SIGTERM)
    end = time.monotonic() + STOP_GRACE
    for item in running:
        if item.proc is None:
            continue
        try:
            item.proc.wait(timeout=max(0.1, end - time.monotonic()))
        except subprocess.TimeoutExpired:
            os.killpg(item.proc.pid, signal.SIGKILL)
            item.proc.wait()
        item.exit_code = item.proc.returncode
        item.ended = time.monotonic()


def _close_stdin(item: Item) -> None:
    if item.proc is not None and item.proc.stdin is not None:
        with contextlib.suppress(BrokenPipeError):
            item.proc.stdin.close()


def _install_term_handler() -> signal.Handlers | Callable[..., object] | int | None:
    def handler(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    return signal.signal(signal.SIGTERM, handler)
