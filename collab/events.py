"""What the orchestrator tells the outside world while a debate runs.

``Listener`` has a no-op for every event so a listener implements only what it shows.
"""

from __future__ import annotations

from collab.config import DebateConfig
from collab.ledger import Ledger, Side
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

    def judge_finished(self, text: str, fallback: bool) -> None:
        pass
