"""One debate driven to its end by a process of its own: ``collab debate --detach`` and
the MCP server start ``python -m collab.detached RUN_ID`` in a new session, so the run
outlives the command or the MCP client that started it (a client closing kills the
server's process group, not this one).

No CLI framework, no terminal: stdin is closed, stdout and stderr go to the run's
``driver.log``. Progress is the run's own ``events.jsonl`` and ``state.json``; SIGTERM
(``collab cancel``) stops it like Ctrl-C, saved and resumable. Exit codes are the CLI's.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from collab.doctor import check_prerequisites
from collab.errors import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, CollabError
from collab.orchestrator import drive
from collab.state import load_state
from collab.store import RunDir


def main(argv: list[str]) -> int:
    return drive_one(argv, "collab.detached")


def drive_one(argv: list[str], prog: str, go: Callable[[], bool] | None = None) -> int:
    """Drive the run named in ``argv`` to its end (or to a saved stop); the CLI's exit
    code. ``go``, when given, is asked once the run is loaded: False means "not needed"."""
    if len(argv) != 1:
        sys.stderr.write(f"usage: python -m {prog} RUN_ID\n")
        return EXIT_USAGE
    try:
        run_dir = RunDir(argv[0])
        state = load_state(run_dir)
        if go is not None and not go():
            return EXIT_OK
        if state.status == "done":
            return EXIT_OK
        ready = check_prerequisites(state.config)
        state = drive(state, run_dir, ready, resumed=state.status != "pending")
    except CollabError as exc:
        sys.stderr.write(f"collab: {exc}\n")
        return exc.exit_code
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    return EXIT_FAILED if state.status == "failed" else EXIT_OK


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
