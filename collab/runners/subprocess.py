"""Run each turn's script as a plain child process: no tmux needed (CI, skills, servers)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from collab.errors import RunnerError
from collab.runners.base import ProcessResult, TurnJob
from collab.runners.drive import run_turn
from collab.runners.turnfiles import TurnDir, find_bash


class SubprocessRunner:
    name = "subprocess"

    def __init__(self, tdir: TurnDir) -> None:
        self.tdir = tdir
        self.bash = find_bash()
        self._proc: subprocess.Popen[bytes] | None = None

    def run(self, job: TurnJob) -> ProcessResult:
        try:
            return run_turn(self.tdir, job, self)
        finally:
            self._reap()

    def launch(self, script: Path) -> None:
        self._reap()
        self._proc = subprocess.Popen(
            [self.bash, str(script)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            close_fds=True,
        )

    def nudge(self) -> None:
        return None

    def alive(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def recover(self) -> None:
        raise RunnerError("the turn's script died before recording its exit status")

    def attach_hint(self) -> str | None:
        return None

    def companion(self, at_once: int | None = None) -> SubprocessRunner:
        return SubprocessRunner(self.tdir)

    def _reap(self) -> None:
        if self._proc is not None:
            try:
                self._proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
            self._proc = None

    def close(self) -> None:
        self._reap()
