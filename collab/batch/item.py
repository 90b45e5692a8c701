"""One run of a batch: where its topic came from and, while it runs, its child process."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass, field


@dataclass
class Item:
    run_id: str
    line: int
    topic: str
    exit_code: int | None = None
    started: float | None = None
    ended: float | None = None
    proc: subprocess.Popen[bytes] | None = field(default=None, repr=False)
