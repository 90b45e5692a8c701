"""Small helpers shared by tests: poll a condition with a deadline, never a bare sleep."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path


def wait_until(pred: Callable[[], bool], timeout: float = 10.0, every: float = 0.01) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(every)
    return pred()


def pid_alive(pid: int) -> bool:
    """True for a live, non-zombie process."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2 :].split()[0] != "Z"


def env_tuple(**extra: str) -> tuple[tuple[str, str], ...]:
    env = dict(os.environ)
    env.update(extra)
    return tuple(sorted(env.items()))
