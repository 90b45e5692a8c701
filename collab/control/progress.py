"""A run's progress as its files tell it: ``events.jsonl`` read from an offset as it
grows, and the estimate of what is left. Nothing here talks to the driver, so any number
of readers (``collab status``, two MCP sessions) can follow one run."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from collab.eventlog import FIRST_GUESS, EventReader
from collab.events import (
    Decided,
    Event,
    FollowupFinished,
    FollowupStarted,
    Heartbeat,
    JudgeFinished,
    JudgeStarted,
    Logged,
    RoundsAdded,
    RoundStarted,
    RunFinished,
    RunStarted,
    RunWarning,
    Text,
    TurnFinished,
    TurnStarted,
)
from collab.state import RunState
from collab.text import clean

EVENTS_FILE = "events.jsonl"
SUMMARY_CHARS = 160


@dataclass
class Progress:
    """What the events of the latest drive of a run say (a resume starts a new one)."""

    started_ts: float | None = None
    last_ts: float | None = None
    round: int | None = None
    judging: bool = False
    finished: bool = False
    attach: str | None = None
    beat: Heartbeat | None = None  # the last heartbeat, if no turn ended after it
    beat_ts: float = 0.0  # when it was sent
    running: set[tuple[int, str]] = field(default_factory=set)

    def add(self, logged: Logged) -> None:
        ev, ts = logged.event, logged.ts
        if _steering(ev):
            return  # asked, answered, noted, decided: after (or between) drives
        self.last_ts = ts
        match ev:
            case RunStarted():
                fresh = Progress(started_ts=ts, last_ts=ts, attach=ev.attach)
                self.__dict__.update(fresh.__dict__)
            case RoundStarted():
                self.round = ev.round
            case TurnStarted():
                self.running.add((ev.round, ev.side))
            case TurnFinished():
                self.running.discard((ev.round, ev.side))
                self.beat = None
            case Heartbeat():
                self.beat, self.beat_ts = ev, ts
            case JudgeStarted():
                self.judging, self.beat = True, None
            case JudgeFinished():
                self.judging, self.beat = False, None
            case RunFinished():
                self.finished, self.judging, self.beat = True, False, None
                self.running.clear()


def _steering(ev: Event) -> bool:
    """An event of steering a run, not of driving it: it moves no clock (elapsed time).
    A warning neither: a driver's comes just before another of its events; an ask's
    (a retry, a report not rewritten) would count the ask."""
    match ev:
        case FollowupStarted() | FollowupFinished() | Decided() | RoundsAdded() | RunWarning():
            return True
        case Text() | Heartbeat():
            return ev.followup
    return False


def read_progress(run_path: Path) -> Progress:
    progress = Progress()
    for ev in EventReader(run_path / EVENTS_FILE).new():
        progress.add(ev)
    return progress


def typical_turn(state: RunState) -> float:
    """The median turn of the run so far, or the first guess before any turn ended."""
    durations = sorted(t.meta.duration for t in state.turns if t.meta.duration > 0)
    return durations[len(durations) // 2] if durations else FIRST_GUESS


def turns_left(state: RunState) -> int:
    if state.stop_reason is not None:
        return 0
    return max(0, len(state.seats) * state.config.rounds - len(state.turns))


def remaining_s(state: RunState, progress: Progress, now: float | None = None) -> float | None:
    """Seconds the run likely still needs: the driver's own estimate from its last
    heartbeat, aged; else the turns left (and the Judge) at the run's typical pace. None
    until a turn has ended: before that the pace is a guess, not this run's."""
    if state.status in ("done", "failed") or progress.finished:
        return 0.0
    if not any(t.meta.duration > 0 for t in state.turns):
        return None
    now = time.time() if now is None else now
    beat = progress.beat
    if beat is not None:
        aged = now - progress.beat_ts
        return round(max(0.0, beat.run_left_s - aged), 1)
    typical = typical_turn(state)
    if progress.judging:
        return round(typical, 1)
    judge = typical if state.judge is None else 0.0
    return round(turns_left(state) * typical + judge, 1)


def summary(prose: str, limit: int = SUMMARY_CHARS) -> str:
    """A turn's prose as one line, cleaned: its first paragraph, cut at a word."""
    text = " ".join(clean(prose).strip().split("\n\n", 1)[0].split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1].rsplit(" ", 1)[0]
    return cut + "…"


# What a waiting ``status`` returns for: a turn or the Judge ended, the run stopped.
MILESTONES = frozenset(
    {"run_started", "turn_finished", "stop", "judge_started", "judge_finished", "run_finished"}
)


class Change:
    """Has anything worth a status happened since this was made?"""

    def __init__(self, run_path: Path) -> None:
        self.run_path = run_path
        events = run_path / EVENTS_FILE
        try:
            start = events.stat().st_size
        except OSError:
            start = 0
        self.reader = EventReader(events, offset=start)

    def seen(self, driven: Callable[[Path], object]) -> bool:
        """A milestone in the new events, or nobody drives the run any more."""
        if any(logged.event.kind in MILESTONES for logged in self.reader.new()):
            return True
        return driven(self.run_path) is None
