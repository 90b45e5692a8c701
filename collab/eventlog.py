"""The run's event stream for machines: ``runs/<id>/events.jsonl`` and ``--events ndjson``.

One JSON object a line, ``{"schema": "collab.event/1", "seq": n, "ts": ..., "event":
"...", ...}`` (made by :func:`collab.events.to_json`), ``seq`` strictly increasing
within one driving process (a resumed run continues from the last line's ``seq``).
Turn events carry ``round`` and ``side``. Text deltas are coalesced (at most
``TEXT_EVERY`` apart) and stop at the live cap; while a turn runs a ``heartbeat`` every
``HEARTBEAT_EVERY`` seconds says how long it has run and estimates what is left of the
turn and of the run. :class:`EventReader` reads a file back into typed events.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from collab.errors import StorageError
from collab.events import (
    BadEvent,
    Event,
    FollowupFinished,
    FollowupStarted,
    Heartbeat,
    JudgeFinished,
    JudgeStarted,
    Logged,
    RunStarted,
    Speaker,
    Stopped,
    Text,
    TurnFinished,
    TurnRetry,
    TurnStarted,
    from_json,
)
from collab.store import storage_error, storing, write_all
from collab.text import _CONTROL, clean_tree

TEXT_EVERY = 0.3
HEARTBEAT_EVERY = 3.0
# Seconds a turn is guessed to take before any turn of the run has finished.
FIRST_GUESS = 30.0

Sink = Callable[[Logged], None]
# ``json.dumps(doc, ensure_ascii=False)``'s encoder, made once instead of on every line.
_LINE = json.JSONEncoder(ensure_ascii=False)
# What :func:`collab.text.clean` could change, as it shows in such a line: a C0 control
# but tab and newline is escaped there (``\\b``, ``\\f``, ``\\r``, ``\\u00XX``: the only
# ``\\u`` escapes it writes); DEL, C1, the invisible characters and the other newlines
# are written as they are.
_ESCAPED = re.compile(r"\\[bfru]")
_UNCLEAN = re.compile(_CONTROL.pattern + "|[\u2028\u2029]")
# Whose text is coalesced: (round, side) of a turn, (0, "judge") for the Judge.
_Key = tuple[int, Speaker]


class EventStream:
    """Numbers the run's events for the sinks, one at a time whichever thread reports
    one (a blind round runs both turns on worker threads), coalescing reply text and
    adding heartbeats while a turn runs."""

    def __init__(self, *sinks: Sink, first_seq: int = 0) -> None:
        self.sinks = list(sinks)
        self.seq = first_seq
        self.durations: list[float] = []
        self.turns_left = 0
        self._lock = threading.RLock()
        self._text: dict[_Key, list[str]] = {}
        self._text_at: dict[_Key, float] = {}
        self._beat_at: dict[_Key, float] = {}
        self._followups: set[_Key] = set()  # keys of follow-up turns (collab ask)
        self._running: set[_Key] = set()  # debaters' turns started and not yet finished

    def emit(self, event: Event) -> None:
        with self._lock:
            self._before(event)
            self._send(event)

    def turn_output(self, round_no: int, side: Speaker, text: str, elapsed: float) -> None:
        """About every 50 ms while a turn runs: the reply text added since (maybe "")."""
        with self._lock:
            self._output((round_no, side), text, elapsed)

    def judge_output(self, text: str, elapsed: float) -> None:
        """Like ``turn_output``, for the Judge."""
        self.turn_output(0, "judge", text, elapsed)

    def _send(self, event: Event) -> None:
        self.seq += 1
        logged = Logged(self.seq, round(time.time(), 3), event)
        for sink in self.sinks:
            sink(logged)

    def _before(self, ev: Event) -> None:
        """The stream's own bookkeeping for an event: text to flush before it, the turns
        left for the estimate."""
        match ev:
            case RunStarted():
                self.turns_left = len(ev.roles) * ev.rounds
            case TurnStarted():
                self._open((ev.round, ev.side))
                self._running.add((ev.round, ev.side))
            case TurnRetry():
                self._flush((ev.round, ev.side))
            case TurnFinished():
                self._flush((ev.round, ev.side))
                self.durations.append(ev.duration_s)
                self.turns_left = max(0, self.turns_left - 1)
                self._running.discard((ev.round, ev.side))
            case Stopped():
                self.turns_left = 0
            case JudgeStarted():
                self.turns_left = 0
                self._open((0, "judge"))
            case JudgeFinished():
                self._flush((0, "judge"))
            case FollowupStarted():
                self._open((0, ev.side), followup=True)
            case FollowupFinished():
                self._flush((0, ev.side))

    # -- after the debate (collab ask) -----------------------------------------------------
    def followup_output(self, seat: Speaker, text: str, elapsed: float) -> None:
        """Like ``turn_output``, for a follow-up turn of ``seat``."""
        self.turn_output(0, seat, text, elapsed)

    # -- coalescing ----------------------------------------------------------------------
    def _open(self, key: _Key, followup: bool = False) -> None:
        if followup:
            self._followups.add(key)
        else:
            self._followups.discard(key)
        self._text[key] = []
        # The first words go out at once; the ones after them are coalesced.
        self._text_at[key] = 0.0
        self._beat_at[key] = time.monotonic()

    def _output(self, key: _Key, text: str, elapsed: float) -> None:
        now = time.monotonic()
        if text:
            self._text.setdefault(key, []).append(text)
        if now - self._text_at.get(key, 0.0) >= TEXT_EVERY:
            self._flush(key)
        if now - self._beat_at.get(key, 0.0) >= HEARTBEAT_EVERY:
            self._beat_at[key] = now
            turn_left = max(0.0, self._typical() - elapsed)
            # The turns running now (this one, the other side of a blind round) are not
            # still to come: only the turns after them are.
            later = max(0, self.turns_left - len(self._running))
            run_left = turn_left + later * self._typical()
            if key[1] != "judge":
                run_left += self._typical()  # the Judge after the last turn
            self._send(
                Heartbeat(
                    side=key[1], round=_round(key), followup=key in self._followups,
                    elapsed_s=round(elapsed, 1),
                    turn_left_s=round(turn_left, 1), run_left_s=round(run_left, 1),
                )
            )  # fmt: skip

    def _flush(self, key: _Key) -> None:
        self._text_at[key] = time.monotonic()
        parts = self._text.get(key)
        if parts:
            self._text[key] = []
            self._send(
                Text(key[1], "".join(parts), round=_round(key), followup=key in self._followups)
            )

    def _typical(self) -> float:
        if not self.durations:
            return FIRST_GUESS
        ordered = sorted(self.durations)
        return ordered[len(ordered) // 2]


def _round(key: _Key) -> int | None:
    """The Judge's and follow-ups' text has no round (their key's round is 0)."""
    return None if key[1] == "judge" or key[0] == 0 else key[0]


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

    def __call__(self, logged: Logged) -> None:
        if self.failed is not None or self._fd < 0:
            return
        doc = logged.to_json()
        line = _LINE.encode(doc)
        if not _clean_as_is(line):
            line = _LINE.encode(clean_tree(doc))
        line += "\n"
        try:
            write_all(self._fd, line.encode("utf-8"))
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


def _clean_as_is(line: str) -> bool:
    """True when ``line`` is also the line of its event cleaned (``clean_tree`` would change
    none of its strings): most lines, and a check of the line costs a tenth of the
    cleaning. False may be wrong the safe way (a literal backslash before b, f, r or u):
    the line is then made again from the cleaned event."""
    if line.isascii():
        return "\x7f" not in line and ("\\" not in line or _ESCAPED.search(line) is None)
    return _ESCAPED.search(line) is None and _UNCLEAN.search(line) is None


def append_event(path: Path, event: Event) -> None:
    """One event appended to an events file outside a run (collab decide, continue),
    numbered after its last line."""
    sink = JsonlFile(path)
    try:
        EventStream(sink, first_seq=last_seq(path)).emit(event)
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


@dataclass
class EventReader:
    """The events of a file added since the last call, typed (``collab.events``'s rule
    for what a line is). A line that breaks that rule is not guessed: it is left out of
    the events and its problem kept in ``problems`` for the reader's owner to report."""

    path: Path
    offset: int = 0
    problems: list[str] = field(default_factory=list)
    lines: int = 0  # complete lines read so far (from ``offset`` at the start)
    _partial: bytes = field(default=b"", repr=False)

    def new(self) -> list[Logged]:
        try:
            with open(self.path, "rb") as fh:
                fh.seek(self.offset)
                chunk = fh.read()
        except OSError:
            return []
        self.offset += len(chunk)
        *lines, self._partial = (self._partial + chunk).split(b"\n")
        out: list[Logged] = []
        for line in lines:
            self.lines += 1
            try:
                logged = from_json(json.loads(line))
            except BadEvent as exc:
                self.problems.append(f"{self.path.name} line {self.lines}: {exc}")
                continue
            except ValueError:
                continue
            if logged is not None:
                out.append(logged)
        return out
