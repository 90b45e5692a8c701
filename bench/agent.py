"""The bench agent (``agent.sh``): the reply it prints and the log of its calls.

It prints a canned ``claude --output-format json`` reply (900 characters of prose and a
valid contract raising two points) and, as its last act, logs its first and last
``$EPOCHREALTIME``: the agents' own time, and the moment each one exited.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

AGENT_SCRIPT = Path(__file__).resolve().parent / "agent.sh"


def claude_json_doc(text: str) -> str:
    """What ``claude -p --output-format json`` prints for a successful reply."""
    doc = {
        "type": "result",
        "subtype": "success",
        "is_error": False,
        "duration_ms": 1,
        "num_turns": 1,
        "result": text,
        "stop_reason": "end_turn",
        "session_id": "00000000-0000-4000-a000-000000000000",
        "total_cost_usd": 0.00075,
        "usage": {
            "input_tokens": 100,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            "output_tokens": 50,
        },
    }
    return json.dumps(doc, ensure_ascii=False) + "\n"


_WORDS = [
    "latency",
    "throughput",
    "session",
    "token",
    "revocation",
    "cache",
    "invalidation",
    "audit",
    "trail",
    "rollout",
    "migration",
    "operator",
    "incident",
    "budget",
    "storage",
    "replica",
    "consistency",
    "failover",
    "benchmark",
    "evidence",
    "customer",
    "contract",
    "regression",
    "deadline",
    "complexity",
    "review",
    "threat",
    "surface",
    "rotation",
    "signature",
    "expiry",
    "cookie",
    "database",
    "cluster",
    "scaling",
    "observability",
    "alerting",
    "dashboard",
    "runbook",
    "headcount",
    "onboarding",
    "vendor",
    "license",
    "compliance",
    "retention",
]


def prose(chars: int, seed: int) -> str:
    """Plausible-looking English-ish prose of about ``chars`` characters, in sentences."""
    rng = random.Random(seed)
    out: list[str] = []
    size = 0
    while size < chars:
        n = rng.randint(8, 18)
        words = [rng.choice(_WORDS) for _ in range(n)]
        sentence = " ".join(words).capitalize() + "."
        out.append(sentence)
        size += len(sentence) + 1
    text = " ".join(out)
    return text[:chars].rstrip() + "."


def contract_block(
    new: Sequence[tuple[str, str]] = (),
    stances: Sequence[tuple[str, str, str]] = (),
    abstain: str | None = None,
) -> str:
    doc = {
        "new_points": [{"title": t, "evidence": e} for t, e in new],
        "stances": [{"id": i, "stance": s, "evidence": e} for i, s, e in stances],
        "abstain": abstain,
    }
    return "```json\n" + json.dumps(doc, ensure_ascii=False) + "\n```\n"


def debater_reply(seed: int = 1, prose_chars: int = 900) -> str:
    """A reply with ~900 chars of prose and a valid contract raising two new points."""
    new = [
        (f"Point {seed}-{k}: {prose(50, seed * 10 + k)}", prose(250, seed * 100 + k))
        for k in (1, 2)
    ]
    return prose(prose_chars, seed) + "\n\n" + contract_block(new)


def judge_sections(seed: int = 1, chars: int = 40) -> str:
    """Every section collab requires of a Judge's answer (``REQUIRED_SECTIONS``, read from
    collab so a new one cannot be missed), each heading over ``chars`` of prose. Without
    them the Judge is asked again and then summarised from the ledger (a fallback the
    benches refuse to time)."""
    from collab.judge.answer import REQUIRED_SECTIONS

    return "\n\n".join(
        f"## {section.headings['en']}\n{prose(chars, seed + k)}"
        for k, section in enumerate(REQUIRED_SECTIONS)
    )


def any_seat_reply(seed: int = 1) -> str:
    """One reply for every seat of a bench debate: the Judge's required sections (it is
    retried without them) over a debater's prose (~700 chars) and contract."""
    return judge_sections(seed) + "\n\n" + debater_reply(seed, prose_chars=700)


@dataclass(frozen=True)
class AgentCall:
    pid: int
    start: float  # CLOCK_REALTIME seconds
    end: float
    stdin: str = ""  # with BENCH_AGENT_TAG=1: the prompt file the agent read

    @property
    def duration(self) -> float:
        return self.end - self.start


def read_agent_log(path: Path) -> list[AgentCall]:
    """Every call the bench agent logged, in start order."""
    if not path.exists():
        return []
    calls: list[AgentCall] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        parts = line.split(maxsplit=3)
        if len(parts) < 3:
            continue
        # $EPOCHREALTIME uses the locale's decimal point.
        start, end = (float(p.replace(",", ".")) for p in parts[1:3])
        calls.append(AgentCall(int(parts[0]), start, end, parts[3] if len(parts) > 3 else ""))
    calls.sort(key=lambda c: c.start)
    return calls
