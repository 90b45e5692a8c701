"""The run's event stream for machines: ``runs/<id>/events.jsonl`` and ``--events ndjson``.

One JSON object a line, ``{"schema": "collab.event/1", "seq": n, "ts": ..., "event":
"...", ...}``, ``seq`` strictly increasing within one driving process (a resumed run
continues from the last line's ``seq``). Turn events carry ``round`` and ``side``.
Text deltas are coalesced (at most ``TEXT_EVERY`` apart) and stop at the live cap;
while a turn runs a ``heartbeat`` every ``HEARTBEAT_EVERY`` seconds says how long it
has run and estimates what is left of the turn and of the run.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Callable
from pathlib import Path

from collab.config import DebateConfig
from collab.errors import StorageError
from collab.events import Listener
from collab.ledger import Ledger, counts, ledger_to_dict
from collab.seats import Side
from collab.store import storage_error, storing
from collab.text import clean_tree
from collab.turns import TurnRecord

EVENT_SCHEMA = "collab.event/1"
TEXT_EVERY = 0.3
HEARTBEAT_EVERY = 3.0
# Seconds a turn is guessed to take before any turn of the run has finished.
FIRST_GUESS = 30.0

Event = dict[str, object]
Sink = Callable[[Event], None]


class EventStream(Listener):
    """Turns the orchestrator's calls into ``collab.event/1`` objects for the sinks."""

    def __init__(self, *sinks: Sink, first_seq: int = 0) -> None:
        self.sinks = list(sinks)
        self.seq = first_seq
        self.durations: list[float] = []
        self.turns_left = 0
        self._text: dict[tuple[int, str], list[str]] = {}
        self._text_at: dict[tuple[int, str], float] = {}
        self._beat_at: dict[tuple[int, str], float] = {}

    def emit(self, event: str, **fields: object) -> None:
        self.seq += 1
        doc: Event = {"schema": EVENT_SCHEMA, "seq": self.seq, "ts": round(time.time(), 3)}
        doc["event"] = event
        doc.update(fields)
        for sink in self.sinks:
            sink(doc)

    # -- the run -------------------------------------------------------------------------
    def run_started(
        self, run_id: str, cfg: DebateConfig, runner: str, attach: str | None, resumed: bool
    ) -> None:
        self.turns_left = 2 * cfg.rounds
        self.emit(
            "run_started", run_id=run_id, topic=cfg.topic, preset=cfg.preset,
            rounds=cfg.rounds, runner=runner, attach=attach, resumed=resumed,
            roles={"A": cfg.role_a.name, "B": cfg.role_b.name},
        )  # fmt: skip

    def round_started(self, round_no: int, total: int) -> None:
        self.emit("round_started", round=round_no, total=total)

    def turn_started(self, round_no: int, side: Side, role_name: str) -> None:
        now = time.monotonic()
        self._text[(round_no, side)] = []
        # The first words go out at once; the ones after them are coalesced.
        self._text_at[(round_no, side)] = 0.0
        self._beat_at[(round_no, side)] = now
        self.emit("turn_started", round=round_no, side=side, role=role_name)

    def turn_output(self, round_no: int, side: Side, text: str, elapsed: float) -> None:
        self._output((round_no, side), text, elapsed, round=round_no, side=side)

    def turn_retry(self, round_no: int, side: Side, reason: str, detail: str) -> None:
        self._flush((round_no, side), round=round_no, side=side)
        self.emit("turn_retry", round=round_no, side=side, reason=reason, detail=detail)

    def turn_finished(self, turn: TurnRecord) -> None:
        key = (turn.round_no, turn.side)
        self._flush(key, round=turn.round_no, side=turn.side)
        self.durations.append(turn.meta.duration)
        self.turns_left = max(0, self.turns_left - 1)
        c = turn.contract
        usage = turn.meta.usage
        self.emit(
            "turn_finished", round=turn.round_no, side=turn.side, role=turn.role_name,
            status=turn.status, duration_s=turn.meta.duration, cost_usd=turn.cost_usd,
            cost_estimated=turn.meta.cost_estimated,
            tokens=None if usage is None else {"input": usage.input_tokens,
                                               "output": usage.output_tokens},
            new_points=[] if c is None else [p.title for p in c.new_points],
            stances=[] if c is None else [{"id": s.id, "stance": s.stance} for s in c.stances],
            abstain=None if c is None else c.abstain,
            prose=turn.prose, warnings=list(turn.warnings),
        )  # fmt: skip

    def warning(self, text: str) -> None:
        self.emit("warning", text=text)

    def round_finished(self, round_no: int, ledger: Ledger) -> None:
        self.emit("ledger", round=round_no, issues=ledger_to_dict(ledger), counts=counts(ledger))

    def angle_injected(self, round_no: int, text: str, issue_ids: tuple[str, ...]) -> None:
        self.emit("angle", round=round_no, text=text, issue_ids=list(issue_ids))

    def stopped(self, reason: str, detail: str) -> None:
        self.turns_left = 0
        self.emit("stop", reason=reason, detail=detail)

    def judge_started(self) -> None:
        now = time.monotonic()
        self.turns_left = 0
        self._text[(0, "judge")] = []
        self._text_at[(0, "judge")] = 0.0
        self._beat_at[(0, "judge")] = now
        self.emit("judge_started")

    def judge_output(self, text: str, elapsed: float) -> None:
        self._output((0, "judge"), text, elapsed, side="judge")

    def judge_finished(self, text: str, fallback: bool) -> None:
        self._flush((0, "judge"), side="judge")
        self.emit("judge_finished", markdown=text, fallback=fallback)

    def run_finished(self, status: str, exit_code: int, error: str | None) -> None:
        self.emit("run_finished", status=status, exit_code=exit_code, error=error)

    # -- after the debate (collab ask, collab continue) --------------------------------------
    def followup_started(self, seat: str, question: str) -> None:
        self._text[(0, seat)] = []
        self._text_at[(0, seat)] = 0.0
        self._beat_at[(0, seat)] = time.monotonic()
        self.emit("followup_started", side=seat, question=question)

    def followup_output(self, seat: str, text: str, elapsed: float) -> None:
        self._output((0, seat), text, elapsed, side=seat, followup=True)

    def followup_finished(self, seat: str, answer: str, status: str) -> None:
        self._flush((0, seat), side=seat, followup=True)
        self.emit("followup", side=seat, answer=answer, status=status)

    def continued(self, after_round: int, rounds: int, note: str | None) -> None:
        self.emit("continued", round=after_round + 1, rounds=rounds, note=note)

    # -- coalescing ----------------------------------------------------------------------
    def _output(self, key: tuple[int, str], text: str, elapsed: float, **where: object) -> None:
        now = time.monotonic()
        if text:
            self._text.setdefault(key, []).append(text)
        if now - self._text_at.get(key, 0.0) >= TEXT_EVERY:
            self._flush(key, **where)
        if now - self._beat_at.get(key, 0.0) >= HEARTBEAT_EVERY:
            self._beat_at[key] = now
            turn_left = max(0.0, self._typical() - elapsed)
            run_left = turn_left + self.turns_left * self._typical()
            if where.get("side") != "judge":
                run_left += self._typical()  # the Judge after the last turn
            self.emit(
                "heartbeat", **where, elapsed_s=round(elapsed, 1),
                turn_left_s=round(turn_left, 1), run_left_s=round(run_left, 1),
            )  # fmt: skip

    def _flush(self, key: tuple[int, str], **where: object) -> None:
        self._text_at[key] = time.monotonic()
        parts = self._text.get(key)
        if parts:
            self._text[key] = []
            self.emit("text", **where, text="".join(parts))

    def _typical(self) -> float:
        if not self.durations:
            return FIRST_GUESS
        ordered = sorted(self.durations)
        return ordered[len(ordered) // 2]


class JsonlFile:
    """A sink appending one line per event to a file, written at once (readers tail it).

    Opening it can fail like any write to COLLAB_HOME (``StorageError``). A write that
    fails (a full disk) is cut back to the last whole line and ends the log; its error
    waits in ``failed`` until the orchestrator's next save raises it (``check``): an event
    may come from deep inside a turn, where an exception would pass for the agent's.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.failed: StorageError | None = None
        with storing(path):
            self._fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        self._size = os.fstat(self._fd).st_size

    def __call__(self, event: Event) -> None:
        if self.failed is not None or self._fd < 0:
            return
        line = json.dumps(clean_tree(event), ensure_ascii=False) + "\n"
        data = memoryview(line.encode("utf-8"))
        try:
            while data:
                data = data[os.write(self._fd, data) :]
        except OSError as exc:
            with contextlib.suppress(OSError):
                os.ftruncate(self._fd, self._size)
            self.failed = storage_error(exc, self.path)
            return
        self._size = os.lseek(self._fd, 0, os.SEEK_CUR)

    def check(self) -> None:
        """Raise the error of a write that failed, if one did."""
        if self.failed is not None:
            raise self.failed

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


def append_event(path: Path, event: str, **fields: object) -> None:
    """One event appended to an events file outside a run (collab decide, continue),
    numbered after its last line."""
    sink = JsonlFile(path)
    try:
        EventStream(sink, first_seq=last_seq(path)).emit(event, **fields)
        sink.check()
    finally:
        sink.close()


def last_seq(path: Path) -> int:
    """The ``seq`` of the last complete line of an events file (0 if none)."""
    try:
        with open(path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            size = fh.tell()
            fh.seek(max(0, size - 65536))
            lines = fh.read().decode("utf-8", errors="replace").splitlines()
    except OSError:
        return 0
    for line in reversed(lines):
        try:
            doc = json.loads(line)
        except ValueError:
            continue
        if isinstance(doc, dict) and isinstance(doc.get("seq"), int):
            return int(doc["seq"])
    return 0
