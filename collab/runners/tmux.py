"""Run each turn in a tmux pane the user can watch.

Inside tmux we split the current window (40 %, titled "Claude-Debate"); outside we
create a detached session and say how to attach. Nothing is typed into the pane: each
turn replaces the pane's process (``respawn-pane``) with ``bash <generated script path>``
given as argv, no shell in between; the pane stays when it ends (``remain-on-exit``) so
its last turn stays on screen. Replies are read from files, never from the screen.
"""

from __future__ import annotations

import os
import shlex
import shutil
import time
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from collab.errors import PrerequisiteError, RunnerError
from collab.runners.base import ProcessResult, TurnJob
from collab.runners.drive import run_turn
from collab.runners.pane_view import remember_previous
from collab.runners.turnfiles import TurnDir, find_bash, wait_for_file

if TYPE_CHECKING:
    from libtmux import Server

PANE_TITLE = "Claude-Debate"
# What a new pane runs until its first turn replaces it: a shell with no rc files and no
# history file, so nothing of the user's setup interferes.
PANE_SHELL = "env HISTFILE=/dev/null bash --noprofile --norc"
# How long a turn waits for the pane's last turn script to end (its view prints the
# summary line) before replacing it anyway.
RESPAWN_WAIT = 2.0


def tmux_available() -> bool:
    return shutil.which("tmux") is not None


def _server_for_env(socket_name: str | None) -> tuple[Server, str | None]:
    """The tmux server to use and, when we are inside it, the pane to split."""
    from libtmux import Server

    if socket_name:
        return Server(socket_name=socket_name), None
    tmux_env = os.environ.get("TMUX", "")
    pane = os.environ.get("TMUX_PANE")
    if tmux_env and pane:
        return Server(socket_path=tmux_env.split(",")[0]), pane
    return Server(), None


class TmuxRunner:
    name = "tmux"

    def __init__(
        self,
        tdir: TurnDir,
        run_id: str,
        *,
        server: Server | None = None,
        split_from: str | None = None,
        beside: str | None = None,
    ) -> None:
        if not tmux_available():
            raise PrerequisiteError(
                "tmux not found on PATH", hint="install tmux, or use --runner subprocess"
            )
        self.tdir = tdir
        self.bash = find_bash()
        if server is None:
            server, split_from = _server_for_env(os.environ.get("COLLAB_TMUX_SOCKET"))
        self.server = server
        self.split_from = split_from
        # A batch puts every debate in its own window of one shared session.
        self.group_session = os.environ.get("COLLAB_TMUX_SESSION") or None
        self.session_name = self.group_session or f"collab-{run_id}"
        self.window_name = run_id if self.group_session else PANE_TITLE
        self.own_session = False
        self.run_id = run_id
        # A companion's pane is split off this pane (both sides of a blind round in view).
        self.beside = beside
        self.pane_id = ""
        self._last: Path | None = None  # the last turn script's ``.ended`` file
        self._create_pane()

    # -- tmux plumbing -------------------------------------------------------------
    def _tmux(self, *args: str) -> list[str]:
        try:
            res = self.server.cmd(*args)
        except Exception as exc:  # libtmux raises its own types for a missing binary
            raise RunnerError(f"tmux {args[0]} failed: {exc}") from None
        if res.returncode != 0:
            err = " ".join(res.stderr) or f"exit {res.returncode}"
            raise RunnerError(f"tmux {args[0]} failed: {err}")
        return list(res.stdout)

    def _create_pane(self) -> None:
        if self.beside and self._pane_exists(self.beside):
            out = self._tmux(
                "split-window", "-h", "-d", "-l", "50%", "-t", self.beside,
                "-P", "-F", "#{pane_id}", PANE_SHELL,
            )  # fmt: skip
        elif self.split_from:
            out = self._tmux(
                "split-window", "-h", "-d", "-l", "40%", "-t", self.split_from,
                "-P", "-F", "#{pane_id}", PANE_SHELL,
            )  # fmt: skip
        elif self.group_session:
            out = self._window_in_group()
        else:
            if self._session_exists():
                # Ours: a pane re-made after a loss, or a session left by a killed run of
                # this id (we hold the run's lock, so nobody drives it). Add a window.
                out = self._tmux(
                    "new-window", "-d", "-t", self.session_name, "-n", PANE_TITLE,
                    "-P", "-F", "#{pane_id}", PANE_SHELL,
                )  # fmt: skip
                self.own_session = True
            else:
                out = self._tmux(
                    "new-session", "-d", "-s", self.session_name, "-n", PANE_TITLE,
                    "-x", "160", "-y", "48", "-P", "-F", "#{pane_id}", PANE_SHELL,
                )  # fmt: skip
                self.own_session = True
        if not out or not out[0].startswith("%"):
            raise RunnerError("tmux did not report the new pane's id")
        self.pane_id = out[0].strip()
        if self.beside:
            self.own_session = False  # a companion only ever removes its own pane
        self._last = None
        # One tmux call: the pane outlives its turn (no "Pane is dead" line), and a title.
        pane = self.pane_id
        self._tmux(
            "set-option", "-p", "-t", pane, "remain-on-exit", "on", ";",
            "set-option", "-p", "-t", pane, "remain-on-exit-format", "", ";",
            "select-pane", "-t", pane, "-T", PANE_TITLE,
        )  # fmt: skip

    def _window_in_group(self) -> list[str]:
        """A window in the batch session; several runs may race to create the session."""
        for _ in range(3):
            if self._session_exists():
                try:
                    return self._tmux(
                        "new-window", "-d", "-t", f"={self.session_name}:", "-n",
                        self.window_name, "-P", "-F", "#{pane_id}", PANE_SHELL,
                    )  # fmt: skip
                except RunnerError:
                    continue
            try:
                return self._tmux(
                    "new-session", "-d", "-s", self.session_name, "-n", self.window_name,
                    "-x", "160", "-y", "48", "-P", "-F", "#{pane_id}", PANE_SHELL,
                )  # fmt: skip
            except RunnerError:
                continue
        raise RunnerError(f"could not open a window in tmux session {self.session_name}")

    def _session_exists(self) -> bool:
        try:
            return self.server.cmd("has-session", "-t", f"={self.session_name}").returncode == 0
        except Exception:
            return False

    def server_alive(self) -> bool:
        try:
            return bool(self.server.is_alive())
        except Exception:
            return False

    # -- Launcher --------------------------------------------------------------------
    def launch(self, script: Path) -> None:
        """The turn's script becomes the pane's process, started by tmux from argv (one
        tmux call). The last turn's script may still be showing its summary: wait for its
        ``.ended`` file, briefly, then replace whatever still runs (``-k``)."""
        if self._last is not None:
            wait_for_file(self._last, time.monotonic() + RESPAWN_WAIT)
            remember_previous(script.parent, self._last.stem, script.stem)
        self._last = script.with_suffix(".ended")
        self._tmux("respawn-pane", "-k", "-t", self.pane_id, self.bash, str(script))

    def nudge(self) -> None:
        """Nothing to re-send: no keys are typed (the script is started from argv)."""

    def alive(self) -> bool:
        """The pane is there and its turn script still runs (a dead pane stays on screen)."""
        try:
            res = self.server.cmd(
                "display-message", "-p", "-t", self.pane_id, "#{pane_id} #{pane_dead}"
            )
        except Exception:
            return False
        return res.returncode == 0 and bool(res.stdout) and res.stdout[0] == f"{self.pane_id} 0"

    def recover(self) -> None:
        if not self.server_alive():
            raise RunnerError("the tmux server went away")
        if self.pane_id and self._pane_exists(self.pane_id):  # its script died: start afresh
            self.server.cmd("kill-pane", "-t", self.pane_id)
        if self.split_from and not self._pane_exists(self.split_from):
            self.split_from = None
        self._create_pane()

    def _pane_exists(self, pane: str) -> bool:
        try:
            return self.server.cmd("display-message", "-p", "-t", pane, "x").returncode == 0
        except Exception:
            return False

    # -- Runner ------------------------------------------------------------------------
    def run(self, job: TurnJob) -> ProcessResult:
        return run_turn(self.tdir, replace(job, view=True), self)

    def attach_hint(self) -> str | None:
        if self.split_from:
            return None
        sock = getattr(self.server, "socket_name", None)
        prefix = f"tmux -L {shlex.quote(sock)}" if sock else "tmux"
        return f"{prefix} attach -t {self.session_name}"

    def companion(self) -> TmuxRunner:
        """A pane beside this one (round 1's other side); it goes when closed."""
        return TmuxRunner(
            self.tdir, self.run_id, server=self.server, split_from=self.split_from,
            beside=self.pane_id,
        )  # fmt: skip

    def close(self) -> None:
        try:
            if self.own_session:
                self.server.cmd("kill-session", "-t", f"={self.session_name}")
            elif self.pane_id:
                self.server.cmd("kill-pane", "-t", self.pane_id)
        except Exception:
            pass
