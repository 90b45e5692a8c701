"""collab stats: the numbers of one run and across runs, from stored turns."""

from __future__ import annotations

from collab.config import DebateConfig, Role
from collab.contract import Contract, NewPoint, StanceUpdate
from collab.state import Judge, RunState
from collab.stats import aggregate, run_stats
from collab.turns import AgentMeta, TurnRecord

CFG = DebateConfig("T", Role("A", "a", "d"), Role("B", "b", "d"), rounds=2)


def turn(r: int, side: str, contract: Contract | None, sent: int, kept: int,
         cost: float = 0.01) -> TurnRecord:  # fmt: skip
    return TurnRecord(
        r, side, "n", "ok", "reply", "prose", contract, None, "0" * 64,  # type: ignore[arg-type]
        AgentMeta("claude", None, 0, 1.0, 1, cost_usd=cost), items_sent=sent, items_kept=kept,
    )  # fmt: skip


def state(run_id: str, turns: list[TurnRecord], *, stop: str, fallback: bool) -> RunState:
    st = RunState(run_id=run_id, config=CFG, turns=turns, stop_reason=stop)
    st.judge = Judge("## TL;DR", fallback, AgentMeta("claude", None, 0, 1.0, 1, cost_usd=0.02))
    return st


def test_one_run_and_across_runs() -> None:
    two_points = Contract((NewPoint("P1", "e"), NewPoint("P2", "e")))
    agree = Contract(stances=(StanceUpdate("I1", "agree", "the numbers convinced me"),))
    drop = Contract(stances=(StanceUpdate("I2", "drop", "moot after I1"),))
    converged = state(
        "r1",
        [turn(1, "A", two_points, 3, 2), turn(1, "B", agree, 2, 1),
         turn(2, "A", drop, 1, 1), turn(2, "B", Contract(), 0, 0)],
        stop="converged-early", fallback=False,
    )  # fmt: skip
    one = run_stats(converged)
    assert (one.turns, one.agrees, one.resolved, one.dropped, one.open) == (4, 1, 1, 1, 0)
    assert one.concession_rate == 0.25 and one.salvage_rate == round(4 / 6, 4)
    assert one.verdict == "consensus" and one.converged and one.rounds == 2
    assert one.document()["cost_per_resolved_usd"] == round((4 * 0.01 + 0.02) / 1, 6)

    silent = state("r2", [turn(1, "A", None, 0, 0), turn(1, "B", None, 2, 0),
                          turn(2, "A", None, 0, 0), turn(2, "B", None, 0, 0)],
                   stop="max-rounds", fallback=True)  # fmt: skip
    total = aggregate([one, run_stats(silent)])
    assert total.runs == 2 and total.turns == 8
    assert total.concession_rate == round(1 / 8, 4)
    assert (total.resolved_by_evidence, total.dropped, total.open) == (1, 1, 0)
    assert total.rounds_to_converge == 2 and total.converged_runs == 1
    assert total.verdicts == {"consensus": 1, "inconclusive": 1}
    assert (total.items_kept, total.items_sent) == (4, 8) and total.salvage_rate == 0.5
    assert total.judge_fallback_rate == 0.5
    assert total.cost_usd == round(8 * 0.01 + 2 * 0.02, 6)
    assert total.cost_per_resolved_usd == total.cost_usd


def test_nothing_yet() -> None:
    total = aggregate([])
    assert total.runs == 0 and total.concession_rate is None and total.salvage_rate is None
    assert total.cost_per_resolved_usd is None and total.verdicts == {}
