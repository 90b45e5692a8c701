"""Run a few blocking tasks at once (the two sides of a blind round), keeping Ctrl-C.

Signals reach only the main thread, so the tasks run on worker threads while the main
thread waits for them (in select() on a pipe: no lock a Ctrl-C could leave taken). On
Ctrl-C/SIGTERM (KeyboardInterrupt) or when one task
fails, ``cancel`` is set: the runner of a task's agent call polls it, kills its agent's
process group and ends (``TurnCancelled``). Then the first real
error is raised in the main thread (KeyboardInterrupt first), after every task ended.

``hold_signals``: once a run is stopping, further Ctrl-C/SIGTERM are ignored, so that
the state is saved and the temp dir removed whatever the user presses (the run then
exits 130; its caller restores the handlers).
"""

from __future__ import annotations

import os
import select
import signal
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, suppress
from typing import TYPE_CHECKING

from collab.runners.base import TurnCancelled

if TYPE_CHECKING:
    from collab.caller import AgentCaller
    from collab.runners.base import Runner

JOIN_GRACE = 20.0  # after a cancel: how long a task may take to kill its agent and end
WAKE = 0.05  # the main thread looks at the tasks at least this often


def at_once(
    caller: AgentCaller,
    runner: Runner,
    tasks: Mapping[str, Callable[[AgentCaller], None]],
    cancel: threading.Event,
) -> None:
    """Every task at once, each with a runner of its own (the first ``runner``, the
    others its companions): never more agent processes than tasks (seats)."""
    if len(tasks) == 1:
        next(iter(tasks.values()))(caller)
        return
    companions: list[Runner] = []
    try:
        callers = [caller]
        for _ in range(len(tasks) - 1):
            companions.append(runner.companion(len(tasks)))
            callers.append(caller.with_runner(companions[-1]))

        def bound(task: Callable[[AgentCaller], None], c: AgentCaller) -> Callable[[], None]:
            return lambda: task(c)

        pairs = zip(tasks.items(), callers, strict=True)
        run_parallel({key: bound(task, c) for (key, task), c in pairs}, cancel=cancel)
    finally:
        for companion in companions:
            companion.close()


def run_parallel(tasks: Mapping[str, Callable[[], None]], cancel: threading.Event) -> None:
    errors: dict[str, BaseException] = {}
    # Each task, when it ends, writes a byte to a pipe and then adds its key to ``ended``;
    # the main thread waits in select() on the pipe and takes no lock. Not Thread.join: a
    # join interrupted by Ctrl-C can leave a running thread looking stopped (CPython
    # 3.11), and the task's agent would be orphaned at exit. Not Event.wait either: a
    # Ctrl-C landing just after the main thread took the event's lock (inside its
    # ``with``, before the block starts) leaves the lock taken for good, and the task's
    # ``set()`` and the next wait then block forever.
    # The wait ends on the bytes read, one per task: the wake of the last one ends it (the
    # keys in ``ended`` lag their byte, and waited for, cost a whole WAKE more of the round).
    # ``ended`` is the fallback for bytes a Ctrl-C landing mid-count left uncounted.
    ended: set[str] = set()
    woken = 0
    wake_r, wake_w = os.pipe()

    def work(key: str, task: Callable[[], None]) -> None:
        try:
            task()
        except BaseException as exc:
            errors[key] = exc
            cancel.set()
        finally:
            os.write(wake_w, b".")  # then ended: once all are in, no task writes again
            ended.add(key)

    def all_ended() -> bool:
        return woken >= len(tasks) or len(ended) == len(tasks)

    def wait_ended(deadline: float | None) -> None:
        nonlocal woken
        while not all_ended():
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                return
            if select.select([wake_r], [], [], WAKE if left is None else min(left, WAKE))[0]:
                woken += len(os.read(wake_r, 64))

    try:
        for key, task in tasks.items():
            name = f"collab-turn-{key}"
            threading.Thread(target=work, args=(key, task), name=name, daemon=True).start()
        wait_ended(None)
    except KeyboardInterrupt:
        cancel.set()
        wait_ended(time.monotonic() + JOIN_GRACE)
        raise
    finally:
        if all_ended():  # every byte written: else a task still to end writes to it: left open
            os.close(wake_r)
            os.close(wake_w)
    real = [e for e in errors.values() if not isinstance(e, TurnCancelled)]
    if real:
        raise real[0]
    if errors:
        raise next(iter(errors.values()))


def hold_signals() -> None:
    """Ignore Ctrl-C and SIGTERM from now on (in the main thread; elsewhere a no-op)."""
    with suppress(ValueError):  # not the main thread: the signals go to another one
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, lambda signum, frame: None)


@contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM raises KeyboardInterrupt, as Ctrl-C does, while inside (in the main thread;
    elsewhere a no-op): a run stops its agents and saves a resumable state, a batch stops
    its children. The one SIGTERM handler; the old ones are put back after."""

    def handler(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    try:
        old = signal.signal(signal.SIGTERM, handler)
    except ValueError:  # not the main thread
        yield
        return
    old_int = signal.getsignal(signal.SIGINT)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)
        if old_int is not None:  # hold_signals may have replaced it
            signal.signal(signal.SIGINT, old_int)
