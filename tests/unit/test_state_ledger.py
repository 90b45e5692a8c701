"""RunState.ledger() keeps its last answer per round (a run is saved after every step
with its ledger and every round's): any change of the turns, the config or the stance
table is seen at once, as a replay from scratch sees it."""

from __future__ import annotations

import dataclasses

from collab.state import RunState
from tests.unit.test_orchestrator import QUIET, Run, debate, home_in_memory, said, shared

__all__ = ["home_in_memory"]  # the autouse fixture: COLLAB_HOME on tmpfs

AGREE = said([], [("I1", "agree", "fair")])


@shared  # driven once; each test gets a (deep) copy of its state in its own home
def b_agrees() -> Run:
    return debate({"r1-A": [said(["tabs"])], "r2-B": [AGREE]}, QUIET, rounds=3)


def replayed(state: RunState, upto_round: int | None = None) -> object:
    return dataclasses.replace(state).ledger(upto_round)  # a copy: nothing kept yet


def status(state: RunState, upto_round: int | None = None) -> str:
    ledger = state.ledger(upto_round)
    assert ledger == replayed(state, upto_round)
    return ledger.issues[0].status


def test_the_ledger_follows_every_change_of_the_turns() -> None:
    state = b_agrees().state
    assert (status(state, 1), status(state)) == ("open", "resolved")
    agreed = next(t for t in state.turns if (t.round_no, t.side) == (2, "B"))
    state.turns.remove(agreed)
    assert status(state) == "open"
    state.turns.append(agreed)
    assert status(state) == "resolved"
    state.turns[state.turns.index(agreed)] = dataclasses.replace(agreed, contract=None)
    assert status(state) == "open"
    assert state.round_ledgers() == [replayed(state, 1), replayed(state, 2)]


def test_the_ledger_follows_the_config_and_the_stance_table() -> None:
    state = b_agrees().state
    assert status(state) == "resolved"
    state.config = dataclasses.replace(state.config, quorum=2)  # one agree of one seat
    assert status(state) == "open"
    state.config = dataclasses.replace(state.config, quorum=None)
    assert status(state) == "resolved"
    # The raiser agrees with a reason: it concedes by v2's table; by v1's nothing changed.
    state = debate({"r1-A": [said(["tabs"])], "r2-A": [AGREE]}, QUIET, rounds=3).state
    assert status(state) == "dropped"
    state.stance_table = "v1"
    assert status(state) == "open"


def test_the_saved_document_follows_every_change_as_a_fresh_copys_does() -> None:
    state = b_agrees().state

    def saved(st: RunState) -> dict[str, object]:
        return {k: v for k, v in st.to_dict().items() if k != "collab_version"}

    assert saved(state) == saved(dataclasses.replace(state))
    agreed = next(t for t in state.turns if (t.round_no, t.side) == (2, "B"))
    state.turns[state.turns.index(agreed)] = dataclasses.replace(agreed, status="error")
    assert saved(state) == saved(dataclasses.replace(state))  # a new turn: its own form
    state.config = dataclasses.replace(state.config, quorum=2)
    assert saved(state) == saved(dataclasses.replace(state))
    assert saved(state)["config"]["quorum"] == 2  # type: ignore[index]
