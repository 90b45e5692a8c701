"""The decision-quality scorer: deterministic, from a sample's final ledger and the key.

A sample is one protocol run on one case; its ``issues`` are the final ledger as
``collab.ledger.ledger_to_dict`` writes it (for ``single``, the one call's points as a
one-seat ledger). The rules:

- an issue **counts** when it is still standing (not ``dropped``: the debate withdrew it)
  and its severity is ``blocking`` or ``major``; a ``minor`` mention never counts;
- a planted flaw is **found** when a counting issue matches one of its expressions
  (case-insensitive, in the title or either side's evidence), or cites a ``path:line``
  range overlapping the flaw's location;
- a **false alarm** is a standing ``blocking`` issue on a clean case, or, on a planted
  case, one that matches no planted flaw;
- **evidence verified**: of every cite the evidence check saw in the final ledger, the
  share that verified.

The Judge's prose is never read. Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from collab.evidence import cites, normal

COUNTING = ("blocking", "major")
Issue = Mapping[str, object]
Key = Mapping[str, object]


@dataclass(frozen=True)
class CaseScore:
    planted: int
    found: tuple[str, ...]  # ids of the planted flaws found
    false_alarms: int
    cites: int
    verified: int


def _text(issue: Issue) -> str:
    return " ".join(str(issue.get(k) or "") for k in ("title", "evidence_a", "evidence_b"))


def _standing(issue: Issue) -> bool:
    return issue.get("status") != "dropped"


def matches(issue: Issue, flaw: Mapping[str, object]) -> bool:
    """Does this issue name the flaw: by one of its expressions, or by a cite in range?"""
    text = _text(issue)
    patterns = flaw.get("patterns")
    for p in patterns if isinstance(patterns, list) else []:
        if re.search(str(p), text, re.IGNORECASE):
            return True
    (where,) = cites(str(flaw.get("where", ""))) or (None,)
    if where is None:
        return False
    for c in cites(text):
        if normal(c.path) == normal(where.path) and c.start <= where.end and c.end >= where.start:
            return True
    return False


def score_case(key: Key, issues: Sequence[Issue]) -> CaseScore:
    raw = key.get("flaws")
    flaws = [f for f in raw if isinstance(f, Mapping)] if isinstance(raw, list) else []
    counting = [i for i in issues if _standing(i) and i.get("severity", "major") in COUNTING]
    found = tuple(str(f.get("id")) for f in flaws if any(matches(i, f) for i in counting))
    blocking = [i for i in issues if _standing(i) and i.get("severity") == "blocking"]
    alarms = sum(1 for i in blocking if not any(matches(i, f) for f in flaws))
    checks = [
        c
        for i in issues
        for side in ("checks_a", "checks_b")
        for c in (i.get(side) or [])  # type: ignore[attr-defined]
        if isinstance(c, Mapping)
    ]
    verified = sum(1 for c in checks if c.get("status") == "verified")
    return CaseScore(len(flaws), found, alarms, len(checks), verified)


@dataclass
class Total:
    """One protocol over every case (and repeat) it ran."""

    samples: int = 0
    planted: int = 0
    found: int = 0
    false_alarms: int = 0
    clean_samples: int = 0
    clean_with_alarm: int = 0
    cites: int = 0
    verified: int = 0
    calls: int = 0
    tokens: int = 0
    cost_usd: float | None = None
    wall_s: float = 0.0
    errors: int = 0
    # --grader: flaws the grader said an issue names (None: no grader in these samples).
    grader_found: int | None = None
    per_case: dict[str, list[CaseScore]] = field(default_factory=dict)

    def add(self, case: str, clean: bool, s: CaseScore, sample: Mapping[str, object]) -> None:
        self.samples += 1
        self.planted += s.planted
        self.found += len(s.found)
        self.false_alarms += s.false_alarms
        if clean:
            self.clean_samples += 1
            self.clean_with_alarm += 1 if s.false_alarms else 0
        self.cites += s.cites
        self.verified += s.verified
        self.calls += _int(sample.get("calls"))
        self.tokens += _int(sample.get("tokens"))
        cost = sample.get("cost_usd")
        if isinstance(cost, int | float):
            self.cost_usd = (self.cost_usd or 0.0) + float(cost)
        wall = sample.get("wall_s")
        self.wall_s += float(wall) if isinstance(wall, int | float) else 0.0
        self.errors += 1 if sample.get("error") else 0
        self.per_case.setdefault(case, []).append(s)
        graded = sample.get("grader")
        if isinstance(graded, Mapping):
            hits = sum(1 for ids in graded.values() if ids)
            self.grader_found = (self.grader_found or 0) + hits

    @property
    def recall(self) -> float | None:
        return self.found / self.planted if self.planted else None

    @property
    def verified_share(self) -> float | None:
        return self.verified / self.cites if self.cites else None


def _int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def score(samples: Sequence[Mapping[str, object]], keys: Mapping[str, Key]) -> dict[str, Total]:
    """Per protocol, in the order protocols first appear in ``samples``."""
    totals: dict[str, Total] = {}
    for sample in samples:
        name = str(sample.get("case"))
        key = keys[name]
        issues = sample.get("issues")
        rows = [i for i in issues if isinstance(i, Mapping)] if isinstance(issues, list) else []
        s = score_case(key, rows)
        flaws = key.get("flaws")
        clean = not (isinstance(flaws, list) and flaws)
        totals.setdefault(str(sample.get("protocol")), Total()).add(name, clean, s, sample)
    return totals
