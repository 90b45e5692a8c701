"""A batch's summary: one row per run, the ``--json`` document, index.json and index.md."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from collab.batch.item import Item
from collab.batch.progress import read_progress
from collab.report import fmt_cost
from collab.store import RunDir, write_file

BATCH_SCHEMA = "collab.batch/1"


class BatchHead(Protocol):
    """What the index needs of a batch (``Batch`` is one)."""

    @property
    def batch_id(self) -> str: ...
    @property
    def path(self) -> Path: ...
    @property
    def items(self) -> Sequence[Item]: ...
    @property
    def parallel(self) -> int: ...
    @property
    def source(self) -> str: ...
    @property
    def status(self) -> str: ...


def summary_rows(items: Sequence[Item]) -> list[dict[str, object]]:
    rows = []
    for p in map(read_progress, items):
        rows.append({
            "run_id": p.item.run_id,
            "line": p.item.line,
            "topic": p.item.topic,
            "status": p.status,
            "stop_reason": p.stop_reason,
            "rounds_done": p.rounds_done,
            "rounds": p.rounds,
            "resolved": p.counts.get("resolved", 0),
            "open": p.counts.get("open", 0),
            "dropped": p.counts.get("dropped", 0),
            "cost_usd": p.cost,
            "path": str(RunDir(p.item.run_id).path),
        })  # fmt: skip
    return rows


def document(batch: BatchHead) -> dict[str, object]:
    rows = summary_rows(batch.items)
    costs = [r["cost_usd"] for r in rows if isinstance(r["cost_usd"], float | int)]
    return {
        "schema": BATCH_SCHEMA,
        "batch_id": batch.batch_id,
        "status": batch.status,
        "source": batch.source,
        "parallel": batch.parallel,
        "runs": rows,
        "cost_usd": round(sum(costs), 6) if costs else None,
        "paths": {
            "index_json": str(batch.path / "index.json"),
            "index_md": str(batch.path / "index.md"),
        },
        "resume": None if batch.status == "done" else f"collab resume {batch.batch_id}",
    }


def write_index(batch: BatchHead) -> None:
    doc = document(batch)
    write_file(batch.path / "index.json", json.dumps(doc, ensure_ascii=False, indent=1))
    lines = [
        f"# Batch {batch.batch_id}",
        "",
        f"- source: `{batch.source}` · status {batch.status} · parallel {batch.parallel}",
        f"- cost: {_cost(doc['cost_usd'])}",
        "",
        "| # | topic | status | stop | rounds | resolved | open | dropped | cost | run |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for n, r in enumerate(summary_rows(batch.items), 1):
        topic = " ".join(str(r["topic"]).split()).replace("|", "\\|")
        link = f"../../runs/{r['run_id']}/transcript.md"
        lines.append(
            f"| {n} | {topic} | {r['status']} | {r['stop_reason'] or '—'} "
            f"| {r['rounds_done']}/{r['rounds']} | {r['resolved']} | {r['open']} "
            f"| {r['dropped']} | {_cost(r['cost_usd'])} "
            f"| [{r['run_id']}]({link}) |"
        )
    write_file(batch.path / "index.md", "\n".join(lines) + "\n")


def _cost(v: object) -> str:
    return fmt_cost(float(v)) if isinstance(v, int | float) else "n/a"
