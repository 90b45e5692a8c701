"""What the orchestrator tells the outside world while a debate runs.

``Listener`` has a no-op for every event so a listener implements only what it shows;
``Fanout`` tells several at once (the terminal view, events.jsonl, ``--events ndjson``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from collab.config import DebateConfig
from collab.ledger import Ledger
from collab.seats import Side
from collab.turns import TurnRecord


class Listener:
    def run_started(
        self, run_id: str, cfg: DebateConfig, runner: str, attach: str | None, resumed: bool
    ) -> None:
        pass

    def round_started(self, round_no: int, total: int) -> None:
        pass

    def turn_started(self, round_no: int, side: Side, role_name: str) -> None:
        pass

    def turn_output(self, round_no: int, side: Side, text: str, elapsed: float) -> None:
        """About every 50 ms while a turn runs: the reply text added since (maybe "")."""

    def turn_retry(self, round_no: int, side: Side, reason: str, detail: str) -> None:
        pass

    def turn_finished(self, turn: TurnRecord) -> None:
        pass

    def warning(self, text: str) -> None:
        pass

    def round_finished(self, round_no: int, ledger: Ledger) -> None:
        pass

    def angle_injected(self, round_no: int, text: str, issue_ids: tuple[str, ...]) -> None:
        pass

    def stopped(self, reason: str, detail: str) -> None:
        pass

    def judge_started(self) -> None:
        pass

    def judge_output(self, text: str, elapsed: float) -> None:
        """Like ``turn_output``, for the Judge."""

    def judge_finished(self, text: str, fallback: bool) -> None:
        pass

    def followup_started(self, seat: str, question: str) -> None:
        """``collab ask``: a follow-up turn of ``seat`` (A, B or judge) begins."""

    def followup_output(self, seat: str, text: str, elapsed: float) -> None:
        """Like ``turn_output``, for a follow-up turn."""

    def followup_finished(self, seat: str, answer: str, status: str) -> None:
        pass

    def continued(self, after_round: int, rounds: int, note: str | None) -> None:
        """``collab continue``: ``rounds`` more rounds after round ``after_round``."""

    def run_finished(self, status: str, exit_code: int, error: str | None) -> None:
        """The last event of a run (also after Ctrl-C or a runner failure)."""


class Fanout(Listener):
    """Every event to each listener, in order."""

    def __init__(self, *listeners: Listener) -> None:
        self.listeners = listeners


def _fan_out(name: str) -> Callable[..., None]:
    def method(self: Fanout, *args: object, **kwargs: object) -> None:
        for listener in self.listeners:
            getattr(listener, name)(*args, **kwargs)

    method.__name__ = name
    return method


class Locked(Listener):
    """One event at a time to ``inner``, whichever thread reports it."""

    def __init__(self, inner: Listener) -> None:
        self.inner = inner
        self.lock = threading.RLock()


def _locked(name: str) -> Callable[..., None]:
    def method(self: Locked, *args: object, **kwargs: object) -> None:
        with self.lock:
            getattr(self.inner, name)(*args, **kwargs)

    method.__name__ = name
    return method


for _name in [n for n in vars(Listener) if not n.startswith("_")]:
    setattr(Fanout, _name, _fan_out(_name))
    setattr(Locked, _name, _locked(_name))
