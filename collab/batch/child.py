"""One debate of a batch, as a lean child process: no CLI framework, no terminal UI.

``python -m collab.batch.child RUN_ID`` imports what a run needs and loads its state,
then waits for one byte on stdin before it starts. A batch starts the next child while
the others still run, so its start-up is off the critical path; EOF without that byte
means "not needed" and the child exits having done nothing. Exit codes are the CLI's.
"""

from __future__ import annotations

import sys

from collab.detached import drive_one


def main(argv: list[str]) -> int:
    return drive_one(argv, "collab.batch.child", go=lambda: bool(sys.stdin.buffer.read(1)))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
