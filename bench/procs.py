"""Child processes timed from the outside: wall time, exit status, and peak memory."""

from __future__ import annotations

import os
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any


def _status_kb(pid: int) -> tuple[int, int] | None:
    """(VmRSS, VmHWM) in kB, or None once the process is gone or a zombie."""
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    rss = hwm = -1
    for line in text.splitlines():
        if line.startswith("VmRSS:"):
            rss = int(line.split()[1])
        elif line.startswith("VmHWM:"):
            hwm = int(line.split()[1])
    if rss < 0 or hwm < 0:
        return None
    return rss, hwm


def _children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(p) for p in text.split()]


@dataclass
class Watched:
    argv: list[str]
    returncode: int
    wall: float  # seconds, Popen → exit
    stdout: str
    stderr: str
    hwm_kb: int  # the process's own VmHWM (last sample before it exited)
    maxrss_kb: int  # ru_maxrss from wait4 (the process or its largest reaped descendant)
    tree_peak_kb: int = 0  # peak of VmRSS summed over the process and its direct children
    child_hwm_kb: dict[int, int] = field(default_factory=dict)
    samples: int = 0
    cpu: float = 0.0  # user + sys seconds from wait4 (the process and what it waited for)


def run_watched(
    argv: Sequence[str],
    env: dict[str, str],
    cwd: Path,
    *,
    interval: float = 0.01,
    tree: bool = False,
    timeout: float = 900.0,
) -> Watched:
    """Run ``argv``; sample /proc/PID/status every ``interval`` (and its children's if ``tree``).

    A helper thread blocks in wait4, so the wall time is exact and the rusage is kept.
    """
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        return _run_watched(argv, env, cwd, out, err, interval, tree, timeout)


def _run_watched(
    argv: Sequence[str],
    env: dict[str, str],
    cwd: Path,
    out: IO[bytes],
    err: IO[bytes],
    interval: float,
    tree: bool,
    timeout: float,
) -> Watched:
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        list(argv), stdin=subprocess.DEVNULL, stdout=out, stderr=err, env=env, cwd=cwd
    )
    done: dict[str, Any] = {}

    def reap() -> None:
        _, status, usage = os.wait4(proc.pid, 0)
        done["t"] = time.perf_counter()
        done["status"] = status
        done["maxrss"] = usage.ru_maxrss
        done["cpu"] = usage.ru_utime + usage.ru_stime

    waiter = threading.Thread(target=reap, daemon=True)
    waiter.start()
    hwm = 0
    tree_peak = 0
    child_hwm: dict[int, int] = {}
    samples = 0
    deadline = t0 + timeout
    try:
        while waiter.is_alive():
            st = _status_kb(proc.pid)
            if st is not None:
                hwm = max(hwm, st[1])
                total = st[0]
                if tree:
                    for child in _children(proc.pid):
                        cst = _status_kb(child)
                        if cst is None:
                            continue
                        total += cst[0]
                        child_hwm[child] = max(child_hwm.get(child, 0), cst[1])
                tree_peak = max(tree_peak, total)
                samples += 1
            if time.perf_counter() > deadline:
                os.kill(proc.pid, signal.SIGKILL)
            waiter.join(interval)
    except BaseException:
        if waiter.is_alive():
            os.kill(proc.pid, signal.SIGTERM)
            waiter.join(20)
        raise
    proc.returncode = os.waitstatus_to_exitcode(done["status"])
    out.seek(0)
    err.seek(0)
    w = Watched(
        argv=list(argv),
        returncode=proc.returncode,
        wall=done["t"] - t0,
        stdout=out.read().decode("utf-8", "replace"),
        stderr=err.read().decode("utf-8", "replace"),
        hwm_kb=hwm,
        maxrss_kb=int(done["maxrss"]),
        tree_peak_kb=tree_peak,
        child_hwm_kb=child_hwm,
        samples=samples,
        cpu=float(done["cpu"]),
    )
    return w


def run_cmd(
    argv: Sequence[str],
    env: dict[str, str],
    cwd: Path,
    *,
    timeout: float,
    stdin: IO[bytes] | int | None = None,
    stdout: int = subprocess.PIPE,
) -> tuple[float, subprocess.CompletedProcess[bytes]]:
    """Run ``argv`` to its end, stderr captured: its wall seconds and its result."""
    t0 = time.perf_counter()
    res = subprocess.run(
        list(argv),
        stdin=stdin,
        stdout=stdout,
        stderr=subprocess.PIPE,
        env=env,
        cwd=cwd,
        timeout=timeout,
        check=False,
    )
    return time.perf_counter() - t0, res


def output_tail(res: subprocess.CompletedProcess[bytes], lines: int = 3) -> str:
    """The last lines of stderr (of stdout when stderr is empty), for an error message."""
    text = (res.stderr or res.stdout or b"").decode("utf-8", "replace")
    return " | ".join(text.strip().splitlines()[-lines:])


def time_cmd(argv: Sequence[str], env: dict[str, str], cwd: Path, timeout: float = 60) -> float:
    """Wall seconds of one run (output discarded); raises if it fails."""
    wall, res = run_cmd(
        argv, env, cwd, timeout=timeout, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL
    )
    if res.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} exited {res.returncode}: {output_tail(res)}")
    return wall
