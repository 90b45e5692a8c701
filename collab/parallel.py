"""Run a few blocking tasks at once (the two sides of a blind round), keeping Ctrl-C.

Signals reach only the main thread, so the tasks run on worker threads while the main
thread waits in short joins. On Ctrl-C/SIGTERM (KeyboardInterrupt) or when one task
fails, ``cancel`` is set: a task's agent call notices it within ~50 ms
(``TurnCancelled``), kills its agent's process group and ends. Then the first real
error is raised in the main thread (KeyboardInterrupt first), after every task ended.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping

from collab.runners.base import TurnCancelled

JOIN_STEP = 0.05
JOIN_GRACE = 20.0  # after a cancel: how long a task may take to kill its agent and end


def run_parallel(tasks: Mapping[str, Callable[[], None]], cancel: threading.Event) -> None:
    errors: dict[str, BaseException] = {}

    def work(key: str, task: Callable[[], None]) -> None:
        try:
            task()
        except BaseException as exc:
            errors[key] = exc
            cancel.set()

    threads = [
        threading.Thread(target=work, args=(key, task), name=f"collab-turn-{key}", daemon=True)
        for key, task in tasks.items()
    ]
    for t in threads:
        t.start()
    try:
        while any(t.is_alive() for t in threads):
            for t in threads:
                t.join(JOIN_STEP)
    except KeyboardInterrupt:
        cancel.set()
        for t in threads:
            t.join(JOIN_GRACE)
        raise
    real = [e for e in errors.values() if not isinstance(e, TurnCancelled)]
    if real:
        raise real[0]
    if errors:
        raise next(iter(errors.values()))
