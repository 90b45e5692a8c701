"""RunState.ledger() keeps its last answer per round (a run is saved after every step
with its ledger and every round's): any change of the turns, the config or the stance
table is seen at once, as a replay from scratch sees it."""

from __future__ import annotations

import dataclasses

from collab.contract import Contract, NewPoint, StanceUpdate
from collab.evidence import EvidenceCheck
from collab.ledger import Ledger, issue_to_dict, ledger_to_dict
from collab.runners.inprocess import SCRIPTED
from collab.seats import Seat
from collab.state import RunState
from collab.turns import AgentMeta, TurnRecord
from tests.unit.test_orchestrator import QUIET, Run, config, debate, home_in_memory, said, shared
from tests.unit.test_panels import ROLES

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


def _turn(
    round_no: int, side: Seat, contract: Contract | None, *checks: EvidenceCheck
) -> TurnRecord:
    """A turn as the orchestrator records it: failed (an error) when there is no contract."""
    status = "ok" if contract is not None else "error"
    meta = AgentMeta("fake", None, 0, 0.1, 1)
    return TurnRecord(
        round_no, side, side, status, "r", "p", contract, None, "0" * 64, meta,
        evidence_checks=checks,
    )  # fmt: skip


def _says(new: str = "", evidence: str = "", stances: tuple[StanceUpdate, ...] = ()) -> Contract:
    return Contract(new_points=(NewPoint(new, evidence),) if new else (), stances=stances)


# A panel of three: A raises I1, C raises I2 citing a line (checked); A agrees with I2 in
# round 2 (not enough while B is present), then B's turn of round 2 fails (B is absent:
# A's agree resolves I2, as a replay from the first turn finds); C checks the same cite
# again (it now reads wrong-line: I2's check follows, though C's turn is not about I2);
# B contests I2 in round 3, re-opening it.
CITE = "src/app.py:4"
PANEL_TURNS = (
    _turn(1, "A", _says("tabs", "a1")),
    _turn(1, "B", _says()),
    _turn(1, "C", _says("spaces", f"see {CITE}"), EvidenceCheck(CITE, None, "verified")),
    _turn(2, "A", _says(stances=(StanceUpdate("I2", "agree", "fair"),))),
    _turn(2, "B", None),
    _turn(2, "C", _says("mixed", f"again {CITE}"), EvidenceCheck(CITE, None, "wrong-line")),
    _turn(3, "A", _says()),
    _turn(3, "B", _says(stances=(StanceUpdate("I2", "contest", "no"),))),
    _turn(3, "C", _says()),
)


def test_a_ledger_replayed_on_from_an_earlier_one_is_the_one_replayed_from_the_first_turn() -> None:
    """ledger() replays only the turns after the longest ledger it made before (of the
    same first turns, with the same seats present in their rounds): after each turn, the
    run's ledger and every round's are a replay from scratch's, field for field, and an
    issue no turn since changed is the same object (the saves keep its text)."""
    cfg = config(role=ROLES[:3], agents=(SCRIPTED,))
    state = RunState(run_id="20261202-000000-abcdef", config=cfg)
    assert state.seats == ("A", "B", "C")
    before, kept = state.ledger(), 0
    for turn in PANEL_TURNS:
        state.turns.append(turn)
        for upto in (None, 1, 2, 3):
            fresh = dataclasses.replace(state).ledger(upto)  # nothing kept: from scratch
            assert ledger_to_dict(state.ledger(upto)) == ledger_to_dict(fresh)
        was = {i.id: i for i in before.issues}
        for issue in (now := state.ledger()).issues:
            if issue.id in was and issue_to_dict(issue) == issue_to_dict(was[issue.id]):
                assert issue is was[issue.id]
                kept += 1
        before = now
    assert kept == 13  # of the 13 issues no turn changed (one turn to the next)
    (_, i2, _) = state.ledger().issues
    assert (i2.status, [c.status for c in i2.checks_c]) == ("open", ["wrong-line"])
    assert state.ledger(2).issues[1].status == "resolved"  # B absent: A's agree did it


def test_a_ledger_read_from_state_json_answers_for_the_whole_run_only() -> None:
    """keep_ledger (a list of runs reads each run's ledger from its state.json): ledger()
    is that one; a round's ledger, and the run's once it has another turn, are replayed
    from the turns — never taken from, or replayed on from, the one read."""
    state = b_agrees().state
    assert [i.status for i in state.ledger().issues] == ["resolved"]
    read = dataclasses.replace(state)
    stored = Ledger(())  # a ledger no replay of these turns makes: it shows where it is used
    read.keep_ledger(stored)
    assert read.ledger() is stored
    for upto in (1, 2, 3):
        assert read.ledger(upto) == replayed(state, upto) != stored
    read.turns.append(dataclasses.replace(state.turns[-1], round_no=4))
    assert read.ledger() == replayed(read) != stored
