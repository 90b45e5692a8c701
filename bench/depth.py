"""Calls and tokens per ``--depth`` on three scripted debates (issue 21).

The real orchestrator drives each debate on the in-process runner
(``collab.runners.inprocess``) with the scripts of ``tests/fakes/depth_scripts.py``:

- ``easy``: the seats agree once they see each other;
- ``lingering``: one issue stays contested with the same evidence round after round;
- ``contested``: each round brings a new contest with new evidence.

A call is one job the runner ran (retries and re-asks included); tokens are what the
replies report (input: the prompt's characters / 4, output: the reply's / 4), so a
shorter prompt or reply shows. Deterministic: one sample each. Goals: ``quick`` exactly
N + 1 calls; on easy, ``auto`` ≤ ``standard``'s calls and ≤ 0.8× its tokens; on lingering,
``auto`` ≤ ``deep``'s calls and ends ``settled``; on contested, ``auto`` ≥ 0.9× ``deep``'s
calls. Every ratio is reported.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from bench.results import BenchResult, ge, le

if TYPE_CHECKING:
    from bench.env import Ctx

DEPTHS = ("quick", "standard", "deep", "auto")
SEATS = 2


@dataclass(frozen=True)
class Outcome:
    calls: int
    tokens: int
    rounds: int
    stop: str


def debate(script: str, depth: str) -> Outcome:
    """One scripted debate at ``depth`` (its default cap), driven to its end."""
    from collab.options import DebateRequest
    from collab.orchestrator import Orchestrator
    from collab.request import build_config
    from collab.runners.inprocess import SCRIPTED, SCRIPTED_AGENTS, InProcessRunner
    from collab.state import RunState
    from collab.store import RunDir, new_run_id
    from tests.fakes.depth_scripts import SCRIPTS

    req = DebateRequest(
        topic="Tabs or spaces?", agent_a=SCRIPTED, agent_b=SCRIPTED, judge_agent=SCRIPTED,
        runner="subprocess", depth=depth,
    )  # fmt: skip
    cfg = build_config(req, SCRIPTED_AGENTS.keys())
    runner = InProcessRunner(SCRIPTS[script])
    run_dir = RunDir(new_run_id())
    while run_dir.path.exists():
        run_dir = RunDir(new_run_id())
    run_dir.create()
    state = RunState(run_id=run_dir.run_id, config=cfg, status="pending")
    Orchestrator(
        state, run_dir, agents=SCRIPTED_AGENTS, runner_factory=runner.factory,
        clock=runner.clock,
    ).run()  # fmt: skip
    used = state.tokens()
    return Outcome(
        calls=len(runner.jobs),
        tokens=used.input_tokens + used.output_tokens,
        rounds=state.rounds_done(),
        stop=str(state.stop_reason),
    )


def run(ctx: Ctx) -> BenchResult:
    res = BenchResult("depth")
    table: dict[str, dict[str, Outcome]] = {}
    for script in ("easy", "lingering", "contested"):
        table[script] = {}
        for depth in DEPTHS:
            out = debate(script, depth)
            table[script][depth] = out
            res.row(f"{script}: {depth} calls", out.calls, "", None,
                    f"{out.tokens:,} tokens · {out.rounds} rounds · {out.stop}")  # fmt: skip
        ctx.say(f"depth: {script} done")
    res.data["runs"] = {
        s: {d: o.__dict__ for d, o in by.items()} for s, by in table.items()
    }  # fmt: skip

    def ratio(script: str, a: str, b: str, what: str) -> float:
        x, y = table[script][a], table[script][b]
        num, den = (x.calls, y.calls) if what == "calls" else (x.tokens, y.tokens)
        return num / den

    for script in table:
        quick = table[script]["quick"].calls
        res.row(f"{script}: quick calls ÷ (N + 1)", quick / (SEATS + 1), "x", le(1.0),
                f"{quick} calls; exactly N + 1 = {SEATS + 1} wanted")  # fmt: skip
    goals = {
        ("easy", "standard", "calls"): le(1.0),
        ("easy", "standard", "tokens"): le(0.8),
        ("lingering", "deep", "calls"): le(1.0),
        ("contested", "deep", "calls"): ge(0.9),
    }
    for script in table:
        for other in ("quick", "standard", "deep"):
            for what in ("calls", "tokens"):
                target = goals.get((script, other, what))
                res.row(f"{script}: auto ÷ {other} {what}", ratio(script, "auto", other, what),
                        "x", target)  # fmt: skip
    settled = table["lingering"]["auto"].stop == "settled"
    res.row("lingering: auto ends settled", 1.0 if settled else 0.0, "", ge(1.0),
            f"stop reason {table['lingering']['auto'].stop}")  # fmt: skip
    return res
