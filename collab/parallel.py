"""Run a few blocking tasks at once (the two sides of a blind round), keeping Ctrl-C.

Signals reach only the main thread, so the tasks run on worker threads while the main
thread waits in short joins. On Ctrl-C/SIGTERM (KeyboardInterrupt) or when one task
fails, ``cancel`` is set: the runner of a task's agent call polls it, kills its agent's
process group and ends (``TurnCancelled``). Then the first real
error is raised in the main thread (KeyboardInterrupt first), after every task ended.

``hold_signals``: once a run is stopping, further Ctrl-C/SIGTERM are ignored, so that
the state is saved and the temp dir removed whatever the user presses (the run then
exits 130; its caller restores the handlers).
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, suppress

from collab.runners.base import TurnCancelled

JOIN_STEP = 0.05
JOIN_GRACE = 20.0  # after a cancel: how long a task may take to kill its agent and end


def run_parallel(tasks: Mapping[str, Callable[[], None]], cancel: threading.Event) -> None:
    errors: dict[str, BaseException] = {}
    # Each task says when it is done. The main thread waits on these, not on
    # Thread.join: a join interrupted by Ctrl-C can leave a running thread looking
    # stopped (CPython 3.11), and the next join would then return at once, leaving the
    # task's agent to be orphaned when the process exits.
    done = {key: threading.Event() for key in tasks}

    def work(key: str, task: Callable[[], None]) -> None:
        try:
            task()
        except BaseException as exc:
            errors[key] = exc
            cancel.set()
        finally:
            done[key].set()

    for key, task in tasks.items():
        name = f"collab-turn-{key}"
        threading.Thread(target=work, args=(key, task), name=name, daemon=True).start()
    try:
        while not all(ev.is_set() for ev in done.values()):
            for ev in done.values():
                ev.wait(JOIN_STEP)
    except KeyboardInterrupt:
        cancel.set()
        deadline = time.monotonic() + JOIN_GRACE
        for ev in done.values():
            ev.wait(max(0.0, deadline - time.monotonic()))
        raise
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
