"""The wait for a turn's exit file polls the run's cancel flag: a turn on another thread
ends within a poll of the flag being set (no exception raised from an output hook)."""

from __future__ import annotations

import threading
import time

import pytest

from collab.runners.base import TurnCancelled
from collab.runners.turnfiles import TurnDir, wait_for_exit


def test_a_set_flag_ends_the_wait_at_once() -> None:
    """The flag is set mid-wait (by the liveness probe, on the waiting thread: no timer,
    no wall-clock limit): the wait ends at its very next poll, long before its deadline."""
    tdir = TurnDir()
    try:
        cancel = threading.Event()
        probes: list[bool] = []

        def alive() -> bool:
            probes.append(cancel.is_set())
            cancel.set()
            return True

        with pytest.raises(TurnCancelled):
            wait_for_exit(tdir, "r1-A-1", time.monotonic() + 5.0, alive, 0.0, cancel=cancel)
        assert probes == [False]  # set once, seen at the next poll: never probed again
    finally:
        tdir.cleanup()


def test_without_the_flag_the_wait_runs_to_its_deadline() -> None:
    tdir = TurnDir()
    try:
        outcome = wait_for_exit(
            tdir, "r1-A-1", time.monotonic() + 0.05, lambda: True, cancel=threading.Event()
        )
        assert outcome.timed_out and outcome.exit_code is None
        (tdir.path / "r1-B-1.exit").write_text("0\n")
        done = wait_for_exit(tdir, "r1-B-1", time.monotonic() + 5.0, lambda: True)
        assert (done.exit_code, done.timed_out) == (0, False)
    finally:
        tdir.cleanup()
