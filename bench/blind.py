"""9. Protocol v2, blind opening: round 1 with both sides at once vs one after the other.

The bash bench agent sleeps 1 s per turn (``BENCH_AGENT_SLEEP=1``). 2-round debates
run in this process through the Orchestrator with ``--opening blind`` and ``--opening
sequential``, on the subprocess and the tmux runner, interleaved; each is stopped once
round 1 is over (the event sink raises at round 1's ``ledger`` event: the orchestrator's
cleanup runs, the rest is not needed). Round-1
wall time = from the ``round_started`` event of round 1 to the second ``turn_finished`` of
round 1 (time.time() in the sink). Ideal: 1 s blind, 2 s sequential (0.5×).
"""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING

from bench.env import Ctx
from bench.inproc import RunnerCall, timed_debate
from bench.results import BenchResult, le, spread
from bench.stats import median, summary

if TYPE_CHECKING:
    pass

NAME = "blind"
TOPIC = "Should our public API replace server-side sessions with stateless JWTs?"
SLEEP = 1.0
RUNNERS = ("subprocess", "tmux")
OPENINGS = ("blind", "sequential")
VARIANTS = tuple(f"{o}-{r}" for r in RUNNERS for o in OPENINGS)
TARGET = 0.6


def run(ctx: Ctx) -> BenchResult:
    res = BenchResult(NAME)
    ctx.env.activate()
    n = ctx.n(3, 8)
    samples: dict[str, list[float]] = {v: [] for v in VARIANTS}
    os.environ["BENCH_AGENT_SLEEP"] = f"{SLEEP:g}"
    try:
        for v in ctx.interleaved("blind", VARIANTS, n, one):
            samples[v].append(one(v))
    finally:
        os.environ.pop("BENCH_AGENT_SLEEP", None)
    for runner in RUNNERS:
        b, s = samples[f"blind-{runner}"], samples[f"sequential-{runner}"]
        res.row(
            f"blind: round 1 wall, blind / sequential ({runner} runner)",
            median(b) / median(s),
            "x",
            le(TARGET),
            f"blind {median(b):.2f} s ({spread(b, 's')}) · sequential {median(s):.2f} s · "
            f"agent {SLEEP:g} s/turn, ideal 0.50×",
        )
    res.data = {
        "agent_sleep_s": SLEEP,
        "round1_s": {v: summary(xs) for v, xs in samples.items()},
        "ratio": {
            r: median(samples[f"blind-{r}"]) / median(samples[f"sequential-{r}"]) for r in RUNNERS
        },
    }
    return res


class _RoundOneOver(Exception):
    pass


def one(variant: str) -> float:
    """Round 1's wall time of a debate stopped after round 1."""
    from collab.events import LedgerUpdated, Logged, RoundStarted, TurnFinished

    opening, runner = variant.split("-", 1)

    class Round1:
        def __init__(self) -> None:
            self.started = 0.0
            self.done: list[float] = []

        def __call__(self, logged: Logged) -> None:
            ev = logged.event
            if isinstance(ev, RoundStarted) and ev.round == 1:
                self.started = time.time()
            elif isinstance(ev, TurnFinished):
                if ev.status != "ok":
                    raise RuntimeError(f"blind bench turn failed: {ev.status} {ev.warnings}")
                if ev.round == 1:
                    self.done.append(time.time())
            elif isinstance(ev, LedgerUpdated):
                raise _RoundOneOver

    lis = Round1()
    calls: list[RunnerCall] = []
    made: list[tuple[float, float]] = []
    orch = timed_debate(TOPIC, "bench", 2, runner, lis, calls, made, opening=opening)
    try:
        orch.run()
    except _RoundOneOver:
        pass
    else:
        raise RuntimeError(f"{variant}: the debate went on past round 1")
    st = orch.state
    if any(t.reask is not None for t in st.turns):
        raise RuntimeError(f"{variant}: a turn was re-asked")
    if len(lis.done) != 2 or st.config.opening != opening or len(calls) != 2:
        raise RuntimeError(f"{variant}: {len(lis.done)} round-1 turns, error {st.error}")
    return lis.done[1] - lis.started
