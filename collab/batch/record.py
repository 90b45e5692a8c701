"""A batch on disk, ``$COLLAB_HOME/batches/<id>/batch.json``, and what can be done with it.

A batch first creates every run as ``pending`` (so a crash at any point leaves a
resumable batch; a batch that cannot be stored leaves nothing), then hands the unfinished
ones to the child pool, holding the batch's lock (one driver per batch, like a run); at
the end it writes the index. ``Batch`` is what the CLI holds: it keeps the record and
wires the pool, the progress reader and the index together.
"""

from __future__ import annotations

import contextlib
import json
import secrets
import shutil
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from collab.batch.entries import Entry
from collab.batch.index import BATCH_SCHEMA, document, summary_rows, write_index
from collab.batch.item import Item
from collab.batch.pool import run_children
from collab.batch.progress import Progress, read_progress
from collab.errors import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, StorageError, UsageError
from collab.paths import collab_home
from collab.state import RunState
from collab.store import LOCK_FILE, RunDir, hold_lock, new_run_id, storing, write_file


def batches_dir() -> Path:
    return collab_home() / "batches"


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
                b.path.mkdir(parents=True, mode=0o700)
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
        todo = [i for i in self.items if read_progress(i).status != "done"]
        self.status = "running"
        self.save()
        interrupted = run_children(
            todo,
            parallel,
            tmux_session=f"collab-{self.batch_id}",
            on_tick=None if on_tick is None else lambda: on_tick(self),
        )
        states = self.all_progress()
        if interrupted:
            self.status = "interrupted"
        elif all(p.status == "done" for p in states):
            self.status = "done"
        else:
            self.status = "failed"
        try:
            self.save()
            write_index(self)
        except StorageError as exc:  # the debates ran: each run's state.json holds its result
            raise exc.stopped(
                "each debate's own state.json", f"collab resume {self.batch_id}"
            ) from None
        if on_tick is not None:
            on_tick(self)
        if interrupted:
            return EXIT_INTERRUPTED
        return EXIT_OK if self.status == "done" else EXIT_FAILED

    # -- progress and index ----------------------------------------------------------------
    def all_progress(self) -> list[Progress]:
        return [read_progress(i) for i in self.items]

    def summary_rows(self) -> list[dict[str, object]]:
        return summary_rows(self.items)

    def document(self) -> dict[str, object]:
        return document(self)
