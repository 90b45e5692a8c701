"""Batch debates: many runs, each driven by its own child process (collab.batch_child).

A batch first creates every run as ``pending`` (so a crash at any point leaves a
resumable batch), then keeps ``parallel`` children running and up to ``WARM_MAX`` more
started and waiting (imports done, state loaded), so a finished debate is replaced at
once. Children start in their own session, so a terminal Ctrl-C reaches only us; we pass
it on as SIGTERM, which every child turns into a saved, resumable ``interrupted`` state.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from collab.batch_file import Entry
from collab.errors import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, UsageError
from collab.paths import collab_home
from collab.report import fmt_cost
from collab.state import RunState
from collab.store import RunDir, atomic_write, new_run_id

BATCH_SCHEMA = "collab.batch/1"
POLL = 0.02  # how soon a finished child's slot is refilled
TICK = 0.25  # how often the display re-reads every run's state
# Children kept started and waiting, so runs that end together are replaced at once.
WARM_MAX = 4
STOP_GRACE = 15.0


def batches_dir() -> Path:
    return collab_home() / "batches"


def new_batch_id() -> str:
    return "batch-" + time.strftime("%Y%m%d-%H%M%S") + "-" + secrets.token_hex(3)


@dataclass
class Item:
    run_id: str
    line: int
    topic: str
    exit_code: int | None = None
    started: float | None = None
    ended: float | None = None
    proc: subprocess.Popen[bytes] | None = field(default=None, repr=False)


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

    # -- persistence -----------------------------------------------------------------
    @staticmethod
    def create(entries: Sequence[Entry], source: Path, parallel: int) -> Batch:
        b = Batch(new_batch_id())
        b.path.mkdir(parents=True, mode=0o700)
        b.parallel = parallel
        b.source = str(source)
        b.created = time.strftime("%Y-%m-%dT%H:%M:%S%z")
        for entry in entries:
            run_dir = RunDir(new_run_id())
            while run_dir.path.exists():
                run_dir = RunDir(new_run_id())
            run_dir.create()
            state = RunState(run_id=run_dir.run_id, config=entry.config, status="pending")
            run_dir.save(state.to_dict())
            b.items.append(Item(run_dir.run_id, entry.line, entry.config.topic))
        b.save()
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
        atomic_write(self.path / "batch.json", json.dumps(doc, ensure_ascii=False, indent=1))

    # -- progress ------------------------------------------------------------------------
    def progress(self, item: Item) -> Progress:
        try:
            st = RunState.from_dict(RunDir(item.run_id).load())
        except (UsageError, KeyError, AssertionError, ValueError, TypeError):
            return Progress(item, "unreadable", 0, 0, None, None, {})
        from collab.ledger import counts

        return Progress(
            item=item,
            status=st.status,
            rounds_done=st.rounds_done(),
            rounds=st.config.rounds,
            cost=st.cost_usd(),
            stop_reason=st.stop_reason,
            counts={str(k): v for k, v in counts(st.ledger()).items()},
        )

    def all_progress(self) -> list[Progress]:
        return [self.progress(i) for i in self.items]

    # -- running ---------------------------------------------------------------------------
    def run(self, parallel: int, on_tick: Callable[[Batch], None] | None = None) -> int:
        """Drive every unfinished run; returns the batch's exit code."""
        self.parallel = parallel
        todo = [i for i in self.items if self.progress(i).status != "done"]
        self.status = "running"
        self.save()
        env = dict(os.environ)
        env["COLLAB_TMUX_SESSION"] = f"collab-{self.batch_id}"
        running: list[Item] = []
        warm: list[Item] = []  # started, imported, waiting for their go
        pool = min(parallel, WARM_MAX)
        interrupted = False
        next_tick = 0.0
        old_term = _install_term_handler()
        try:
            while todo or running or warm:
                for item in list(running):
                    if item.proc is not None and item.proc.poll() is not None:
                        item.exit_code = item.proc.returncode
                        item.ended = time.monotonic()
                        running.remove(item)
                while len(running) < parallel and (warm or todo):
                    item = warm.pop(0) if warm else self._spawn(todo.pop(0), env)
                    _go(item)
                    item.started = time.monotonic()
                    running.append(item)
                while len(warm) < pool and todo:
                    warm.append(self._spawn(todo.pop(0), env))
                now = time.monotonic()
                if on_tick is not None and now >= next_tick:
                    on_tick(self)
                    next_tick = now + TICK
                if running:
                    time.sleep(POLL)
        except KeyboardInterrupt:
            interrupted = True
            # Every child started so far, also one the signal caught before it was listed.
            self._stop([i for i in self.items if i.proc is not None and i.proc.poll() is None])
        finally:
            signal.signal(signal.SIGTERM, old_term)
        states = self.all_progress()
        if interrupted:
            self.status = "interrupted"
        elif all(p.status == "done" for p in states):
            self.status = "done"
        else:
            self.status = "failed"
        self.save()
        self.write_index()
        if on_tick is not None:
            on_tick(self)
        if interrupted:
            return EXIT_INTERRUPTED
        return EXIT_OK if self.status == "done" else EXIT_FAILED

    def _spawn(self, item: Item, env: dict[str, str]) -> Item:
        run_path = RunDir(item.run_id).path
        log = open(run_path / "batch.log", "ab")  # noqa: SIM115 - handed to the child
        try:
            item.proc = subprocess.Popen(
                [sys.executable, "-m", "collab.batch_child", item.run_id],
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                stderr=log,
                env=env,
                start_new_session=True,
                close_fds=True,
            )
            return item
        finally:
            log.close()

    def _stop(self, running: list[Item]) -> None:
        for item in running:
            _close_stdin(item)
        for item in running:
            if item.proc is not None and item.proc.poll() is None:
                item.proc.send_signal(signal.SIGTERM)
        end = time.monotonic() + STOP_GRACE
        for item in running:
            if item.proc is None:
                continue
            try:
                item.proc.wait(timeout=max(0.1, end - time.monotonic()))
            except subprocess.TimeoutExpired:
                os.killpg(item.proc.pid, signal.SIGKILL)
                item.proc.wait()
            item.exit_code = item.proc.returncode
            item.ended = time.monotonic()

    # -- index -------------------------------------------------------------------------------
    def summary_rows(self) -> list[dict[str, object]]:
        rows = []
        for p in self.all_progress():
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
        atomic_write(self.path / "index.json", json.dumps(doc, ensure_ascii=False, indent=1))
        lines = [
            f"# Batch {self.batch_id}",
            "",
            f"- source: `{self.source}` · status {self.status} · parallel {self.parallel}",
            f"- cost: {_cost(doc['cost_usd'])}",
            "",
            "| # | topic | status | stop | rounds | resolved | open | dropped | cost | run |",
            "|---|---|---|---|---|---|---|---|---|---|",
        ]
        for n, r in enumerate(self.summary_rows(), 1):
            topic = " ".join(str(r["topic"]).split()).replace("|", "\\|")
            link = f"../../runs/{r['run_id']}/transcript.md"
            lines.append(
                f"| {n} | {topic} | {r['status']} | {r['stop_reason'] or '—'} "
                f"| {r['rounds_done']}/{r['rounds']} | {r['resolved']} | {r['open']} "
                f"| {r['dropped']} | {_cost(r['cost_usd'])} "
                f"| [{r['run_id']}]({link}) |"
            )
        atomic_write(self.path / "index.md", "\n".join(lines) + "\n")


def _go(item: Item) -> None:
    """Tell a waiting child to start (one byte, then EOF)."""
    assert item.proc is not None and item.proc.stdin is not None
    try:
        item.proc.stdin.write(b"g")
        item.proc.stdin.close()
    except BrokenPipeError:
        pass  # it died while waiting: reaped as finished, its run stays resumable


def _close_stdin(item: Item) -> None:
    if item.proc is not None and item.proc.stdin is not None:
        with contextlib.suppress(BrokenPipeError):
            item.proc.stdin.close()


def _cost(v: object) -> str:
    return fmt_cost(float(v)) if isinstance(v, int | float) else "n/a"


def _install_term_handler() -> signal.Handlers | Callable[..., object] | int | None:
    def handler(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    return signal.signal(signal.SIGTERM, handler)
