"""Which runner a run uses: ``runner_factory`` picks one; ``check_runner`` says, before
anything starts, whether that choice can run here."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from collab.errors import PrerequisiteError
from collab.options import RunnerKind
from collab.runners.base import Runner
from collab.runners.subprocess import SubprocessRunner
from collab.runners.tmux import TWO_SEATS, TmuxRunner, tmux_available
from collab.runners.turnfiles import TurnDir, find_bash

# Makes the runner of one run, given its private temp dir and its run id.
RunnerFactory = Callable[[TurnDir, str], Runner]


def runner_factory(kind: RunnerKind, seats: Sequence[str] = TWO_SEATS) -> RunnerFactory:
    """``seats``: the run's seat labels in order (the tmux runner tiles one pane per seat
    for the blind round, and picks a split or a window of its own by their number)."""
    use_tmux = kind == "tmux" or (kind == "auto" and tmux_available())

    def factory(tdir: TurnDir, run_id: str) -> Runner:
        if use_tmux:
            return TmuxRunner(tdir, run_id, seats=seats)
        return SubprocessRunner(tdir)

    return factory


def check_runner(kind: RunnerKind) -> None:
    """bash and setsid always; tmux when asked for by name (exit 3 otherwise)."""
    find_bash()
    if kind == "tmux" and not tmux_available():
        raise PrerequisiteError(
            "tmux not found on PATH", hint="install tmux, or use --runner subprocess"
        )
