"""Run each turn in a tmux pane the user can watch.

Each pane runs one long-lived process from the moment it is made: our live view
(``collab.runners.pane_view``), started by tmux from argv (no shell, so nothing is ever
typed into the pane or echoed by it). A turn is launched by writing its name (``r1-A-1``,
ours) to the pane's fifo in the run's private temp dir; the view starts the turn script
as its child and shows the reply as it streams. The pane stays when its view ends
(``remain-on-exit``). Replies are read from files, never from the screen.

Where the panes go follows :mod:`collab.runners.tmux_layout`: inside tmux the seat area
is split off the user's pane when it leaves the user ``USER_MIN`` columns and each seat
pane the minimums, else the turns get a window of their own in the user's session (the
attach hint names it, printed once). Outside tmux: a detached session, said how to attach.
A blind round's panes are tiled over the seat area, one per seat, in seat order.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import shlex
import shutil
import sys
import threading
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from collab.errors import PrerequisiteError, RunnerError
from collab.runners.base import ProcessResult, TurnJob
from collab.runners.drive import run_turn
from collab.runners.tmux_layout import best_tiling, plan_panes, window_hint
from collab.runners.turnfiles import TurnDir, find_bash

if TYPE_CHECKING:
    from libtmux import Server

# A pane's title until its first turn names the seat and agent that speak in it.
PANE_TITLE = "collab"
# The seats at the table when the run does not say (the two-seat debate).
TWO_SEATS: tuple[str, ...] = ("A", "B")
# The live view: a fixed program of ours, run as a file with generated paths only;
# isolated (-I: no script dir on sys.path, no PYTHON* variables), no site (-S).
_VIEW_FILE = Path(__file__).resolve().with_name("pane_view.py")
_PACKAGE_ROOT = Path(__file__).resolve().parents[2]
_FIFOS = itertools.count(1)


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
        seats: Sequence[str] = TWO_SEATS,
        pane: tuple[str, int] | None = None,
    ) -> None:
        """``seats``: the seats at the table (labels, in order), for the blind round's
        tiling and the split rule. ``beside``/``pane``: a companion's (see
        :meth:`companion`), made by the runner it sits beside."""
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
        self.seats = tuple(seats) or TWO_SEATS
        # A batch puts every debate in its own window of one shared session.
        self.group_session = os.environ.get("COLLAB_TMUX_SESSION") or None
        self.session_name = self.group_session or f"collab-{run_id}"
        self.window_name = run_id if self.group_session else f"collab-{run_id}"
        self.own_session = False
        # Inside tmux, when the user's pane is too small to split: a window of our own.
        self.own_window: str | None = None
        self.run_id = run_id
        # A companion's pane is one cell of the blind round's tiling beside this pane.
        self.beside = beside
        self.pane_id = ""
        self._fifo = -1  # the write end of the pane's fifo (its view reads the turn names)
        self._lock = threading.Lock()
        self._pool: list[tuple[str, int]] = []  # tiled panes not yet handed out
        self._companions: list[TmuxRunner] = []
        self._main: TmuxRunner | None = None
        if pane is not None:
            self.pane_id, self._fifo = pane
        else:
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

    def _view(self) -> tuple[list[str], int]:
        """The argv of a new pane's live view, and the write end of its fifo."""
        name = f"pane-{next(_FIFOS)}.fifo"
        path = self.tdir.path / name
        os.mkfifo(path, 0o600)
        # Read-write: never blocks, and the view never sees the end while we hold it.
        fd = os.open(path, os.O_RDWR | os.O_CLOEXEC)
        argv = [sys.executable, "-I", "-S", str(_VIEW_FILE), str(_PACKAGE_ROOT),
                str(self.tdir.path), name, self.bash]  # fmt: skip
        return argv, fd

    def _create_pane(self) -> None:
        view, fd = self._view()
        try:
            out = self._new_pane(view)
        except BaseException:
            os.close(fd)
            raise
        if not out or not out[0].startswith("%"):
            os.close(fd)
            raise RunnerError("tmux did not report the new pane's id")
        self._close_fifo()
        self.pane_id, self._fifo = out[0].strip(), fd
        if self.beside:
            self.own_session = False  # a companion only ever removes its own pane
        self._dress(self.pane_id)

    def _new_pane(self, view: list[str]) -> list[str]:
        if self.beside and self._pane_exists(self.beside):
            return self._tmux(
                "split-window", "-h", "-d", "-l", "50%", "-t", self.beside,
                "-P", "-F", "#{pane_id}", *view,
            )  # fmt: skip
        if self.split_from:
            return self._split_or_window(view)
        if self.group_session:
            return self._window_in_group(view)
        self.own_session = True
        if self._session_exists():
            # Ours: a pane re-made after a loss, or a session left by a killed run of
            # this id (we hold the run's lock, so nobody drives it). Add a window.
            return self._tmux(
                "new-window", "-d", "-t", f"={self.session_name}:", "-n", self.window_name,
                "-P", "-F", "#{pane_id}", *view,
            )  # fmt: skip
        return self._tmux(
            "new-session", "-d", "-s", self.session_name, "-n", self.window_name,
            "-x", "160", "-y", "48", "-P", "-F", "#{pane_id}", *view,
        )  # fmt: skip

    def _split_or_window(self, view: list[str]) -> list[str]:
        """Inside tmux: the seat area split off the user's pane, or a window of our own in
        the user's session when that pane cannot give the seats room (the split rule)."""
        assert self.split_from is not None
        (line,) = self._tmux(
            "display-message", "-p", "-t", self.split_from,
            "#{pane_width} #{pane_height} #{session_id}",
        )  # fmt: skip
        width, height, session = line.split()
        plan = plan_panes(int(width), int(height), len(self.seats), user_pane=True)
        if plan.where == "split" and self.own_window is None:
            return self._tmux(
                "split-window", "-h", "-d", "-l", str(plan.area_width), "-t", self.split_from,
                "-P", "-F", "#{pane_id}", *view,
            )  # fmt: skip
        out = self._tmux(
            "new-window", "-d", "-t", f"{session}:", "-n", self.window_name,
            "-P", "-F", "#{pane_id} #{session_name}", *view,
        )  # fmt: skip
        pane, self.own_window = out[0].split(" ", 1) if out else ("", "")
        return [pane]

    def _dress(self, *panes: str) -> None:
        """One tmux call: each pane outlives its view (no "Pane is dead" line), titled."""
        args: list[str] = []
        for pane in panes:
            args += ["set-option", "-p", "-t", pane, "remain-on-exit", "on", ";",
                     "set-option", "-p", "-t", pane, "remain-on-exit-format", "", ";",
                     "select-pane", "-t", pane, "-T", PANE_TITLE, ";"]  # fmt: skip
        self._tmux(*args[:-1])

    def _window_in_group(self, view: list[str]) -> list[str]:
        """A window in the batch session; several runs may race to create the session."""
        for _ in range(3):
            if self._session_exists():
                try:
                    return self._tmux(
                        "new-window", "-d", "-t", f"={self.session_name}:", "-n",
                        self.window_name, "-P", "-F", "#{pane_id}", *view,
                    )  # fmt: skip
                except RunnerError:
                    continue
            try:
                return self._tmux(
                    "new-session", "-d", "-s", self.session_name, "-n", self.window_name,
                    "-x", "160", "-y", "48", "-P", "-F", "#{pane_id}", *view,
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

    def _close_fifo(self) -> None:
        if self._fifo >= 0:
            with contextlib.suppress(OSError):
                os.close(self._fifo)
            self._fifo = -1

    # -- Launcher --------------------------------------------------------------------
    def launch(self, script: Path) -> None:
        """The pane's view starts the turn's script: its name goes down the fifo (no tmux
        call, nothing to wait for: the view shows the last turn's summary on its own)."""
        try:
            os.write(self._fifo, f"{script.stem}\n".encode("ascii"))
        except OSError as exc:
            raise RunnerError(f"the pane's view cannot be reached: {exc}") from None

    def nudge(self) -> None:
        """Nothing to re-send: no keys are typed (the view reads the fifo)."""

    def alive(self) -> bool:
        """The pane is there and its view still runs (a dead pane stays on screen)."""
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
        if self.pane_id and self._pane_exists(self.pane_id):  # its view died: start afresh
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
        sock = getattr(self.server, "socket_name", None)
        if self.own_window is not None:
            return window_hint(self.own_window, self.window_name, sock)
        if self.split_from:
            return None
        prefix = f"tmux -L {shlex.quote(sock)}" if sock else "tmux"
        return f"{prefix} attach -t {self.session_name}"

    def companion(self, at_once: int | None = None) -> TmuxRunner:
        """A pane for a turn at the same time as this one's (the blind round): the first
        asked for tiles this pane's area into one pane per turn of the round (``at_once``,
        this one's included; every seat's when not said — a resumed round re-runs fewer),
        in seat order (this pane stays the first); later ones take the next cell. Each
        goes when closed."""
        with self._lock:
            if not self._companions and not self._pool:
                self._pool = self._tile(at_once or len(self.seats))
            pane = self._pool.pop(0) if self._pool else None
            other = TmuxRunner(
                self.tdir, self.run_id, server=self.server, split_from=self.split_from,
                beside=self.pane_id, seats=self.seats, pane=pane,
            )  # fmt: skip
            other._main = self
            self._companions.append(other)
        return other

    def _tile(self, panes_at_once: int) -> list[tuple[str, int]]:
        """Split this pane into a tiling of ``panes_at_once`` panes; the new ones in seat
        order."""
        try:
            (line,) = self._tmux(
                "display-message", "-p", "-t", self.pane_id, "#{pane_width} #{pane_height}"
            )
            width, height = (int(x) for x in line.split())
        except (RunnerError, ValueError):
            return []
        tiling = best_tiling(width, height, panes_at_once)
        panes: dict[int, tuple[str, int]] = {0: (self.pane_id, -1)}
        try:
            for step in tiling.splits:
                view, fd = self._view()
                try:
                    out = self._tmux(
                        "split-window", f"-{step.direction}", "-d", "-l", str(step.size),
                        "-t", panes[step.target][0], "-P", "-F", "#{pane_id}", *view,
                    )  # fmt: skip
                except RunnerError:
                    os.close(fd)
                    raise
                panes[step.makes] = (out[0].strip(), fd)
            made = [panes[i] for i in sorted(panes) if i]
            self._dress(*(p for p, _ in made))
        except RunnerError:
            made = [panes[i] for i in sorted(panes) if i]
            self._drop(made)
            return []
        return made

    def _drop(self, panes: Sequence[tuple[str, int]]) -> None:
        for pane, fd in panes:
            with contextlib.suppress(OSError):
                os.close(fd)
            with contextlib.suppress(Exception):
                self.server.cmd("kill-pane", "-t", pane)

    def _companion_closed(self, other: TmuxRunner) -> None:
        with self._lock:
            if other in self._companions:
                self._companions.remove(other)
            if not self._companions:  # the round is over: cells nobody took go too
                pool, self._pool = self._pool, []
                self._drop(pool)

    def close(self) -> None:
        self._close_fifo()
        try:
            if self.own_session:
                self.server.cmd("kill-session", "-t", f"={self.session_name}")
            elif self.pane_id:
                self.server.cmd("kill-pane", "-t", self.pane_id)
        except Exception:
            pass
        if self._main is not None:
            self._main._companion_closed(self)
        else:
            for other in list(self._companions):
                other.close()
            self._drop(self._pool)
            self._pool = []
