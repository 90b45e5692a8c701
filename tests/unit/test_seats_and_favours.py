"""The panels' pure core on its own: who sits where and the order seats speak in
(collab.seats), which option each seat favours round by round and when it flips
(collab.favours), and where seats stand and which families of models they are
(collab.panel). Tables, no debate run."""

from __future__ import annotations

from typing import Any

import pytest

from collab.contract import Contract
from collab.favours import Flip, final, flip_of, flips, most_favoured, preference_rows, preferences
from collab.ledger import Issue, LatestStance
from collab.panel import (
    IssueTally,
    SeatInfo,
    answering,
    issue_tally,
    one_family_note,
    seat_infos,
)
from collab.request import DebateRequest, build_config, request_from
from collab.seats import SEATS, round_order, seat_index, seat_list
from collab.state import RunState
from collab.turns import AgentMeta, TurnRecord

# -- collab.seats -------------------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_a_debate_seats_the_first_n_labels(n: int) -> None:
    assert seat_list(n) == SEATS[:n] and seat_list(n)[0] == "A"


@pytest.mark.parametrize("n", [1, 6])
def test_fewer_than_two_or_more_than_five_seats_is_refused(n: int) -> None:
    with pytest.raises(ValueError, match=f"^a debate has 2–5 seats, not {n}$"):
        seat_list(n)


def test_a_seats_index_is_its_place_in_the_alphabet() -> None:
    assert [seat_index(s) for s in SEATS] == [0, 1, 2, 3, 4]


@pytest.mark.parametrize(
    ("n", "round_no", "order"),
    [
        (2, 2, "BA"), (2, 3, "AB"), (2, 4, "BA"),
        (3, 2, "BCA"), (3, 3, "CAB"), (3, 4, "ABC"), (3, 5, "BCA"),
        (4, 2, "BCDA"), (4, 4, "DABC"), (4, 5, "ABCD"),
        (5, 2, "BCDEA"), (5, 3, "CDEAB"), (5, 6, "ABCDE"), (5, 7, "BCDEA"),
    ],
)  # fmt: skip
def test_round_r_ends_with_seat_r_minus_2_mod_n(n: int, round_no: int, order: str) -> None:
    assert "".join(round_order(seat_list(n), round_no, "rotating")) == order


def test_a_fixed_order_and_an_empty_round_are_kept_as_they_are() -> None:
    assert round_order(seat_list(3), 3, "fixed") == ("A", "B", "C")
    assert round_order((), 3, "rotating") == () and round_order((), 3, "fixed") == ()


# -- collab.favours -----------------------------------------------------------------------

META = AgentMeta("claude", None, 0, 1.0, 1)


def turn(side: Any, round_no: int, favours: str | None, contract: bool = True) -> TurnRecord:
    said = Contract(favours=favours) if contract else None
    return TurnRecord(round_no, side, "x", "ok", "r", "p", said, None, "0" * 64, META)


# Given out of order on purpose: every reader goes by round, then seat.
TURNS = [
    turn("B", 3, "O1"),
    turn("A", 3, None),
    turn("A", 1, "O1"),
    turn("B", 1, "O2"),
    turn("A", 2, "O2"),
    turn("B", 2, None, contract=False),
    turn("A", 4, "O1"),
    turn("B", 4, "O1"),
]


def test_each_seats_option_is_kept_per_round_none_where_it_named_none() -> None:
    assert preferences(TURNS) == {
        "A": {1: "O1", 2: "O2", 3: None, 4: "O1"},
        "B": {1: "O2", 2: None, 3: "O1", 4: "O1"},
    }
    assert list(preferences(TURNS)["A"]) == [1, 2, 3, 4]


def test_a_flip_is_another_option_than_the_last_one_named_in_round_order() -> None:
    assert flips(TURNS) == [
        Flip("A", 2, "O1", "O2"),
        Flip("B", 3, "O2", "O1"),
        Flip("A", 4, "O2", "O1"),
    ]
    assert flips([turn("A", 1, "O1"), turn("A", 2, "O1")]) == []


def test_a_turns_flip_is_against_its_own_seats_last_named_option() -> None:
    earlier = [t for t in TURNS if t.round_no < 4]
    a4, b4 = (t for t in TURNS if t.round_no == 4)
    # A named O2 in round 2 and nothing in round 3; B's round-3 O1 is not A's.
    assert flip_of(a4, earlier) == Flip("A", 4, "O2", "O1")
    assert flip_of(b4, earlier) is None  # B named O1 last: no flip
    # later rounds and the turn's own round do not count; a turn naming none flips nothing
    assert flip_of(turn("A", 2, "O1"), TURNS) is None
    assert flip_of(turn("A", 2, "O3"), TURNS) == Flip("A", 2, "O1", "O3")
    assert flip_of(turn("A", 5, None), TURNS) is None
    assert flip_of(turn("C", 5, "O1"), TURNS) is None  # C never named one before


def test_the_final_option_is_each_seats_last_named_one() -> None:
    assert final(TURNS[:6]) == {"A": "O2", "B": "O1"}
    assert final([turn("A", 1, None), turn("B", 1, "O2")]) == {"B": "O2"}


@pytest.mark.parametrize(
    ("finals", "winner"),
    [
        (["O1"], "O1"),
        (["O2", "O1", "O2"], "O2"),
        (["O1", "O2"], None),  # a tie
        (["O3", "O1", "O1", "O2", "O2"], None),  # a tie at the top
        (["O3", "O1", "O1", "O2"], "O1"),
        ([], None),
    ],
)
def test_the_most_favoured_option_is_the_one_most_seats_end_on(
    finals: list[str], winner: str | None
) -> None:
    turns = [turn(SEATS[i], 1, option) for i, option in enumerate(finals)]
    assert most_favoured(turns) == winner


def test_a_report_row_per_seat_shows_each_round_a_dot_where_none_and_the_flips() -> None:
    assert preference_rows(TURNS, ["A", "B", "C"]) == [
        ("A", ["O1", "O1→O2", "·", "O2→O1"]),
        ("B", ["O2", "·", "O2→O1", "O1"]),
        ("C", ["·", "·", "·", "·"]),
    ]


# -- collab.panel -------------------------------------------------------------------------


def panel_state(agents: str, models: str, answered: str) -> RunState:
    roles = (
        "Skeptic: doubts",
        "Builder: ships",
        "Operator: runs it",
        "Security: guards",
        "Finance: counts",
    )
    base = DebateRequest(topic="Tabs or spaces?")
    wanted = {"role": roles[: agents.count(",") + 1], "agents": (agents,), "models": (models,)}
    cfg = build_config(request_from(wanted, "cli", base), ["claude", "codex", "gemini", "llm"])
    st = RunState("20261201-120000-aaaaaa", cfg)
    st.turns = [turn(s, 1, None) for s in answered]
    return st


def test_each_seat_is_shown_with_its_role_agent_model_and_family() -> None:
    st = panel_state("claude,llm,codex", "opus,gpt-4o-mini,o3", "ABC")
    assert seat_infos(st) == (
        SeatInfo("A", "Skeptic", "claude", "opus", "anthropic"),
        SeatInfo("B", "Builder", "llm", "gpt-4o-mini", "openai"),
        SeatInfo("C", "Operator", "codex", "o3", "openai"),
    )


def test_only_the_seats_that_answered_count_for_one_family() -> None:
    # A and C (claude) answered; B (codex) never did: one family.
    st = panel_state("claude,codex,claude", "opus,o3,haiku", "AC")
    assert answering(st) == ("A", "C") and one_family_note(st) is not None
    # A (claude) and B (codex) answered; C (claude) never did: two families.
    assert one_family_note(panel_state("claude,codex,claude", "opus,o3,haiku", "AB")) is None


def test_one_answering_seat_is_no_family_agreement() -> None:
    assert one_family_note(panel_state("claude,claude,claude", "opus,opus,opus", "A")) is None


def test_a_tally_line_names_the_families_on_each_side() -> None:
    tally = IssueTally(("B",), ("C", "D"), ("E",), ("anthropic",), ("openai", "google"))
    assert (
        tally.line() == "1 agree · 2 contest · 1 silent (for: anthropic; against: openai, google)"
    )


def test_an_issues_tally_counts_the_seats_but_the_raiser_and_names_their_families() -> None:
    st = panel_state(
        "claude,codex,gemini,llm,claude", "opus,o3,gemini-2.5-pro,gpt-4o-mini,haiku", "ABCDE"
    )
    stances = (
        LatestStance("A", "agree", "fair", 2),
        LatestStance("C", "contest", "no", 2),
        LatestStance("D", "contest", "no", 3),
    )
    issue = Issue("I1", "Tabs", "B", "open", "", "", 1, 3, stances=stances)
    got = issue_tally(st, issue)
    assert got == IssueTally(
        ("A",), ("C", "D"), ("E",), ("openai", "anthropic"), ("google", "openai")
    )
    assert got.to_dict() == {
        "agree": 1,
        "contest": 2,
        "silent": 1,
        "families_for": ["openai", "anthropic"],
        "families_against": ["google", "openai"],
    }
    assert (
        got.line()
        == "1 agree · 2 contest · 1 silent (for: openai, anthropic; against: google, openai)"
    )
    assert seat_infos(st)[1].to_dict() == {
        "label": "B",
        "name": "Builder",
        "agent": "codex",
        "model": "o3",
        "family": "openai",
    }
