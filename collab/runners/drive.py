"""Drive one turn through the file protocol, whatever launches the script."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Protocol

from collab.errors import RunnerError
from collab.runners.base import ProcessResult, TurnJob
from collab.runners.turnfiles import TurnDir, kill_group, wait_for_exit, wait_for_file

START_WAIT = 5.0  # how long the script may take to record its pid before we nudge
MAX_RECOVERIES = 2


class Launcher(Protocol):
    def launch(self, script: Path) -> None: ...

    def nudge(self) -> None:
        """Re-send Enter (a known tmux pitfall: the first one can be lost)."""

    def alive(self) -> bool: ...

    def recover(self) -> None:
        """Make a fresh place to run in after ``alive`` turned false; raise RunnerError if none."""


def run_turn(tdir: TurnDir, job: TurnJob, launcher: Launcher) -> ProcessResult:
    try:
        return _run_turn(tdir, job, launcher)
    except BaseException:
        # Ctrl-C, SIGTERM or a lost server: the agent runs in its own session, so no
        # signal reaches it unless we send one. Never leave it running.
        pid = tdir.pid(job.step)
        if pid is None and tdir.file(job.step, "started").exists():
            # Launched but its pid not yet recorded: wait for it rather than orphan it.
            wait_for_file(tdir.file(job.step, "pid"), time.monotonic() + 2.0)
            pid = tdir.pid(job.step)
        if pid is not None:
            kill_group(pid, grace=1.0)
        raise


def _run_turn(tdir: TurnDir, job: TurnJob, launcher: Launcher) -> ProcessResult:
    started = time.monotonic()
    deadline = started + job.timeout
    restarts = 0
    while True:
        script = tdir.write(job)
        launcher.launch(script)
        pid_path = tdir.file(job.step, "pid")
        if not wait_for_file(pid_path, min(deadline, time.monotonic() + START_WAIT)):
            launcher.nudge()
            if not wait_for_file(pid_path, min(deadline, time.monotonic() + START_WAIT)):
                if time.monotonic() >= deadline:
                    return _timed_out(tdir, job, started, restarts)
                if not launcher.alive():
                    restarts = _recover(launcher, restarts)
                    continue
                raise RunnerError(f"turn {job.step} did not start within {2 * START_WAIT:.0f}s")
        outcome = wait_for_exit(
            tdir, job.step, deadline, launcher.alive, on_output=job.on_output, cancel=job.cancel
        )
        if outcome.lost:
            pid = tdir.pid(job.step)
            if pid is not None:
                kill_group(pid)
            restarts = _recover(launcher, restarts)
            continue
        if outcome.timed_out:
            return _timed_out(tdir, job, started, restarts)
        stdout, stderr = tdir.outputs(job.step)
        return ProcessResult(
            exit_code=outcome.exit_code,
            stdout=stdout,
            stderr=stderr,
            timed_out=False,
            duration=outcome.noticed_at - started,
            detect_latency=_since_mtime(tdir.file(job.step, "exit")),
            pane_restarts=restarts,
        )


def _recover(launcher: Launcher, restarts: int) -> int:
    if restarts >= MAX_RECOVERIES:
        raise RunnerError("the turn's pane or process kept disappearing")
    launcher.recover()
    return restarts + 1


def _timed_out(tdir: TurnDir, job: TurnJob, started: float, restarts: int) -> ProcessResult:
    pid = tdir.pid(job.step)
    if pid is not None and not kill_group(pid):
        raise RunnerError(f"could not kill the agent of turn {job.step} (pid {pid})")
    # Let the script record the kill so the pane is free for the next turn.
    wait_for_file(tdir.file(job.step, "exit"), time.monotonic() + 2.0)
    stdout, stderr = tdir.outputs(job.step)
    return ProcessResult(
        exit_code=None,
        stdout=stdout,
        stderr=stderr,
        timed_out=True,
        duration=time.monotonic() - started,
        pane_restarts=restarts,
    )


def _since_mtime(path: Path) -> float:
    """Seconds since the exit file was written: how late we noticed the turn end."""
    try:
        return max(0.0, time.time() - path.stat().st_mtime)
    except OSError:
        return 0.0
