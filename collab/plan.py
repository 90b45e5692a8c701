"""The plan of a run, made before its first call: the seats, the depth, the fewest and the
most calls it can make (retries and re-asks included) and an expected cost range. Pure.

The cost comes from this machine's past runs where a seat's agent and model have some
(the mean cost of a turn and of a Judge's answer, retries included, as ``collab stats``
reads them), else from the prompt sizes at the dated list prices of :mod:`collab.prices`
(:func:`price_per_mtok`), and is then marked as an estimate. Where neither is known the
plan says so and gives no figure.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass

from collab import prices
from collab.caller import MAX_ATTEMPTS
from collab.config import AgentChoice, DebateConfig
from collab.options import DEPTHS
from collab.state import RunState

PLAN_SCHEMA = "collab.plan/1"
# A debater's turn: MAX_ATTEMPTS calls, then one re-ask for an unusable contract block.
CALLS_PER_TURN = MAX_ATTEMPTS + 1
JUDGE_CALLS = MAX_ATTEMPTS
# What a reply adds besides its prose: the contract block (for the size estimate).
CONTRACT_CHARS = 500
JUDGE_REPLY_CHARS = 3_000
CHARS_PER_TOKEN = prices.CHARS_PER_TOKEN
PRICES_AS_OF = prices.PRICES_AS_OF
# claude's own model names (and its default, a Sonnet) as the price table spells them.
_CLAUDE_MODELS = {"default": "claude-sonnet", "sonnet": "claude-sonnet",
                  "opus": "claude-opus", "haiku": "claude-haiku"}  # fmt: skip

# USD per million input and output tokens.
Rates = tuple[float, float]
RatesFn = Callable[[str, str | None], Rates | None]


def price_per_mtok(
    agent: str, model: str | None, table: Sequence[prices.Price] = prices.DEFAULT_PRICES
) -> Rates | None:
    """USD per million input and output tokens for ``agent`` and ``model`` from the dated
    price table (:mod:`collab.prices`; ``table``: with the user's ``[prices]`` first);
    None when no price is known."""
    if agent == "claude":
        model = _CLAUDE_MODELS.get((model or "default").lower(), model)
    found = prices.price_for(agent, model, table)
    return None if found is None else (found.input_per_mtok, found.output_per_mtok)


# The JSON Schema of :meth:`Plan.document` (collab.report.schemas publishes it); null in
# the documents of a run made before plans.
PLAN_JSON_SCHEMA: dict[str, object] = {
    "type": ["object", "null"],
    "description": "Made before the first call: the depth, the fewest and most calls "
    "(retries and re-asks included) and the expected cost, from past runs or, marked "
    "estimate, from prompt sizes at list prices.",
    "properties": {
        "schema": {"const": PLAN_SCHEMA},
        "depth": {"enum": list(DEPTHS)},
        "rounds": {"type": "integer", "minimum": 1},
        "min_calls": {"type": "integer", "minimum": 1},
        "max_calls": {"type": "integer", "minimum": 1},
        "cost_usd": {
            "type": ["object", "null"],
            "properties": {"low": {"type": "number"}, "high": {"type": "number"},
                           "estimate": {"type": "boolean"}},
            "required": ["low", "high", "estimate"],
        },
        "prices_as_of": {"type": ["string", "null"]},
        "seats": {"type": "array", "items": {"type": "object"}},
    },
    "required": ["depth", "rounds", "min_calls", "max_calls", "cost_usd", "seats"],
}  # fmt: skip


@dataclass(frozen=True)
class SeatCost:
    """One seat's expected cost per call and where the figure comes from."""

    seat: str  # "A", "B", "judge"
    agent: str
    model: str | None
    usd_per_call: float | None
    basis: str  # "past runs", "estimate", "unknown"
    samples: int = 0  # past calls the mean is over


@dataclass(frozen=True)
class Plan:
    depth: str
    rounds: int
    min_calls: int
    max_calls: int
    cost_low: float | None
    cost_high: float | None
    estimate: bool  # some seat's cost is from prompt sizes and prices, not past runs
    seats: tuple[SeatCost, ...]

    def document(self) -> dict[str, object]:
        return {
            "schema": PLAN_SCHEMA,
            "depth": self.depth,
            "rounds": self.rounds,
            "min_calls": self.min_calls,
            "max_calls": self.max_calls,
            "cost_usd": None
            if self.cost_low is None or self.cost_high is None
            else {"low": self.cost_low, "high": self.cost_high, "estimate": self.estimate},
            "prices_as_of": PRICES_AS_OF if self.estimate else None,
            "seats": [asdict(s) for s in self.seats],
        }

    def lines(self) -> list[str]:
        """The plan as printed on stderr before the first call."""
        seats = " · ".join(
            f"{'Judge' if s.seat == 'judge' else s.seat}: {s.agent}"
            + (f" ({s.model})" if s.model else "")
            for s in self.seats
        )
        cap = f"up to {self.rounds} round{'s' if self.rounds != 1 else ''}"
        out = [
            f"plan: {len(self.seats) - 1} seats + Judge · {seats}",
            f"plan: depth {self.depth}, {cap} · {self.min_calls}–{self.max_calls} calls "
            "(the most with every retry and re-ask)",
        ]
        if self.cost_low is None or self.cost_high is None:
            unknown = ", ".join(dict.fromkeys(s.agent for s in self.seats if s.basis == "unknown"))
            out.append(f"plan: cost unknown (no past runs and no price for {unknown})")
        else:
            how = (
                f"estimate from prompt sizes at list prices of {PRICES_AS_OF}"
                if self.estimate
                else "from this machine's past runs"
            )
            low, high = prices.fmt_cost(self.cost_low), prices.fmt_cost(self.cost_high)
            out.append(f"plan: expected cost {low}–{high} ({how})")
        return out

    def over_cap(self, max_cost: float | None) -> str | None:
        """The warning when ``--max-cost`` is below the plan's lowest expected cost."""
        if max_cost is None or self.cost_low is None or max_cost >= self.cost_low:
            return None
        return (
            f"--max-cost ${max_cost:g} is below this plan's lowest expected cost "
            f"{prices.fmt_cost(self.cost_low)}: the run will likely stop early at the cap"
        )


def call_counts(cfg: DebateConfig) -> tuple[int, int, int, int]:
    """(fewest debater turns, most debater turns, fewest calls, most calls). The fewest:
    every turn answers at once and the run stops as early as its depth allows (a quick run
    after round 1, any other after round 2); the most: every round of the cap, each turn
    with its retry and re-ask, and the Judge's retry."""
    seats = len(cfg.seats)
    fewest_rounds = min(2, cfg.rounds)  # a quick run has one
    least, most = seats * fewest_rounds, seats * cfg.rounds
    return least, most, least + 1, most * CALLS_PER_TURN + JUDGE_CALLS


@dataclass(frozen=True)
class PastCosts:
    """Costs of past calls, by seat kind and ``agent:model``: (sum USD, calls)."""

    turns: Mapping[str, tuple[float, int]]
    judge: Mapping[str, tuple[float, int]]


def _key(choice: AgentChoice) -> str:
    return f"{choice.agent}:{choice.model or 'default'}"


def past_costs(states: Iterable[RunState]) -> PastCosts:
    """The cost of each past debater turn (its retries and re-ask included) and Judge
    answer that reported one, by agent and model."""
    turns: dict[str, tuple[float, int]] = {}
    judge: dict[str, tuple[float, int]] = {}

    def add(into: dict[str, tuple[float, int]], key: str, usd: float | None) -> None:
        if usd is not None:
            total, n = into.get(key, (0.0, 0))
            into[key] = (total + usd, n + 1)

    for st in states:
        for t in st.turns:
            add(turns, _key(st.config.agent(t.side)), t.cost_usd)
        if st.judge is not None and st.judge.meta is not None:
            add(judge, _key(st.config.judge), st.judge.meta.cost_usd)
    return PastCosts(turns, judge)


def make_plan(
    cfg: DebateConfig,
    past: PastCosts,
    first_prompt_chars: int,
    price: RatesFn = price_per_mtok,
) -> Plan:
    """``first_prompt_chars``: the size of a round-1 prompt as rendered. A later round's
    prompt adds the last two rounds' replies; the Judge's holds every reply."""
    least, most, min_calls, max_calls = call_counts(cfg)
    reply = cfg.max_chars + CONTRACT_CHARS
    seats_n = len(cfg.seats)
    prompt_chars = [
        first_prompt_chars + min(r - 1, 2) * seats_n * reply for r in range(1, cfg.rounds + 1)
    ]
    mean_prompt = sum(prompt_chars) / len(prompt_chars)
    judge_prompt_chars = first_prompt_chars + cfg.rounds * seats_n * reply
    seats: list[SeatCost] = []
    for seat, choice, table, chars, out in (
        *((s, cfg.agent(s), past.turns, mean_prompt, reply) for s in cfg.seats),
        ("judge", cfg.judge, past.judge, judge_prompt_chars, JUDGE_REPLY_CHARS),
    ):
        total, n = table.get(_key(choice), (0.0, 0))
        p = price(choice.agent, choice.model)
        if n:
            seats.append(SeatCost(seat, choice.agent, choice.model, total / n, "past runs", n))
        elif p is not None:
            usd = (chars * p[0] + out * p[1]) / CHARS_PER_TOKEN / 1e6
            seats.append(SeatCost(seat, choice.agent, choice.model, usd, "estimate"))
        else:
            seats.append(SeatCost(seat, choice.agent, choice.model, None, "unknown"))
    debaters = [s.usd_per_call for s in seats[:-1]]
    judge = seats[-1].usd_per_call
    low = high = None
    if judge is not None and all(d is not None for d in debaters):
        per_turn = sum(d for d in debaters if d is not None) / len(debaters)
        # Expected: the shortest run its depth allows, or every round of the cap (without
        # retries; max_calls says how many calls retries could add).
        low = round(least * per_turn + judge, 4)
        high = round(most * per_turn + judge, 4)
    return Plan(
        depth=cfg.depth,
        rounds=cfg.rounds,
        min_calls=min_calls,
        max_calls=max_calls,
        cost_low=low,
        cost_high=high,
        estimate=any(s.basis == "estimate" for s in seats),
        seats=tuple(seats),
    )
