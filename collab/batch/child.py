"""One debate of a batch, as a lean child process: no CLI framework, no terminal UI.

``python -m collab.batch.child RUN_ID`` imports what a run needs and loads its state,
then waits for one byte on stdin before it starts. A batch starts the next child while
the others still run, so its start-up is off the critical path; EOF without that byte
means "not needed" and the child exits having done nothing. Exit codes are the CLI's.
"""

from __future__ import annotations

import sys

from collab.errors import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, CollabError
from collab.events import Listener
from collab.orchestrator import drive
from collab.preflight import check_prerequisites
from collab.state import load_state
from collab.store import RunDir


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        sys.stderr.write("usage: python -m collab.batch.child RUN_ID\n")
        return EXIT_USAGE
    try:
        run_dir = RunDir(argv[0])
        state = load_state(run_dir)
        if not sys.stdin.buffer.read(1):
            return EXIT_OK
        if state.status == "done":
            return EXIT_OK
        check_prerequisites(state.config)
        state = drive(state, run_dir, Listener(), resumed=state.status != "pending")
    except CollabError as exc:
        sys.stderr.write(f"collab: {exc}\n")
        return exc.exit_code
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    return EXIT_FAILED if state.status == "failed" else EXIT_OK


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
