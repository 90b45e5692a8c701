"""collab.parallel.run_parallel: the seats of a blind round at once, and Ctrl-C.

CPython delivers Ctrl-C (KeyboardInterrupt) between any two bytecodes of the main thread,
also just after a lock was taken and before the ``with`` block that releases it starts:
inside ``threading.Event.wait`` that leaves the event's lock taken for good. The main
thread's wait must survive such an interrupt wherever it lands.
"""

from __future__ import annotations

import os
import select
import threading
from collections.abc import Callable, Iterator

import pytest

from collab.parallel import run_parallel
from collab.runners.base import TurnCancelled


def until_cancelled(cancel: threading.Event, ended: list[str], key: str) -> Callable[[], None]:
    def task() -> None:
        cancel.wait(5)  # a seat's thread, as a runner polls its cancel flag (≤ 5 s)
        ended.append(key)
        raise TurnCancelled

    return task


@pytest.fixture
def interrupted_wait(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """The main thread's first timed wait is interrupted as CPython can interrupt it: on
    an Event, with the event's lock just taken (and so left taken); on select(), plainly."""
    fired: list[str] = []
    main = threading.get_ident
    runner: list[int] = []
    real_wait = threading.Event.wait
    real_select = select.select

    def leaky_wait(self: threading.Event, timeout: float | None = None) -> bool:
        if timeout is not None and not fired and runner and main() == runner[0]:
            fired.append("event")
            self._cond.acquire()  # type: ignore[attr-defined]  # taken, never released
            raise KeyboardInterrupt
        return real_wait(self, timeout)

    def interrupted_select(*args: object) -> object:
        if not fired and runner and main() == runner[0]:
            fired.append("select")
            raise KeyboardInterrupt
        return real_select(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(threading.Event, "wait", leaky_wait)
    monkeypatch.setattr(select, "select", interrupted_select)
    yield runner  # the test puts the id of the thread that runs run_parallel in it
    assert fired, "no wait was interrupted"


def test_ctrl_c_during_the_wait_cancels_every_seat_and_ends(interrupted_wait: list[int]) -> None:
    cancel = threading.Event()
    ended: list[str] = []
    outcome: list[BaseException] = []

    def drive() -> None:
        interrupted_wait.append(threading.get_ident())
        tasks = {k: until_cancelled(cancel, ended, k) for k in ("A", "B", "C")}
        try:
            run_parallel(tasks, cancel)
        except BaseException as exc:  # what the caller would see
            outcome.append(exc)

    t = threading.Thread(target=drive, daemon=True)  # daemon: a hang must not block exit
    t.start()
    t.join(10)
    assert not t.is_alive(), "run_parallel hung after a Ctrl-C in its wait"
    assert len(outcome) == 1 and isinstance(outcome[0], KeyboardInterrupt), outcome
    assert cancel.is_set() and sorted(ended) == ["A", "B", "C"]  # every seat ended first


def test_without_an_interrupt_every_task_runs_and_the_first_real_error_wins() -> None:
    cancel = threading.Event()
    done: list[str] = []

    def ok(key: str) -> Callable[[], None]:
        return lambda: done.append(key)

    run_parallel({"A": ok("A"), "B": ok("B")}, cancel)
    assert sorted(done) == ["A", "B"] and not cancel.is_set()

    def boom() -> None:
        raise ValueError("seat B failed")

    ended: list[str] = []
    with pytest.raises(ValueError, match="seat B failed"):
        run_parallel({"A": until_cancelled(cancel, ended, "A"), "B": boom}, cancel)
    assert cancel.is_set() and ended == ["A"]  # B's failure cancelled A, which ended first


def test_the_last_tasks_byte_ends_the_wait_without_another_select(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The main thread counts the bytes the tasks write, one each as they end: the wake of
    the last one ends its wait. (It counted the keys each task added to a set just *after*
    its byte: woken before the key was in, it went back to select() and slept a whole
    ``WAKE``, ~13 ms of every blind round.) The task is held just after its write, as a
    thread preempted there, until the main thread calls select() again or returns."""
    real_write, real_read, real_select = os.write, os.read, select.select
    read, go_on = threading.Event(), threading.Event()
    selects: list[bool] = []  # per select() call: was the task's byte read before it?

    def write(fd: int, data: bytes) -> int:
        n = real_write(fd, data)
        if threading.current_thread().name.startswith("collab-turn-"):
            go_on.wait(10)
        return n

    def read_(fd: int, n: int) -> bytes:
        out = real_read(fd, n)
        if not threading.current_thread().name.startswith("collab-turn-"):
            read.set()
        return out

    def counted(*args: object) -> object:
        selects.append(read.is_set())
        if read.is_set():
            go_on.set()  # the task may go on: it is waited for again anyway
        return real_select(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "write", write)
    monkeypatch.setattr(os, "read", read_)
    monkeypatch.setattr(select, "select", counted)
    try:
        run_parallel({"A": lambda: None}, threading.Event())
    finally:
        go_on.set()
    assert selects == [False], "select() again after the last task's byte was read"
