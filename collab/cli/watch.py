"""``collab watch ID``: follow a run started elsewhere (a skill, the MCP server, a batch
child, another terminal) with the same live view, from its ``events.jsonl``.

It replays what the run did so far, then follows the file as it grows, and exits with
the run's own exit code when the run finishes. A run that nobody drives any more (its
driver died, or it was stopped) ends the watch with a line saying how to resume it.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from collab.cli.runs import RunId, RunOrBatchId, is_batch_id

if TYPE_CHECKING:
    from collab.cli.live import DebateView

POLL = 0.05
BATCH_POLL = 0.25  # a batch's table is redrawn from every run's state.json
# With no driver alive and nothing new for this long, the run is not going anywhere.
IDLE_GRACE = 2.0
EXIT_BY_STATUS = {"done": 0, "failed": 1, "interrupted": 130}


def watch(run_id: RunOrBatchId) -> None:
    """Follow a running debate live (or replay a finished one); exit with its exit code.
    For a batch: its table of debates, live, until the batch ends."""
    if is_batch_id(run_id):
        raise typer.Exit(watch_batch(run_id))
    # rich's live view and the reports it pulls in cost ~0.3 s to import: only here,
    # not for every collab command (each command module is imported to build the CLI).
    from collab.cli.finish import print_outcome
    from collab.cli.live import DebateView
    from collab.state import load_state
    from collab.store import RunDir

    run_dir = RunDir(run_id)
    load_state(run_dir)  # a clear error for an unknown or damaged run
    view = DebateView()
    try:
        code = feed_view(run_dir.path, view)
    finally:
        view.close()
    state = load_state(run_dir)
    if code is None and state.status != "done":
        view.err.print(f"[yellow]run {run_id} is not running ({state.status})[/yellow]",
                       highlight=False)  # fmt: skip
    print_outcome(state, run_dir, view.err)  # the verdict, or how to go on
    if code is None:
        code = EXIT_BY_STATUS.get(state.status, 1)
    raise typer.Exit(code)


def attach(run_id: RunId) -> None:
    """Join a debate started elsewhere (--detach, a batch, another terminal): its live
    view, then the Judge's summary; a finished one shows its summary at once."""
    from collab.cli.finish import print_outcome
    from collab.cli.live import DebateView
    from collab.eventlog import EventReader
    from collab.events import JudgeFinished
    from collab.state import load_state
    from collab.store import RunDir

    run_dir = RunDir(run_id)
    state = load_state(run_dir)
    if state.status == "running" or _driven(run_dir.path):
        watch(run_id)  # the live view from its start, until it ends
        return
    view = DebateView()
    judged = [
        logged
        for logged in EventReader(run_dir.path / "events.jsonl").new()
        if isinstance(logged.event, JudgeFinished)
    ]
    for logged in judged[-1:]:  # the summary it ended with, not the whole replay
        view.handle(logged)
    view.close()
    print_outcome(state, run_dir, view.err)
    raise typer.Exit(EXIT_BY_STATUS.get(state.status, 1))


def watch_batch(batch_id: str) -> int:
    """The batch's table, redrawn as its runs move, until nobody drives it; its summary
    at the end. The exit code is the batch's own (0 done, 130 interrupted, 1 otherwise)."""
    from collab.batch.record import Batch
    from collab.cli.batch_view import BatchView
    from collab.control.liveness import lock_holder

    b = Batch.load(batch_id)
    view = BatchView(b, follow_hint=False)
    try:
        idle_since = time.monotonic()
        while True:
            view.batch = b = Batch.load(batch_id)  # its status, as its driver saves it
            view.tick(b)
            if lock_holder(b.path) is not None:
                idle_since = time.monotonic()
            elif (
                b.status not in ("pending", "running")
                or time.monotonic() - idle_since >= IDLE_GRACE
            ):
                break  # ended, or left without a driver (collab resume goes on with it)
            time.sleep(BATCH_POLL)
    finally:
        view.close()
    view.summary()
    return EXIT_BY_STATUS.get(b.status, 1)


def feed_view(path: Path, view: DebateView) -> int | None:
    """Feed every event of the run to ``view`` until it finishes (its exit code) or is
    left without a driver (None). A line the reader cannot take is a warning in the
    view, not a guess."""
    # The typed events and their reader, like the view: imported when watch runs, not
    # for every collab command (each command module is imported to build the CLI).
    from collab.eventlog import EventReader
    from collab.events import (
        FollowupFinished,
        FollowupStarted,
        RoundsAdded,
        RunFinished,
        RunStarted,
    )

    reader = EventReader(path / "events.jsonl")
    idle_since = time.monotonic()
    finished: int | None = None
    ended: int | None = None  # the exit code of the last run_finished, while it stands
    asking: set[str] = set()  # follow-ups (collab ask) under way
    while True:
        events = reader.new()
        for problem in reader.problems:
            view.warn(f"skipped: {problem}")
        reader.problems.clear()
        if events:
            idle_since = time.monotonic()
            for logged in events:
                view.handle(logged)
                # A run_finished ends the watch unless the run is driven again after it (a
                # resume, a continue) or a follow-up (collab ask) is under way.
                match logged.event:
                    case RunFinished():
                        ended = view.exit_code
                    case RunStarted() | RoundsAdded():
                        ended = None
                    case FollowupStarted(side=side):
                        asking.add(side)
                    case FollowupFinished(side=side):
                        asking.discard(side)
                finished = None if asking else ended
            continue
        if finished is not None:
            return finished
        if not _driven(path) and time.monotonic() - idle_since >= IDLE_GRACE:
            return None
        time.sleep(POLL)


def _driven(path: Path) -> bool:
    """Is someone driving the run (or a detached driver about to)?"""
    from collab.control.liveness import driver_pid  # the control package: watch only

    return driver_pid(path) is not None
