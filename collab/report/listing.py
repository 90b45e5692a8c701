"""``collab list``'s rows and its ``--json`` document (``collab.list/1``), apart from
:mod:`.documents`: a list needs none of what a run's own document reads (the panel, the
favours, the stats), and scripts poll it."""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from typing import Any

from collab.fields import DamagedField
from collab.outcome import outcome_of, shown_stop_reason
from collab.state import parsed_run
from collab.store import StoredRun


def run_row(run: StoredRun) -> dict[str, object]:
    """One run of ``collab list``, as :func:`collab.state.stored_runs` found it. A damaged
    run is listed too, with status ``damaged``, the ``reason`` and what could be read of
    it (null where nothing could)."""
    raw: Mapping[str, Any] = run.state or {}
    cfg = raw.get("config")
    cfg = cfg if isinstance(cfg, dict) else {}
    damaged = run.damage is not None
    row: dict[str, object] = {
        "run_id": run.run_id,
        "created": _str(raw.get("created")) or _id_time(run.run_id),
        "topic": _str(cfg.get("topic")),
        "preset": _str(cfg.get("preset")),
        "rounds_done": _int(raw.get("rounds_done")),
        "rounds": _int(cfg.get("rounds")),
        "status": "damaged" if damaged else raw.get("status"),
        "stop_reason": None
        if damaged
        else shown_stop_reason(raw.get("status"), _str(raw.get("stop_reason"))),
        "cost_usd": _num(raw.get("cost_usd")),
        "reason": run.damage,
    }
    if not damaged and (state := parsed_run(run)) is not None:
        # The outcome needs the ledger, replayed from the turns; a row of what could be
        # read has none. The RunState is the one stored_runs parsed: no second parse.
        with contextlib.suppress(DamagedField):
            row |= outcome_of(state).fields()
    return row


def list_document(runs: Sequence[StoredRun]) -> dict[str, object]:
    return {"schema": "collab.list/1", "runs": [run_row(r) for r in runs]}


def _str(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _num(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _id_time(run_id: str) -> str | None:
    """A run id starts with the time it was made: ``20261130-101502-…``."""
    d = run_id
    if len(d) < 15 or d[8] != "-" or not (d[:8] + d[9:15]).isdigit():
        return None
    return f"{d[:4]}-{d[4:6]}-{d[6:8]}T{d[9:11]}:{d[11:13]}:{d[13:15]}"
