"""A debate whose round 1 yields no usable contract stops there (``no-contract``); a
round without one is never a quiet round; such a run is inconclusive everywhere."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from collab.config import DebateConfig, Role
from collab.contract import Contract, NewPoint
from collab.convergence import NO_CONTRACT_STOP, STOP_REASONS, Decision, check
from collab.ledger import Issue, Ledger, Side
from collab.state import RunState
from collab.stats import aggregate, run_stats
from collab.turns import AgentMeta, TurnRecord, TurnStatus

OPEN_1 = Ledger((Issue("I1", "T1", "A", "open", "a", "b", 1, 1),))


def test_round_one_without_a_contract_stops() -> None:
    assert check([Ledger()], 3, angle_injected=False, parsed=[False]) == Decision(
        "no-contract", detail=NO_CONTRACT_STOP
    )
    assert (
        "check the model" in NO_CONTRACT_STOP and "not following the contract" in NO_CONTRACT_STOP
    )


@pytest.mark.parametrize("parsed", [[True], None])
def test_round_one_with_a_contract_goes_on(parsed: list[bool] | None) -> None:
    assert check([OPEN_1], 3, angle_injected=False, parsed=parsed) == Decision(None)


def test_the_budget_is_named_first() -> None:
    assert check([Ledger()], 3, angle_injected=False, budget_spent=True, parsed=[False]).stop == (
        "timeout"
    )


def test_a_later_round_without_a_contract_is_not_the_no_contract_stop() -> None:
    assert check([OPEN_1, OPEN_1], 5, angle_injected=False, parsed=[True, False]).stop is None


@pytest.mark.parametrize("parsed", [[True, True, False], [True, False, True], [True, False, False]])
def test_a_round_without_a_contract_is_not_quiet(parsed: list[bool]) -> None:
    """A latest (or previous) round in which nobody answered never converges early."""
    assert check([OPEN_1] * 3, 5, angle_injected=False, parsed=parsed, window=4).stop is None
    assert check([OPEN_1] * 3, 5, angle_injected=False, parsed=[True] * 3, window=4).stop == (
        "converged-early"
    )


def test_the_stop_reasons_are_one_type() -> None:
    assert STOP_REASONS == (
        "converged-early", "circular-break", "max-rounds", "timeout", "budget",
        "interrupted", "no-contract", "settled", "too-few-seats",
    )  # fmt: skip


def test_the_docs_list_every_stop_reason() -> None:
    """docs/protocol.md's list of the stop reasons names each one the type has."""
    text = (Path(__file__).parents[2] / "docs" / "protocol.md").read_text(encoding="utf-8")
    start = text.index("The stop reasons are one type")
    listed = set(re.findall(r"`([a-z-]+)`", text[start : text.index("Ctrl-C", start)]))
    assert set(STOP_REASONS) <= listed, set(STOP_REASONS) - listed


def _turn(side: Side, contract: Contract | None, status: TurnStatus = "ok") -> TurnRecord:
    return TurnRecord(
        round_no=1, side=side, role_name=side, status=status, reply="r", prose="r",
        contract=contract, contract_error=None if contract else "no json block",
        prompt_sha256="0" * 64,
        meta=AgentMeta("fake", None, 0, 1.0, 1),
    )  # fmt: skip


def _state(*turns: TurnRecord, stop: str | None = None) -> RunState:
    cfg = DebateConfig("T", Role("A", "A", "a"), Role("B", "B", "b"))
    return RunState(run_id="r", config=cfg, turns=list(turns), stop_reason=stop, status="done")


def test_stats_count_turns_with_a_usable_contract() -> None:
    blind = _state(_turn("A", None), _turn("B", None), stop="no-contract")
    good = _state(_turn("A", Contract(new_points=(NewPoint("t", "e"),))), _turn("B", None))
    failed = _state(_turn("A", None, "timeout"), _turn("B", Contract(abstain="no view")))
    one, two, three = run_stats(blind), run_stats(good), run_stats(failed)
    assert (one.verdict, one.contract_turns, one.turns, one.contract_rate) == (
        "inconclusive", 0, 2, 0.0
    )  # fmt: skip
    assert (two.contract_turns, two.contract_rate) == (1, 0.5)
    assert (three.contract_turns, three.turns) == (1, 1)  # a timed-out turn is no debater turn
    total = aggregate([one, two, three])
    assert (total.contract_turns, total.turns, total.contract_rate) == (2, 5, 0.4)
    assert total.verdicts["inconclusive"] >= 1
    assert one.document()["contract_rate"] == 0.0
    # the item salvage rate alone would look perfect: nothing was sent, nothing lost
    assert one.salvage_rate is None


def test_a_batch_shows_a_no_contract_run_as_inconclusive() -> None:
    """The batch's summary row (its --json ``runs`` and index.md) of a real no-contract
    run, driven by the orchestrator on the in-process runner."""
    from collab.batch.pool import Item
    from collab.batch.record import item_status
    from tests.unit.test_orchestrator import NO_BLOCK, debate

    run = debate({}, NO_BLOCK, rounds=3)
    row = item_status(Item(run.state.run_id, 1, "Tabs or spaces?"))
    assert (row.status, row.stop_reason, row.verdict, row.rounds_done) == (
        "done", "no-contract", "inconclusive", 1
    )  # fmt: skip
