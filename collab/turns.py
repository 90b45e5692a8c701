"""What one turn left behind, as kept in state.json and shown to people."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Literal

from collab.contract import Contract, contract_from_dict, contract_to_dict
from collab.ledger import Side
from collab.replies import Usage

TurnStatus = Literal["ok", "abstain", "timeout", "no-response", "error"]

PLACEHOLDER = {"timeout": "(timeout)", "no-response": "(no response)", "error": "(error)"}


@dataclass(frozen=True)
class AgentMeta:
    agent: str
    model: str | None
    exit_code: int | None
    duration: float
    attempts: int
    usage: Usage | None = None
    cost_usd: float | None = None
    session_id: str | None = None
    error: str | None = None
    pane_restarts: int = 0


@dataclass(frozen=True)
class TurnRecord:
    round_no: int
    side: Side
    role_name: str
    status: TurnStatus
    reply: str
    prose: str
    contract: Contract | None
    contract_error: str | None
    prompt_sha256: str
    meta: AgentMeta
    reask: AgentMeta | None = None
    warnings: tuple[str, ...] = field(default_factory=tuple)

    @property
    def cost_usd(self) -> float | None:
        costs = [m.cost_usd for m in (self.meta, self.reask) if m is not None]
        known = [c for c in costs if c is not None]
        return sum(known) if known else None

    def to_dict(self) -> dict[str, object]:
        d = asdict(self)
        d["contract"] = None if self.contract is None else contract_to_dict(self.contract)
        d["warnings"] = list(self.warnings)
        return d

    @staticmethod
    def from_dict(d: dict[str, object]) -> TurnRecord:
        raw_contract = d.get("contract")
        side = d["side"]
        assert side in ("A", "B")
        status = d["status"]
        assert status in ("ok", "abstain", "timeout", "no-response", "error")
        reask = d.get("reask")
        warnings = d.get("warnings") or []
        assert isinstance(warnings, list)
        return TurnRecord(
            round_no=int(str(d["round_no"])),
            side=side,
            role_name=str(d["role_name"]),
            status=status,
            reply=str(d["reply"]),
            prose=str(d["prose"]),
            contract=None if raw_contract is None else contract_from_dict(raw_contract),
            contract_error=_opt_str(d.get("contract_error")),
            prompt_sha256=str(d["prompt_sha256"]),
            meta=meta_from_dict(d["meta"]),
            reask=None if reask is None else meta_from_dict(reask),
            warnings=tuple(str(w) for w in warnings),
        )


def meta_from_dict(raw: object) -> AgentMeta:
    assert isinstance(raw, dict)
    usage = raw.get("usage")
    cost = raw.get("cost_usd")
    code = raw.get("exit_code")
    return AgentMeta(
        agent=str(raw["agent"]),
        model=_opt_str(raw.get("model")),
        exit_code=None if code is None else int(code),
        duration=float(raw.get("duration", 0.0)),
        attempts=int(raw.get("attempts", 1)),
        usage=Usage(**usage) if isinstance(usage, dict) else None,
        cost_usd=None if cost is None else float(cost),
        session_id=_opt_str(raw.get("session_id")),
        error=_opt_str(raw.get("error")),
        pane_restarts=int(raw.get("pane_restarts", 0)),
    )


def _opt_str(v: object) -> str | None:
    return None if v is None else str(v)
