"""Where each run of a batch stands, read from its state.json for the display and the index."""

from __future__ import annotations

import time
from dataclasses import dataclass

from collab.batch.item import Item
from collab.errors import UsageError
from collab.ledger import counts
from collab.state import RunState
from collab.store import RunDir


@dataclass
class Progress:
    """What the display needs of one run, read from its state.json."""

    item: Item
    status: str
    rounds_done: int
    rounds: int
    cost: float | None
    stop_reason: str | None
    counts: dict[str, int]

    @property
    def elapsed(self) -> float:
        if self.item.started is None:
            return 0.0
        return (self.item.ended or time.monotonic()) - self.item.started


def read_progress(item: Item) -> Progress:
    """A run whose state cannot be read shows as ``unreadable`` rather than stopping the batch."""
    try:
        st = RunState.from_dict(RunDir(item.run_id).load())
    except (UsageError, KeyError, AssertionError, ValueError, TypeError):
        return Progress(item, "unreadable", 0, 0, None, None, {})
    return Progress(
        item=item,
        status=st.status,
        rounds_done=st.rounds_done(),
        rounds=st.config.rounds,
        cost=st.cost_usd(),
        stop_reason=st.stop_reason,
        counts={str(k): v for k, v in counts(st.ledger()).items()},
    )
