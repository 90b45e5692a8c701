"""The whole of a run as it is saved after every turn; the ledger is derived from the turns."""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from typing import Literal

from collab import __version__
from collab.config import DebateConfig
from collab.errors import UsageError
from collab.ledger import Ledger, Side, ledger_to_dict, replay
from collab.replies import Usage, sum_usage
from collab.store import RunDir
from collab.turns import AgentMeta, TurnRecord, meta_from_dict

RunStatus = Literal["pending", "running", "done", "interrupted", "failed"]


@dataclass
class Angle:
    round_no: int
    text: str
    issue_ids: tuple[str, ...]


@dataclass
class Judge:
    text: str
    fallback: bool
    meta: AgentMeta | None


@dataclass
class RunState:
    run_id: str
    config: DebateConfig
    created: str = field(default_factory=lambda: time.strftime("%Y-%m-%dT%H:%M:%S%z"))
    # For ordering runs started within the same second.
    created_ts: float = field(default_factory=time.time)
    status: RunStatus = "running"
    stop_reason: str | None = None
    stop_detail: str = ""
    error: str | None = None
    turns: list[TurnRecord] = field(default_factory=list)
    # Round numbers whose end-of-round stop check has been made (and acted on).
    checked_rounds: list[int] = field(default_factory=list)
    angle: Angle | None = None
    judge: Judge | None = None
    warnings: list[str] = field(default_factory=list)
    # The private temp dir of the process driving the run, so a resume after a crash can
    # stop agents still running from it and remove it.
    temp_dir: str | None = None

    # -- derived -------------------------------------------------------------------
    def ledger(self, upto_round: int | None = None) -> Ledger:
        return replay(
            (t.side, t.round_no, t.contract)
            for t in self.turns
            if upto_round is None or t.round_no <= upto_round
        )

    def round_ledgers(self) -> list[Ledger]:
        return [self.ledger(r) for r in range(1, self.rounds_done() + 1)]

    def turn(self, round_no: int, side: Side) -> TurnRecord | None:
        for t in self.turns:
            if t.round_no == round_no and t.side == side:
                return t
        return None

    def rounds_done(self) -> int:
        done = 0
        for r in range(1, self.config.rounds + 1):
            if self.turn(r, "A") and self.turn(r, "B"):
                done = r
            else:
                break
        return done

    def _metas(self, side: Side | None = None) -> list[AgentMeta]:
        """Every agent call of the run (one side's, or all with the judge's)."""
        metas: list[AgentMeta] = []
        for t in self.turns:
            if side is None or t.side == side:
                metas += [m for m in (t.meta, t.reask) if m is not None]
        if side is None and self.judge is not None and self.judge.meta is not None:
            metas.append(self.judge.meta)
        return metas

    def cost_usd(self, side: Side | None = None) -> float | None:
        known = [m.cost_usd for m in self._metas(side) if m.cost_usd is not None]
        return round(sum(known), 6) if known else None

    def tokens(self) -> Usage:
        return sum_usage([m.usage for m in self._metas() if m.usage is not None]) or Usage()

    # -- persistence -----------------------------------------------------------------
    def to_dict(self) -> dict[str, object]:
        ledger = self.ledger()
        return {
            "collab_version": __version__,
            "run_id": self.run_id,
            "created": self.created,
            "created_ts": self.created_ts,
            "status": self.status,
            "stop_reason": self.stop_reason,
            "stop_detail": self.stop_detail,
            "error": self.error,
            "config": self.config.to_dict(),
            "rounds_done": self.rounds_done(),
            "turns": [t.to_dict() for t in self.turns],
            "checked_rounds": list(self.checked_rounds),
            "angle": None if self.angle is None else asdict(self.angle),
            "judge": None if self.judge is None else asdict(self.judge),
            "warnings": list(self.warnings),
            "temp_dir": self.temp_dir,
            # Derived, kept for readers of state.json (resume recomputes them).
            "ledger": ledger_to_dict(ledger),
            "round_ledgers": [ledger_to_dict(lg) for lg in self.round_ledgers()],
            "cost_usd": self.cost_usd(),
            "cost_usd_by_side": {"A": self.cost_usd("A"), "B": self.cost_usd("B")},
            "tokens": asdict(self.tokens()),
        }

    @staticmethod
    def from_dict(d: dict[str, object]) -> RunState:
        cfg_raw = d["config"]
        assert isinstance(cfg_raw, dict)
        turns_raw = d.get("turns") or []
        assert isinstance(turns_raw, list)
        angle_raw = d.get("angle")
        judge_raw = d.get("judge")
        checked = d.get("checked_rounds") or []
        assert isinstance(checked, list)
        warnings = d.get("warnings") or []
        assert isinstance(warnings, list)
        status = d.get("status", "running")
        assert status in ("pending", "running", "done", "interrupted", "failed")
        st = RunState(
            run_id=str(d["run_id"]),
            config=DebateConfig.from_dict(cfg_raw),
            created=str(d.get("created", "")),
            created_ts=float(str(d.get("created_ts", 0.0))),
            status=status,
            stop_reason=None if d.get("stop_reason") is None else str(d["stop_reason"]),
            stop_detail=str(d.get("stop_detail") or ""),
            error=None if d.get("error") is None else str(d["error"]),
            turns=[TurnRecord.from_dict(t) for t in turns_raw],
            checked_rounds=[int(x) for x in checked],
            warnings=[str(w) for w in warnings],
            temp_dir=None if d.get("temp_dir") is None else str(d["temp_dir"]),
        )
        if isinstance(angle_raw, dict):
            st.angle = Angle(
                round_no=int(angle_raw["round_no"]),
                text=str(angle_raw["text"]),
                issue_ids=tuple(str(x) for x in angle_raw.get("issue_ids", ())),
            )
        if isinstance(judge_raw, dict):
            meta = judge_raw.get("meta")
            st.judge = Judge(
                text=str(judge_raw["text"]),
                fallback=bool(judge_raw.get("fallback")),
                meta=None if meta is None else meta_from_dict(meta),
            )
        return st


def load_state(run_dir: RunDir) -> RunState:
    try:
        return RunState.from_dict(run_dir.load())
    except (KeyError, AssertionError, ValueError, TypeError) as exc:
        raise UsageError(f"run {run_dir.run_id}: state.json is damaged ({exc!r})") from None
