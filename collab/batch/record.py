"""A batch on disk, ``$COLLAB_HOME/batches/<id>/batch.json``, and what can be done with it.

A batch first creates every run as ``pending`` (so a crash at any point leaves a
resumable batch; a batch that cannot be stored leaves nothing), then hands the unfinished
ones to the child pool, holding the batch's lock (one driver per batch, like a run); at
the end it writes the index. ``Batch`` is what the CLI holds: it keeps the record and
wires the pool together with where each run stands (read from its state.json) and the
index (index.json and index.md, the batch's summary).
"""

from __future__ import annotations

import contextlib
import json
import secrets
import shutil
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from collab.batch.entries import Entry
from collab.batch.pool import Item, run_children
from collab.errors import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, StorageError, UsageError
from collab.outcome import outcome_of
from collab.paths import collab_home
from collab.report import fmt_cost
from collab.state import RunState
from collab.store import (
    LOCK_FILE,
    RunDir,
    hold_lock,
    make_private_dirs,
    new_run_id,
    storing,
    write_file,
)

BATCH_SCHEMA = "collab.batch/1"
# Agent processes a batch starts at once, machine-wide: --parallel debates × their seats
# (a panel of five seats runs five agents in its blind round).
MAX_AGENTS_AT_ONCE = 32


def debates_at_once(parallel: int, seats: int) -> int:
    """``--parallel``, lowered so ``parallel × seats`` stays within MAX_AGENTS_AT_ONCE."""
    return max(1, min(parallel, MAX_AGENTS_AT_ONCE // max(seats, 1)))


def batches_dir() -> Path:
    return collab_home() / "batches"


def batch_ids() -> list[str]:
    """Every kept batch's id, newest first (ids begin with the time they were made)."""
    base = batches_dir()
    with storing(base, "read"):
        if not base.is_dir():
            return []
        names = [e.name for e in base.iterdir() if e.name.startswith("batch-") and e.is_dir()]
    return sorted(names, reverse=True)


def new_batch_id() -> str:
    return "batch-" + time.strftime("%Y%m%d-%H%M%S") + "-" + secrets.token_hex(3)


class Batch:
    def __init__(self, batch_id: str) -> None:
        if not batch_id.startswith("batch-") or not all(c.isalnum() or c in "-_" for c in batch_id):
            raise UsageError(f"not a batch id: {batch_id!r}")
        self.batch_id = batch_id
        self.path = batches_dir() / batch_id
        self.items: list[Item] = []
        self.parallel = 2
        self.source = ""
        self.created = ""
        self.status = "pending"
        self._driving = False

    # -- persistence -----------------------------------------------------------------
    @staticmethod
    def create(entries: Sequence[Entry], source: Path, parallel: int) -> Batch:
        b = Batch(new_batch_id())
        b.parallel = parallel
        b.source = str(source)
        b.created = time.strftime("%Y-%m-%dT%H:%M:%S%z")
        made: list[RunDir] = []
        try:
            with storing(b.path, "create"):
                make_private_dirs(b.path.parent)
                b.path.mkdir(mode=0o700)
            for entry in entries:
                run_dir = RunDir(new_run_id())
                while run_dir.path.exists():
                    run_dir = RunDir(new_run_id())
                state = RunState(run_id=run_dir.run_id, config=entry.config, status="pending")
                run_dir.create(state.to_dict())
                made.append(run_dir)
                b.items.append(Item(run_dir.run_id, entry.line, entry.config.topic))
            b.save()
        except BaseException:  # nothing half-made: no batch, none of its runs
            for run_dir in made:
                shutil.rmtree(run_dir.path, ignore_errors=True)
            shutil.rmtree(b.path, ignore_errors=True)
            raise
        return b

    @staticmethod
    def load(batch_id: str) -> Batch:
        b = Batch(batch_id)
        try:
            data = json.loads((b.path / "batch.json").read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise UsageError(f"no batch with id {batch_id}") from None
        except (OSError, json.JSONDecodeError) as exc:
            raise UsageError(f"batch {batch_id}: batch.json unreadable: {exc}") from None
        b.parallel = int(data.get("parallel", 2))
        b.source = str(data.get("source", ""))
        b.created = str(data.get("created", ""))
        b.status = str(data.get("status", "pending"))
        b.items = [Item(r["run_id"], int(r["line"]), str(r["topic"])) for r in data["runs"]]
        return b

    def save(self) -> None:
        doc = {
            "schema": BATCH_SCHEMA,
            "batch_id": self.batch_id,
            "created": self.created,
            "source": self.source,
            "parallel": self.parallel,
            "status": self.status,
            "runs": [{"run_id": i.run_id, "line": i.line, "topic": i.topic} for i in self.items],
        }
        write_file(self.path / "batch.json", json.dumps(doc, ensure_ascii=False, indent=1))

    # -- running ---------------------------------------------------------------------------
    @contextlib.contextmanager
    def driving(self) -> Iterator[None]:
        """Hold the batch's lock (again inside, a no-op): a second driver of the same batch
        gets ``RunLockedError`` (exit 2). The CLI takes it before it shows anything."""
        if self._driving:
            yield
            return
        busy = f"batch {self.batch_id} is being driven by another collab process"
        with hold_lock(self.path / LOCK_FILE, busy):
            self._driving = True
            try:
                yield
            finally:
                self._driving = False

    def run(self, parallel: int, on_tick: Callable[[Batch], None] | None = None) -> int:
        """Drive every unfinished run, holding the batch's lock; returns the exit code."""
        with self.driving():
            return self._run(parallel, on_tick)

    def _run(self, parallel: int, on_tick: Callable[[Batch], None] | None) -> int:
        self.parallel = parallel
        todo = [i for i in self.items if item_status(i).status != "done"]
        self.status = "running"
        self.save()
        interrupted = run_children(
            todo,
            parallel,
            tmux_session=f"collab-{self.batch_id}",
            on_tick=None if on_tick is None else lambda: on_tick(self),
        )
        states = self.item_statuses()
        if interrupted:
            self.status = "interrupted"
        elif all(p.status == "done" for p in states):
            self.status = "done"
        else:
            self.status = "failed"
        try:
            self.save()
            self.write_index()
        except StorageError as exc:  # the debates ran: each run's state.json holds its result
            raise exc.stopped(
                "each debate's own state.json", f"collab resume {self.batch_id}"
            ) from None
        if on_tick is not None:
            on_tick(self)
        if interrupted:
            return EXIT_INTERRUPTED
        return EXIT_OK if self.status == "done" else EXIT_FAILED

    # -- where the runs stand, and the index ---------------------------------------------
    def capped(self, parallel: int) -> tuple[int, str | None]:
        """``parallel`` within MAX_AGENTS_AT_ONCE for the unfinished runs' largest panel,
        and the line that says so when it was lowered (None: unchanged)."""
        seats = 2
        for item in self.items:
            with contextlib.suppress(UsageError, KeyError, AssertionError, ValueError, TypeError):
                state = RunState.from_dict(RunDir(item.run_id).load())
                if state.status != "done":
                    seats = max(seats, len(state.config.seats))
        at_once = debates_at_once(parallel, seats)
        if at_once == parallel:
            return parallel, None
        return at_once, (
            f"running {at_once} debates at once, not {parallel}: {parallel} × {seats} seats "
            f"would start more than {MAX_AGENTS_AT_ONCE} agents at once"
        )

    def item_statuses(self) -> list[ItemStatus]:
        return [item_status(i) for i in self.items]

    def summary_rows(self) -> list[dict[str, object]]:
        """One row per run: the ``--json`` document's ``runs`` and index.md's table."""
        rows = []
        for p in self.item_statuses():
            rows.append({
                "run_id": p.item.run_id,
                "line": p.item.line,
                "topic": p.item.topic,
                "status": p.status,
                "stop_reason": p.stop_reason,
                "verdict": p.verdict,
                "open_blocking": p.open_blocking,
                "rounds_done": p.rounds_done,
                "rounds": p.rounds,
                "resolved": p.counts.get("resolved", 0),
                "open": p.counts.get("open", 0),
                "dropped": p.counts.get("dropped", 0),
                "cost_usd": p.cost,
                "path": str(RunDir(p.item.run_id).path),
            })  # fmt: skip
        return rows

    def document(self) -> dict[str, object]:
        rows = self.summary_rows()
        costs = [r["cost_usd"] for r in rows if isinstance(r["cost_usd"], float | int)]
        return {
            "schema": BATCH_SCHEMA,
            "batch_id": self.batch_id,
            "status": self.status,
            "source": self.source,
            "parallel": self.parallel,
            "runs": rows,
            "cost_usd": round(sum(costs), 6) if costs else None,
            "paths": {
                "index_json": str(self.path / "index.json"),
                "index_md": str(self.path / "index.md"),
            },
            "resume": None if self.status == "done" else f"collab resume {self.batch_id}",
        }

    def write_index(self) -> None:
        doc = self.document()
        write_file(self.path / "index.json", json.dumps(doc, ensure_ascii=False, indent=1))
        lines = [
            f"# Batch {self.batch_id}",
            "",
            f"- source: `{self.source}` · status {self.status} · parallel {self.parallel}",
            f"- cost: {_cost(doc['cost_usd'])}",
            "",
            "| # | topic | status | stop | verdict | rounds | resolved | open | dropped | cost "
            "| run |",
            "|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        for n, r in enumerate(self.summary_rows(), 1):
            topic = " ".join(str(r["topic"]).split()).replace("|", "\\|")
            link = f"../../runs/{r['run_id']}/transcript.md"
            lines.append(
                f"| {n} | {topic} | {r['status']} | {r['stop_reason'] or '—'} "
                f"| {r['verdict'] or '—'} | {r['rounds_done']}/{r['rounds']} "
                f"| {r['resolved']} | {r['open']} "
                f"| {r['dropped']} | {_cost(r['cost_usd'])} "
                f"| [{r['run_id']}]({link}) |"
            )
        write_file(self.path / "index.md", "\n".join(lines) + "\n")


@dataclass
class ItemStatus:
    """Where one run of a batch stands, read from its state.json (for the display and
    the index)."""

    item: Item
    status: str
    rounds_done: int
    rounds: int
    cost: float | None
    stop_reason: str | None
    counts: dict[str, int]
    verdict: str | None = None  # the ledger's, once the run is done
    open_blocking: int = 0

    @property
    def elapsed(self) -> float:
        if self.item.started is None:
            return 0.0
        return (self.item.ended or time.monotonic()) - self.item.started


def item_status(item: Item) -> ItemStatus:
    """A run whose state cannot be read shows as ``unreadable`` rather than stopping the batch."""
    try:
        st = RunState.from_dict(RunDir(item.run_id).load())
    except (UsageError, KeyError, AssertionError, ValueError, TypeError):
        return ItemStatus(item, "unreadable", 0, 0, None, None, {})
    o = outcome_of(st)
    return ItemStatus(
        item=item,
        status=st.status,
        rounds_done=st.rounds_done(),
        rounds=st.config.rounds,
        cost=st.cost_usd(),
        stop_reason=o.stop_reason,
        counts={str(k): v for k, v in o.counts.items()},
        verdict=o.verdict if st.status == "done" else None,
        open_blocking=o.open_blocking,
    )


def _cost(v: object) -> str:
    return fmt_cost(float(v)) if isinstance(v, int | float) else "n/a"
