"""The return contract: the small JSON block that ends every debater's reply.

The types, their caps, and how a contract is kept in state.json. Reading one out of a
reply is ``collab.contract_parse``. Pure: no I/O.
"""

from __future__ import annotations

from typing import Literal, get_args

from collab.fields import DamagedField
from collab.records import record

StanceKind = Literal["agree", "contest", "drop"]
# How much an issue weighs on the decision; a point without one is "major".
Severity = Literal["blocking", "major", "minor"]

STANCE_KINDS: tuple[StanceKind, ...] = get_args(StanceKind)
SEVERITIES: tuple[Severity, ...] = get_args(Severity)
DEFAULT_SEVERITY: Severity = "major"
TOP_KEYS = ("new_points", "stances", "abstain")
# With --option: the option id (O1…) the seat favours now. Optional, and not enough alone
# to make a block a contract.
FAVOURS_KEY = "favours"
_POINT_KEYS = ("title", "evidence", "severity")
_STANCE_KEYS = ("id", "stance", "evidence", "severity")


@record
class Limits:
    """Caps that keep one reply from flooding the ledger or the next prompt."""

    max_new_points: int = 5
    max_stances: int = 20
    max_title_chars: int = 120
    max_evidence_chars: int = 600
    max_abstain_chars: int = 300


DEFAULT_LIMITS = Limits()


@record
class NewPoint:
    title: str
    evidence: str
    severity: Severity = DEFAULT_SEVERITY


@record
class StanceUpdate:
    id: str
    stance: StanceKind
    evidence: str
    # A reasoned re-rating of the severity (None: unchanged).
    severity: Severity | None = None


@record
class Contract:
    new_points: tuple[NewPoint, ...] = ()
    stances: tuple[StanceUpdate, ...] = ()
    abstain: str | None = None
    favours: str | None = None  # an option id of the run's (O1…), validated by the parser


class _Invalid(ValueError):
    pass


def kind_of(value: object) -> str:
    """How a JSON value is named in a message: "a string", "null", "an object"…"""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    return "an object"


def _obj(value: object, where: str, keys: tuple[str, ...]) -> dict[str, object]:
    if not isinstance(value, dict):
        raise _Invalid(f"{where} must be a JSON object, not {kind_of(value)}")
    extra = [k for k in value if k not in keys]
    if extra:
        raise _Invalid(f"unknown key {extra[0]!r} in {where} (allowed: {', '.join(keys)})")
    return value


def _str(obj: dict[str, object], key: str, where: str, *, required: bool = True) -> str:
    if key not in obj:
        if required:
            raise _Invalid(f"{where} has no {key!r}")
        return ""
    value = obj[key]
    if not isinstance(value, str):
        raise _Invalid(f"{where}.{key} must be a string, not {kind_of(value)}")
    return value


def _list(data: dict[str, object], key: str) -> list[object]:
    raw = data.get(key)
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise _Invalid(f"{key} must be a list, not {kind_of(raw)}")
    return raw


def _build(data: object) -> Contract:
    """Shape and types only: what the parser accepted once is not re-judged on load."""
    top = _obj(data, "the contract", (*TOP_KEYS, FAVOURS_KEY))
    points = []
    for i, raw in enumerate(_list(top, "new_points")):
        where = f"new_points[{i}]"
        item = _obj(raw, where, _POINT_KEYS)
        points.append(
            NewPoint(
                _str(item, "title", where),
                _str(item, "evidence", where, required=False),
                _severity(item, where) or DEFAULT_SEVERITY,
            )
        )
    stances = []
    for i, raw in enumerate(_list(top, "stances")):
        where = f"stances[{i}]"
        item = _obj(raw, where, _STANCE_KEYS)
        kind = _str(item, "stance", where)
        stance = next((k for k in STANCE_KINDS if k == kind), None)
        if stance is None:
            raise _Invalid(f"{where}.stance must be one of {'/'.join(STANCE_KINDS)}, not {kind!r}")
        evidence = _str(item, "evidence", where, required=False)
        stances.append(
            StanceUpdate(_str(item, "id", where), stance, evidence, _severity(item, where))
        )
    abstain = top.get("abstain")
    if abstain is not None and not isinstance(abstain, str):
        raise _Invalid(f"abstain must be null or a string, not {kind_of(abstain)}")
    favours = top.get(FAVOURS_KEY)
    if favours is not None and not isinstance(favours, str):
        raise _Invalid(f"favours must be null or a string, not {kind_of(favours)}")
    return Contract(tuple(points), tuple(stances), abstain, favours)


def _severity(item: dict[str, object], where: str) -> Severity | None:
    raw = item.get("severity")
    if raw is None:
        return None
    found = next((k for k in SEVERITIES if k == raw), None)
    if found is None:
        raise _Invalid(f"{where}.severity must be one of {'/'.join(SEVERITIES)}, not {raw!r}")
    return found


def contract_to_dict(contract: Contract) -> dict[str, object]:
    doc: dict[str, object] = {
        "new_points": [
            {"title": p.title, "evidence": p.evidence, "severity": p.severity}
            for p in contract.new_points
        ],
        "stances": [
            {"id": s.id, "stance": s.stance, "evidence": s.evidence}
            | ({"severity": s.severity} if s.severity else {})
            for s in contract.stances
        ],
        "abstain": contract.abstain,
    }
    if contract.favours:  # only with --option: older documents stay as they were
        doc[FAVOURS_KEY] = contract.favours
    return doc


def contract_from_dict(data: object, path: str = "contract") -> Contract:
    """Shape and types only: what parse accepted once is not re-judged on load.

    A bad shape raises ``DamagedField`` at ``path``, the message saying where inside."""
    try:
        return _build(data)
    except _Invalid as exc:
        raise DamagedField(path, str(exc)) from None
