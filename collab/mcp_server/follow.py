"""The blocking ``debate`` tool: follow a detached run through its events.jsonl and turn
what happens into MCP progress notifications, one per turn (and per round, the Judge and
the end) with a heartbeat in between, until the run is no longer driven.

MCP wants each notification's ``progress`` to grow: it counts finished turns (the Judge
is the last unit), and a heartbeat adds a fraction of the turn in flight."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

import anyio

from collab.control import EventReader, driver_pid, summary
from collab.control.progress import EVENTS_FILE
from collab.events import (
    Heartbeat,
    JudgeFinished,
    JudgeStarted,
    Logged,
    RoundStarted,
    RunFinished,
    RunStarted,
    Stopped,
    TurnFinished,
)
from collab.outcome import FINISHING_REASONS
from collab.store import RunDir

Report = Callable[[float, float, str], Awaitable[None]]
POLL = 0.1
HEARTBEAT_EVERY = 5.0
# A run whose driver is gone and whose file has been quiet this long is over.
IDLE_GRACE = 1.0


class Tracker:
    """Progress units done so far, and the message for an event (None: not worth one)."""

    def __init__(self, rounds: int) -> None:
        self.total = float(2 * rounds + 1)
        self.done = 0.0
        self.last = 0.0
        self.round = 0
        self.rounds = rounds
        self.beat: Heartbeat | None = None
        self.paced = False  # a turn has ended: the estimate rests on this run's own pace

    def message(self, logged: Logged) -> str | None:
        ev = logged.event
        match ev:
            case RunStarted():  # a panel: every seat's turns of every round, then the Judge
                self.total = float(len(ev.roles) * self.rounds + 1)
                return None
            case RoundStarted():
                self.round = ev.round
                return f"round {self.round}/{self.rounds} started"
            case TurnFinished():
                self.done = min(self.total - 1, self.done + 1)
                self.beat, self.paced = None, True
                line = summary(ev.prose, 120)
                head = f"round {ev.round}: {ev.side} ({ev.role}) {ev.status}"
                head += f", favours {ev.favours}" if ev.favours else ""
                return f"{head} — {line}".rstrip(" —")
            case Heartbeat():
                self.beat = ev
                return None
            case Stopped():
                self.done = self.total - 1
                ended = "ended" if ev.reason in FINISHING_REASONS else "stopped"
                return f"{ended}: {ev.reason} — {ev.detail}"
            case JudgeStarted():
                self.done = self.total - 1
                return "the Judge is writing the summary"
            case JudgeFinished():
                self.done = self.total
                return "the Judge has finished"
            case RunFinished():
                return f"run finished: {ev.status}"
        return None

    def heartbeat(self, started: float) -> str:
        beat = self.beat
        elapsed = time.monotonic() - started
        if beat is None:
            return f"working · {elapsed:.0f}s so far"
        left = f" · about {beat.run_left_s:.0f}s left" if self.paced else ""
        return f"{beat.side} writing for {beat.elapsed_s:.0f}s · {elapsed:.0f}s so far{left}"

    def value(self, heartbeat: bool = False) -> float:
        """The next progress value: never lower than the last, strictly higher each time."""
        v = self.done
        beat = self.beat
        if heartbeat and beat is not None:
            ran, left = beat.elapsed_s, beat.turn_left_s
            v += 0.9 * ran / (ran + left) if ran + left > 0 else 0.0
        v = max(v, self.last + 0.001)
        self.last = v
        return round(v, 3)


async def follow(run_dir: RunDir, rounds: int, report: Report) -> None:
    """Return once the run has ended (or its driver has gone away)."""
    reader = EventReader(run_dir.path / EVENTS_FILE)
    tracker = Tracker(rounds)
    started = time.monotonic()
    last_sent = quiet_since = started
    while True:
        events = reader.new()
        now = time.monotonic()
        if events:
            quiet_since = now
        for ev in events:
            text = tracker.message(ev)
            if text is not None:
                await report(tracker.value(), tracker.total, text)
                last_sent = time.monotonic()
        if now - last_sent >= HEARTBEAT_EVERY:
            await report(tracker.value(heartbeat=True), tracker.total, tracker.heartbeat(started))
            last_sent = now
        if not events and now - quiet_since >= IDLE_GRACE:
            if await anyio.to_thread.run_sync(driver_pid, run_dir.path) is None:
                return
            quiet_since = now
        await anyio.sleep(POLL)
