"""collab itself with one seam, for the second-Ctrl-C test: the save of the "interrupted"
state waits for the test's go-ahead (a file), so a second Ctrl-C surely lands in it.

    python slow_save.py HOLDING GO LOG collab-args...
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import collab.store as store
from collab.cli import main

WAIT = 120.0  # the test gives the go-ahead long before this


def _install(holding: Path, go: Path, log: Path) -> None:
    real_save = store.RunDir.save

    def save(self: store.RunDir, state: dict[str, Any]) -> None:
        if state.get("status") != "interrupted":
            return real_save(self, state)
        with log.open("a") as f:
            f.write("save started\n")
        holding.touch()
        end = time.monotonic() + WAIT
        while not go.exists() and time.monotonic() < end:
            time.sleep(0.01)
        real_save(self, state)
        with log.open("a") as f:
            f.write("save finished\n")
        return None

    store.RunDir.save = save  # type: ignore[method-assign]


if __name__ == "__main__":
    _install(*(Path(p) for p in sys.argv[1:4]))
    main(sys.argv[4:])
