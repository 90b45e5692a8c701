"""Follow-up on a run started elsewhere: its result once it has ended, and stopping it
the way Ctrl-C does (SIGTERM to its driver: agents stopped, state saved, resumable; a
driver stopped before it could save, cancel saves for it)."""

from __future__ import annotations

import contextlib
import time

from collab.control.liveness import driver_of, pid_alive
from collab.control.status import status_document
from collab.errors import RunLockedError, UsageError
from collab.report import result_document
from collab.runners.detach import stop_driver
from collab.state import RunState, load_state
from collab.store import RunDir

CANCEL_WAIT = 30.0
FINISH_WAIT = 10.0
_POLL = 0.05


class RunStillGoing(UsageError):
    """The run has no result yet: it is still being driven."""

    kind = "running"


def refuse_while_driven(run_dir: RunDir) -> RunState:
    """The run's state once nobody drives it: the one check before reading a run's end
    (``collab result``, MCP's ``debate_result``, ``collab export --format adr``). A run
    whose verdict is in gets a moment (:data:`FINISH_WAIT`) for its driver to write the
    last files and let go; a run still driven (a detached driver, a continue's rounds) is
    :class:`RunStillGoing`. A follow-up being asked is no driver: the verdict and the
    ledger are in, and its answer is added beside them."""
    state = load_state(run_dir)
    if state.status in ("done", "failed"):
        # The verdict is in; the driver is writing the last files: a moment.
        _wait_gone(run_dir, FINISH_WAIT)
        state = load_state(run_dir)
    if driver_of(run_dir.path) is not None:  # a steering operation (an ask) is no driver
        rid = run_dir.run_id
        done, planned = len(state.turns), len(state.seats) * state.config.rounds
        where = "starting" if state.status == "pending" else f"{done} of {planned} turns done"
        raise RunStillGoing(
            f"run {rid} is still running ({where}); follow it with collab status {rid} "
            f"or collab watch {rid}, and ask for the result when it has finished"
        )
    return state


def result_of(run_id: str) -> dict[str, object]:
    """The ``collab.result/2`` document of a run that is no longer driven."""
    run_dir = RunDir(run_id)
    return result_document(refuse_while_driven(run_dir), run_dir)


def cancel_run(run_id: str, wait: float = CANCEL_WAIT) -> dict[str, object]:
    """Stop the run's driver like Ctrl-C and wait (up to ``wait`` s) until it has saved
    its state and let go; the status document after. A run nobody drives is left as it
    is (cancelling twice is cancelling once)."""
    run_dir = RunDir(run_id)
    load_state(run_dir)  # a clear error for an unknown run
    pid = driver_of(run_dir.path)  # an ask's process (maybe the MCP server) is no driver
    if pid is not None:
        stop_driver(pid)
        end = time.monotonic() + wait
        while pid_alive(pid) and time.monotonic() < end:
            time.sleep(_POLL)
        if not pid_alive(pid):
            _settle_unstarted(run_dir)
    return status_document(run_dir)


def _settle_unstarted(run_dir: RunDir) -> None:
    """A driver signalled while still starting (importing, before its SIGTERM handler)
    dies of Python's default action without saving: its run would stay "pending" with
    nobody to drive it. Save it "interrupted", as the handler would have (resumable).
    A run the driver did take over has left "pending" already; one another process
    drives now holds the lock, and is left to it."""
    # steering: while this process holds the lock it is no driver (cancel or status
    # must not take it, or an MCP server that cancelled, for the run's driver)
    with contextlib.suppress(RunLockedError), run_dir.locked(steering=True):
        state = load_state(run_dir)
        if state.status == "pending":
            state.status = "interrupted"
            state.error = "interrupted"
            run_dir.save(state.to_dict())


def _wait_gone(run_dir: RunDir, wait: float) -> None:
    end = time.monotonic() + wait
    while driver_of(run_dir.path) is not None and time.monotonic() < end:
        time.sleep(_POLL)
