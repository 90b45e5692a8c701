"""The child pool: one ``python -m collab.batch.child`` process per run of a batch.

We keep ``parallel`` children running and up to ``WARM_MAX`` more started and waiting
(imports done, state loaded), so a finished debate is replaced at once. Children start in
their own session, so a terminal Ctrl-C reaches only us; we pass it on as SIGTERM, which
every child turns into a saved, resumable ``interrupted`` state. Processes are started
here and in ``runners/``, nowhere else.

Children may outlive us (a SIGKILL of the batch reaches only the batch). A run whose lock
another process holds is being driven: we adopt it, polling its lock until that driver
ends (within what the run's own limits allow), and drive it ourselves only if it ended
unfinished, so no debate ever has two drivers and none is run twice.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from collab import procfs
from collab.errors import EXIT_FAILED, EXIT_OK, EXIT_USAGE, CollabError
from collab.parallel import sigterm_as_interrupt
from collab.state import load_state
from collab.store import RunDir, storing

POLL = 0.02  # how soon a finished child's slot is refilled
TICK = 0.25  # how often the display re-reads every run's state
# Children kept started and waiting, so runs that end together are replaced at once.
WARM_MAX = 4
STOP_GRACE = 15.0
ADOPT_POLL = 0.2  # how often an adopted run's lock is tried
# Beyond the run's budget, a turn and two Judge attempts: how long an adopted driver may
# still take before we give up waiting for it (the run stays resumable).
ADOPT_SLACK = 60.0
FINAL = {"done": EXIT_OK, "failed": EXIT_FAILED}


@dataclass
class Item:
    """One run of a batch: where its topic came from and, while it runs, its child process."""

    run_id: str
    line: int
    topic: str
    exit_code: int | None = None
    started: float | None = None
    ended: float | None = None
    proc: subprocess.Popen[bytes] | None = field(default=None, repr=False)


@dataclass
class Adopted:
    """A run another process drives (``pid``, 0 if unknown) that we wait for."""

    item: Item
    pid: int
    deadline: float
    next_poll: float = 0.0


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
    adopted: list[Adopted] = []
    pool = min(parallel, WARM_MAX)
    next_tick = 0.0
    with sigterm_as_interrupt():
        try:
            for item in list(todo):  # children of an earlier run of this batch, still going
                if (a := adopt(item)) is not None:
                    todo.remove(item)
                    adopted.append(a)
            while todo or running or warm or adopted:
                now = time.monotonic()
                for item in list(running):
                    if item.proc is not None and item.proc.poll() is not None:
                        item.exit_code = item.proc.returncode
                        item.ended = now
                        running.remove(item)
                        if (a := adopt(item)) is not None:  # another driver took it first
                            adopted.append(a)
                for a in list(adopted):
                    if settled(a, now, todo):
                        adopted.remove(a)
                while len(running) + len(adopted) < parallel and (warm or todo):
                    item = warm.pop(0) if warm else _spawn(todo.pop(0), env)
                    _go(item)
                    item.started = time.monotonic()
                    running.append(item)
                while len(warm) < pool and todo:
                    warm.append(_spawn(todo.pop(0), env))
                if on_tick is not None and now >= next_tick:
                    on_tick()
                    next_tick = now + TICK
                if running or adopted:
                    time.sleep(POLL)
        except KeyboardInterrupt:
            # Every child started so far, also one the signal caught before it was listed.
            _stop([i for i in items if i.proc is not None and i.proc.poll() is None])
            _stop_adopted(adopted)
            return True
        except BaseException:  # e.g. no room for a child's log: end what we started, then say so
            _stop([i for i in items if i.proc is not None and i.proc.poll() is None])
            raise
    return False


def adopt(item: Item) -> Adopted | None:
    """The item as a run to wait for, if another process holds its lock (else None)."""
    run_dir = RunDir(item.run_id)
    pid = run_dir.holder_by_locking()
    if pid is None:
        return None
    try:
        cfg = load_state(run_dir).config
        longest = cfg.budget + cfg.turn_timeout + 2 * cfg.judge_timeout + ADOPT_SLACK
    except CollabError:
        longest = ADOPT_SLACK
    item.proc, item.exit_code, item.ended = None, None, None
    item.started = item.started or time.monotonic()
    return Adopted(item, pid, time.monotonic() + longest)


def settled(a: Adopted, now: float, todo: list[Item]) -> bool:
    """Has the adopted run's driver let go? A run it left unfinished goes back first in
    ``todo``, for a child of ours to resume; past the deadline we stop waiting."""
    if now < a.next_poll:
        return False
    a.next_poll = now + ADOPT_POLL
    item = a.item
    if RunDir(item.run_id).holder_by_locking() is not None:
        if now < a.deadline:
            return False
        item.exit_code, item.ended = EXIT_USAGE, now  # still driven elsewhere: left to it
        return True
    status: str = "unreadable"
    with contextlib.suppress(CollabError):
        status = load_state(RunDir(item.run_id)).status
    if status in FINAL:
        item.exit_code, item.ended = FINAL[status], now
    else:
        todo.insert(0, item)
    return True


def _spawn(item: Item, env: dict[str, str]) -> Item:
    log_path = RunDir(item.run_id).path / "batch.log"
    with storing(log_path):
        log = open(log_path, "ab")  # noqa: SIM115 - handed to the child
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


def _stop_adopted(adopted: list[Adopted]) -> None:
    """Ctrl-C reaches the adopted runs too, when their drivers are children of a batch
    (a run someone drives by hand is left alone); we wait for them to save and let go."""
    ours = [a for a in adopted if _is_batch_child(a.pid, a.item.run_id)]
    for a in ours:
        with contextlib.suppress(OSError):
            os.kill(a.pid, signal.SIGTERM)
    end = time.monotonic() + STOP_GRACE
    for a in ours:
        while RunDir(a.item.run_id).holder_by_locking() is not None and time.monotonic() < end:
            time.sleep(ADOPT_POLL)
        a.item.ended = time.monotonic()


def _is_batch_child(pid: int, run_id: str) -> bool:
    argv = procfs.cmdline(pid)
    if argv is None:
        return False
    return b"collab.batch.child" in argv and run_id.encode() in argv


def _close_stdin(item: Item) -> None:
    if item.proc is not None and item.proc.stdin is not None:
        with contextlib.suppress(BrokenPipeError):
            item.proc.stdin.close()
