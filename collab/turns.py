"""What one turn left behind, as kept in state.json and shown to people."""

from __future__ import annotations

from dataclasses import asdict, field, fields
from typing import Literal, get_args

from collab.agents.decoding import Usage
from collab.contract import Contract, contract_from_dict, contract_to_dict
from collab.evidence import EVIDENCE_STATUSES, EvidenceCheck
from collab.fields import Fields
from collab.records import record
from collab.seats import SIDES, Side

TurnStatus = Literal["ok", "abstain", "timeout", "no-response", "error"]
TURN_STATUSES: tuple[TurnStatus, ...] = get_args(TurnStatus)

PLACEHOLDER = {"timeout": "(timeout)", "no-response": "(no response)", "error": "(error)"}


@record
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
    # ``cost_usd`` is collab's estimate (collab.prices), the agent reported none.
    cost_estimated: bool = False


@record
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
    # Points and stances the contract block held, and how many passed validation.
    items_sent: int = 0
    items_kept: int = 0
    # The reply as the agent wrote it, uncut, relative to the run dir (``reply`` is cut
    # at the reply cap with a marker).
    raw_file: str | None = None
    # What the evidence check found for each cite in this turn's contract.
    evidence_checks: tuple[EvidenceCheck, ...] = ()

    @property
    def cost_usd(self) -> float | None:
        costs = [m.cost_usd for m in (self.meta, self.reask) if m is not None]
        known = [c for c in costs if c is not None]
        return sum(known) if known else None

    def to_dict(self) -> dict[str, object]:
        # Field by field, not asdict(self), which deep-copied the contract only for it to
        # be replaced here (a run is saved after every step with all its turns).
        d: dict[str, object] = {f.name: getattr(self, f.name) for f in _TURN_FIELDS}
        d["meta"] = meta_to_dict(self.meta)
        d["reask"] = None if self.reask is None else meta_to_dict(self.reask)
        d["contract"] = None if self.contract is None else contract_to_dict(self.contract)
        d["warnings"] = list(self.warnings)
        d["evidence_checks"] = [asdict(c) for c in self.evidence_checks]
        return d

    @staticmethod
    def from_fields(f: Fields, seats: tuple[Side, ...] = SIDES) -> TurnRecord:
        """``seats``: the run's seats (a turn of another seat is damage)."""
        contract = f.get("contract")
        reask = f.opt_obj("reask")
        return TurnRecord(
            round_no=f.int("round_no"),
            side=f.literal("side", seats),
            role_name=f.str("role_name"),
            status=f.literal("status", TURN_STATUSES),
            reply=f.str("reply"),
            prose=f.str("prose"),
            contract=None if contract is None else contract_from_dict(contract, f.at("contract")),
            contract_error=f.opt_str("contract_error"),
            prompt_sha256=f.str("prompt_sha256"),
            meta=meta_from_fields(f.obj("meta")),
            reask=None if reask is None else meta_from_fields(reask),
            warnings=tuple(f.strs("warnings")),
            items_sent=f.int("items_sent", 0),
            items_kept=f.int("items_kept", 0),
            raw_file=f.opt_str("raw_file"),
            evidence_checks=tuple(
                EvidenceCheck(
                    c.str("cite"), c.opt_str("quote"), c.literal("status", EVIDENCE_STATUSES)
                )
                for c in f.items("evidence_checks")
            ),
        )


def meta_to_dict(meta: AgentMeta) -> dict[str, object]:
    """``asdict(meta)``, field by field: its fields are scalars but the usage, whose are
    ints (asdict deep-copies each value, ~8x the cost, on every turn a run records)."""
    d: dict[str, object] = {f.name: getattr(meta, f.name) for f in _META_FIELDS}
    usage = meta.usage
    d["usage"] = None if usage is None else {f.name: getattr(usage, f.name) for f in _USAGE_FIELDS}
    return d


def meta_from_fields(f: Fields) -> AgentMeta:
    usage = f.opt_obj("usage")
    return AgentMeta(
        agent=f.str("agent"),
        model=f.opt_str("model"),
        exit_code=f.opt_int("exit_code"),
        duration=f.float("duration", 0.0),
        attempts=f.int("attempts", 1),
        usage=None if usage is None else usage_from_fields(usage),
        cost_usd=f.opt_float("cost_usd"),
        session_id=f.opt_str("session_id"),
        error=f.opt_str("error"),
        pane_restarts=f.int("pane_restarts", 0),
        cost_estimated=f.bool("cost_estimated", False),
    )


def usage_from_fields(f: Fields) -> Usage:
    # Unknown keys were refused before (Usage(**raw)); they still are, by name.
    f.only(_USAGE_KEYS)
    return Usage(
        input_tokens=f.int("input_tokens", 0),
        output_tokens=f.int("output_tokens", 0),
        cache_read_tokens=f.int("cache_read_tokens", 0),
        cache_write_tokens=f.int("cache_write_tokens", 0),
    )


_USAGE_KEYS = tuple(u.name for u in fields(Usage))
_TURN_FIELDS = fields(TurnRecord)
_META_FIELDS = fields(AgentMeta)
_USAGE_FIELDS = fields(Usage)
