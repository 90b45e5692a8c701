"""Mutants of the pure core that survived tests/unit (mutmut, CONTRIBUTING.md "Mutation
testing"); each test names the behaviour it pins."""

from __future__ import annotations

import random

import pytest

from collab.agents.decoding import Usage
from collab.contract import Contract, NewPoint, StanceUpdate
from collab.convergence import Decision, check, circular_ids, same_text
from collab.judge.answer import finish, merged_meta, missing_sections, skipped_open_ids
from collab.judge.labels import Labels, first_side
from collab.ledger import Issue, Ledger, replay
from collab.seats import Side
from collab.text import md_cell, truncate
from collab.turns import AgentMeta

LEDGER = replay(
    [
        ("A", 1, Contract(new_points=(NewPoint("Revocation", "e"), NewPoint("Latency", "e")))),
        ("B", 1, Contract(new_points=tuple(NewPoint(f"T{n}", "e") for n in range(3, 11)))),
        ("A", 2, Contract(stances=(StanceUpdate("I2", "drop", "moot"),))),
    ]
)  # I1..I10 open but I2


# -- judging.finish: the open issues a summary skipped --------------------------------------


def test_skipped_open_ids_are_whole_ids_and_open_ones_only() -> None:
    text = "## TL;DR\n- I1 and I10 stay; I30 and XI4 are other things; I5x."
    assert skipped_open_ids(text, LEDGER) == ["I3", "I4", "I6", "I7", "I8", "I9"]
    assert skipped_open_ids("", Ledger()) == []


def test_finish_appends_one_line_naming_each_skipped_issue() -> None:
    labels = Labels("A", "Advocate", "Critic")
    text = "  ## TL;DR\n- Position 1 wins on I1; I4 I5 I6 I7 I8 I9 I10 stay.\n\n"
    out = finish(text, labels, LEDGER, "en")
    assert out == (
        "  ## TL;DR\n- Advocate wins on I1; I4 I5 I6 I7 I8 I9 I10 stay.\n\n"
        "> Open, but not covered by the Judge's summary: I3 (T3)."
    )
    ja = finish("## TL;DR\n- 全部 I1 I3 I4 I5 I6 I7 I8 I9", labels, LEDGER, "ja")
    assert ja.endswith("\n\n> 審判のまとめが触れなかった未解決の論点: I10 (T10)。")
    assert finish("all: I1 I3 I4 I5 I6 I7 I8 I9 I10\n", labels, LEDGER, "en") == (
        "all: I1 I3 I4 I5 I6 I7 I8 I9 I10"
    )


def test_skipped_ids_are_listed_with_a_comma_and_a_lowercase_prefix_is_no_mention() -> None:
    text = "## TL;DR\n- I1 I2 I5 I6 I7 I8 I9 I10 settled; aI3 and xI4 are words, not ids."
    assert skipped_open_ids(text, LEDGER) == ["I3", "I4"]
    assert finish(text, Labels("A", "x", "y"), LEDGER, "en").endswith(
        "\n\n> Open, but not covered by the Judge's summary: I3 (T3), I4 (T4)."
    )


def test_a_heading_word_followed_by_other_letters_is_not_the_section() -> None:
    closed = Ledger()
    found = missing_sections("## TL;DR\n## Crux\n## Minority reports（要約）\n", closed)
    assert [s.key for s in found] == ["minority"]


def test_a_heading_word_run_on_into_japanese_is_judged_by_its_next_letter() -> None:
    """ "Crux" then Japanese names the Crux; "Cruxs" then Japanese is another word."""
    sections = "## TL;DR\n## Minority report\n"
    assert missing_sections(sections + "## Cruxの要点\n", Ledger()) == ()
    assert [s.key for s in missing_sections(sections + "## Cruxsの要点\n", Ledger())] == ["crux"]


def test_merged_meta_rounds_as_a_single_call_does() -> None:
    a = AgentMeta("claude", None, 0, 0.1234, 1, Usage(1, 1), 0.1234567)
    b = AgentMeta("claude", None, 0, 0.0001, 1, None, None)
    m = merged_meta(a, b)
    assert (m.duration, m.cost_usd) == (0.123, 0.123457)


# -- labels ---------------------------------------------------------------------------------


def test_the_drawn_order_of_a_run_never_changes() -> None:
    """A run's Position 1 is drawn from its id; an audit redraws it, so it is pinned."""
    drawn = {rid: first_side(rid) for rid in ("20261201-101500-3fa9c1", "r", "ü", "")}
    assert drawn == {"20261201-101500-3fa9c1": "B", "r": "B", "ü": "A", "": "B"}


def test_side_of_with_a_first() -> None:
    a_first = Labels("A", "x", "y")
    assert (a_first.side_of("Position 1"), a_first.side_of("Position 2")) == ("A", "B")
    b_first = Labels("B", "x", "y")
    assert (b_first.side_of("Position 1"), b_first.side_of("Position 2")) == ("B", "A")


def test_hide_with_a_first() -> None:
    """With A as Position 1, "Role A" and A's name become Position 1, B's Position 2."""
    a_first = Labels("A", "Ann", "Bob")
    assert (
        a_first.hide("Role A, Role B; Ann, Bob") == "Position 1, Position 2; Position 1, Position 2"
    )


def test_a_name_that_begins_another_is_tried_after_it() -> None:
    """ "Architect" and "Architect Lead": the longer name is hidden whole (not "Position 1
    Lead"), and the labels map back the same way."""
    labels = Labels("A", "Architect", "Architect Lead")
    assert labels.hide("Architect Lead and Architect") == "Position 2 and Position 1"
    assert labels.reveal("Position 2 and Position 1") == "Architect Lead and Architect"


def test_label_order_with_either_side_first() -> None:
    """The Judge prompt lists the positions in this order: Position 1's side, then the other."""
    assert (Labels("A", "x", "y").order(), Labels("B", "x", "y").order()) == (
        ("A", "B"),
        ("B", "A"),
    )


# -- convergence ------------------------------------------------------------------------------


def test_same_text_joins_words_with_one_space() -> None:
    assert not same_text("a b", "c d", 0.5)  # "XX XX" joins would make these alike


def test_same_text_at_the_threshold_counts() -> None:
    assert same_text("abcd", "abce", 0.75)  # ratio exactly 0.75


def test_same_text_does_not_junk_frequent_characters() -> None:
    """Over 200 characters difflib's autojunk would call a lightly edited text new."""
    words = [
        "the",
        "cache",
        "adds",
        "an",
        "invalidation",
        "bug",
        "class",
        "and",
        "p99",
        "gain",
        "is",
        "not",
        "measured",
    ]
    rng = random.Random(1)
    a = [rng.choice(words) for _ in range(60)]
    b = [("zz" + w if i % 5 == 0 else w) for i, w in enumerate(a)]
    assert same_text(" ".join(a), " ".join(b), 0.85)


def _iss(n: int, ev: str, opened: int = 1) -> Issue:
    return Issue(f"I{n}", f"T{n}", "A", "open", ev, ev, opened, opened)


def test_circular_ids_defaults_and_window() -> None:
    one = Ledger((_iss(1, "same words here"),))
    reworded = Ledger((_iss(1, "same words here!"),))
    assert circular_ids([one, reworded, one]) == ("I1",)  # the default similarity
    with pytest.raises(ValueError, match=r"^window must be at least 2 rounds$"):
        circular_ids([one], window=1)


def test_a_two_round_window_says_two_rounds() -> None:
    stuck = Ledger((_iss(1, "same"),))
    decision = check([stuck, stuck], 5, angle_injected=True, window=2)
    assert decision.detail == "I1 went round in circles for 2 rounds after a new angle"


def test_three_circular_issues_are_named_in_a_list() -> None:
    stuck = Ledger(tuple(_iss(n, f"argument {n}") for n in (1, 2, 3)))
    grown = [stuck, Ledger((*stuck.issues, _iss(4, "x", 2))),
             Ledger((*stuck.issues, _iss(4, "x", 2), _iss(5, "y", 3)))]  # fmt: skip
    decision = check(grown, 3, angle_injected=True)
    assert decision.detail == "I1, I2 and I3 went round in circles for 3 rounds after a new angle"


def test_a_round_with_new_points_is_not_quiet() -> None:
    one = Ledger((_iss(1, "a"),))
    three = Ledger((_iss(1, "a"), _iss(2, "b", 3)))
    assert check([one, one, three], 5, angle_injected=False, similarity=1.0).stop is None


def test_no_round_held_is_not_an_empty_ledger_story() -> None:
    spent = check([], 3, angle_injected=False, budget_spent=True, parsed=[])
    assert spent == Decision("timeout", detail="time budget spent after round 0")


# -- text ---------------------------------------------------------------------------------------


def test_truncate_to_one_character_is_the_ellipsis() -> None:
    assert truncate("abc", 1) == "…" and truncate("a", 1) == "a" and truncate("abc", 0) == ""
    assert md_cell("ab|cdef", 4) == "ab\\|…"


def test_clean_tree_cleans_every_string_value_inside() -> None:
    from collab.text import clean_tree

    doc = {"a": "x\x00y", "b": ["\x07z", ("q\u202e",)], "n": 3, "none": None, "k\x00": "v"}
    assert clean_tree(doc) == {"a": "xy", "b": ["z", ["q"]], "n": 3, "none": None, "k\x00": "v"}


def test_an_empty_prompt_cell_is_a_dash() -> None:
    from collab.text import prompt_cell

    assert [prompt_cell(t, 10) for t in ("", " \n\t", "a|b")] == ["—", "—", "a\\|b"]


def test_markers_of_look_alike_less_than_signs_alone_are_defused() -> None:
    from collab.text import for_prompt

    assert for_prompt("﹤﹤﹤END x", 50) == "‹‹‹END x"  # small form only
    assert for_prompt("＜＜＜ collab x", 50) == "‹‹‹ collab x"  # fullwidth only


def test_a_negative_cap_says_so() -> None:
    from collab.text import cap

    with pytest.raises(ValueError, match=r"^cap must be >= 0, not -1$"):
        cap("x", -1)


def test_each_unicode_line_break_alone_becomes_a_newline() -> None:
    from collab.text import clean

    assert [clean(f"a{nl}b") for nl in ("\r", "\r\n", "\u0085", "\u2028", "\u2029")] == ["a\nb"] * 5


# -- prompt views -----------------------------------------------------------------------------


def test_older_replies_are_an_excerpt_of_a_fifth_at_least_200() -> None:
    from collab.config import DebateConfig, Role
    from collab.prompt_views import older_reply_cap

    def cfg(n: int) -> DebateConfig:
        return DebateConfig("T", Role("A", "a", "a"), Role("B", "b", "b"), max_chars=n)

    assert [older_reply_cap(cfg(n)) for n in (500, 1000, 1500)] == [200, 200, 300]
    assert older_reply_cap(cfg(1504)) == 300  # whole characters: a cap is a slice length


def test_issue_rows_live_and_stale() -> None:
    from collab.prompt_views import ELIDED, issue_row, live_ledger_rows

    long = Issue("I" + "9" * 20, "t" * 130, "A", "open", "a" * 100, "b" * 100, 1, 1)

    def cut(text: str, n: int) -> str:
        return f"{text[:n]}…[truncated {len(text) - n} chars]"

    live = issue_row(long, 80)
    assert (live.id, live.title) == (cut(long.id, 16), cut(long.title, 120))
    assert (live.evidence_a, live.evidence_b) == (cut("a" * 100, 80), cut("b" * 100, 80))
    stale = issue_row(long, 0)
    assert stale.title == cut(long.title, 80)
    assert (stale.evidence_a, stale.evidence_b) == (ELIDED, ELIDED)
    ledger = Ledger(
        (
            Issue("I1", "t", "A", "open", "ea", "eb", 1, 3),  # argued in the last round
            Issue("I2", "t", "A", "open", "ea", "eb", 1, 2),  # two rounds back: stale
            Issue("I3", "t", "A", "resolved", "ea", "eb", 1, 4),  # closed: stale
        )
    )
    rows = live_ledger_rows(ledger, 4)
    assert [r.evidence_a for r in rows] == ["ea", ELIDED, ELIDED]


def test_turn_rows() -> None:
    from collab.prompt_views import TurnView, turn_rows

    (row,) = turn_rows([TurnView(2, "B", "Critic  of\nthings", "   ", "s" * 25)], 50)
    assert (row.round_no, row.side, row.name, row.prose) == (2, "B", "Critic of things", "(empty)")
    assert row.status == "s" * 20 + "…[truncated 5 chars]"


# -- secret scan --------------------------------------------------------------------------------


def test_a_dotenv_named_with_a_trailing_slash_is_still_refused() -> None:
    from collab.secret_scan import sensitive_name

    assert sensitive_name("/srv/app/.env/") == "a dotenv file"
    assert sensitive_name("/srv/app/.env.sample/") is None


def test_summarize_shows_three_then_counts_the_rest() -> None:
    from collab.secret_scan import Finding, summarize

    def findings(n: int) -> list[Finding]:
        return [
            Finding(f"context file f{i}", "looks like a secret: Secret Keyword") for i in range(n)
        ]

    three, four = summarize(findings(3)), summarize(findings(4))
    assert "f2 (Secret Keyword)" in three and "more" not in three
    assert "f2 (Secret Keyword); and 1 more" in four and "f3" not in four


def test_the_contract_example_names_an_open_issue_first() -> None:
    from collab.prompt_views import contract_view

    closed_first = Ledger(
        (
            Issue("I1", "t", "A", "resolved", "", "", 1, 1),
            Issue("I2", "t", "A", "open", "", "", 1, 1),
        )
    )
    assert contract_view(closed_first).example_id == "I2"
    assert contract_view(Ledger(closed_first.issues[:1])).example_id == "I1"
    empty = contract_view(Ledger())
    assert (empty.example_id, empty.ids) == ("I1", ())
    caps = (empty.max_new_points, empty.max_title_chars, empty.max_evidence_chars,
            empty.max_abstain_chars)  # fmt: skip
    assert caps == (5, 120, 600, 300)
    long_id = Ledger((Issue("I" + "1" * 20, "t", "A", "open", "", "", 1, 1),))
    assert contract_view(long_id).ids == ("I" + "1" * 15 + "…[truncated 5 chars]",)


# -- ledger ---------------------------------------------------------------------------------


def test_the_stored_ledger_row_holds_every_field() -> None:
    """What state.json and --json keep of an issue (fields added later may sit beside)."""
    from collab.evidence import EvidenceCheck
    from collab.ledger import SeverityChange, ledger_to_dict

    issue = Issue(
        "I1", "Cache", "A", "dropped", "ea", "eb", 1, 3, frozenset({"B", "A"}), "drop", "moot",
        "minor", (SeverityChange("B", "major", "minor", 2),),
        (EvidenceCheck("a.py:1", "x", "verified"),), (EvidenceCheck("b.py:2", None, "outside"),),
    )  # fmt: skip
    (row,) = ledger_to_dict(Ledger((issue,)))
    expected = {
        "id": "I1", "title": "Cache", "raised_by": "A", "status": "dropped",
        "evidence_a": "ea", "evidence_b": "eb", "round_opened": 1, "round_updated": 3,
        "dropped_by": ["A", "B"], "resolution": "drop", "reason": "moot", "severity": "minor",
        "severity_changes": [{"side": "B", "old": "major", "new": "minor", "round_no": 2}],
        "checks_a": [{"cite": "a.py:1", "quote": "x", "status": "verified"}],
        "checks_b": [{"cite": "b.py:2", "quote": None, "status": "outside"}],
    }  # fmt: skip
    assert {k: row[k] for k in expected} == expected


def test_an_issue_reopened_after_its_raiser_dropped_it_closes_when_the_other_drops_too() -> None:
    """A drops its own I1, B reopens it, then B drops it with a reason: every side has
    now stepped away, so it is dropped (not left open with both sides gone)."""
    ledger = replay([
        ("A", 1, Contract(new_points=(NewPoint("Cache", "e"),))),
        ("A", 2, Contract(stances=(StanceUpdate("I1", "drop", "moot"),))),
        ("B", 2, Contract(stances=(StanceUpdate("I1", "contest", "not moot"),))),
        ("B", 3, Contract(stances=(StanceUpdate("I1", "drop", "fine, moot"),))),
    ])  # fmt: skip
    (issue,) = ledger.issues
    assert (issue.status, issue.dropped_by, issue.resolution, issue.reason) == (
        "dropped", frozenset({"A", "B"}), "drop", "fine, moot"
    )  # fmt: skip


def test_both_sides_evidence_gets_its_checks() -> None:
    from collab.evidence import EvidenceCheck
    from collab.ledger import with_checks

    ledger = Ledger((Issue("I1", "t", "A", "open", "see a.py:1", "see b.py:2", 1, 1),))
    (issue,) = with_checks(
        ledger, {("a.py:1", None): "verified", ("b.py:2", None): "outside"}
    ).issues
    assert issue.checks_a == (EvidenceCheck("a.py:1", None, "verified"),)
    assert issue.checks_b == (EvidenceCheck("b.py:2", None, "outside"),)


def test_recent_turns_are_the_two_rounds_before_and_this_rounds_other_replies() -> None:
    from collab.prompt_views import TurnView, recent_turns

    history = [TurnView(r, s, s, f"{s}{r}", "ok") for r in (1, 2, 3) for s in ("A", "B")]
    history.append(TurnView(4, "B", "B", "B4", "ok"))  # B spoke first in round 4
    shown = {side: [t.prose for t in recent_turns(history, side, 4)] for side in ("A", "B")}
    assert shown == {"A": ["A2", "B2", "A3", "B3", "B4"], "B": ["A2", "B2", "A3", "B3"]}


def test_the_contract_example_with_long_or_only_closed_ids() -> None:
    from collab.prompt_views import contract_view

    long_id = Ledger((Issue("I" + "1" * 20, "t", "A", "open", "", "", 1, 1),))
    assert contract_view(long_id).example_id == "I" + "1" * 15 + "…[truncated 5 chars]"
    closed = Ledger((Issue("I2", "t", "A", "resolved", "", "", 1, 1),))
    assert contract_view(closed).example_id == "I2"  # the first id, when none is open


def test_a_failed_evidence_line_is_cut_at_300_characters() -> None:
    from collab.evidence import EvidenceCheck
    from collab.prompt_views import failed_evidence

    bad = tuple(EvidenceCheck(f"src/module_{n}.py:{n}", None, "wrong-line") for n in range(20))
    ledger = Ledger((Issue("I1", "t", "A", "open", "", "", 1, 1, checks_b=bad),))
    (line,) = failed_evidence(ledger, lambda side: f"Role {side}")
    marks = ", ".join(f"src/module_{n}.py:{n} ✗ wrong-line" for n in range(20))
    full = f"I1, Role B: {marks}"
    assert line == f"{full[:300]}…[truncated {len(full) - 300} chars]"


def test_a_panels_ledger_rows_carry_every_seats_evidence_and_elide_it_when_stale() -> None:
    """The debaters' table of a three-seat run: a column per seat, each seat's cell cut on a
    live row and "·" on a stale one, like A's and B's."""
    from collab.prompt_views import ELIDED, live_ledger_rows

    ledger = Ledger(
        (
            Issue("I1", "t", "C", "open", "ea", "eb", 1, 3, evidence_c="c" * 100),
            Issue("I2", "t", "C", "open", "ea", "eb", 1, 1, evidence_c="ec"),  # stale
        )
    )
    live, stale = live_ledger_rows(ledger, 4, ("A", "B", "C"))
    assert live.evidence == ("ea", "eb", f"{'c' * 80}…[truncated 20 chars]")
    assert stale.evidence == (ELIDED, ELIDED, ELIDED)


@pytest.mark.parametrize(
    ("n", "lang", "others"),
    [
        (2, "en", "Bo"),
        (3, "en", "Bo and Cy"),
        (4, "en", "Bo, Cy and Di"),
        (5, "en", "Bo, Cy, Di and Ed"),
        (5, "ja", "Bo、Cy、Di、Ed"),
    ],
)
def test_a_seat_answers_every_other_seat_by_name(n: int, lang: str, others: str) -> None:
    """Who a debater's prompt says it debates: its one opponent, or a panel's others joined."""
    from collab.config import DebateConfig, Role
    from collab.prompt_views import RoleView, speaker

    names = {"A": "Al", "B": "Bo", "C": "Cy", "D": "Di", "E": "Ed"}
    roles = [Role(s, name, f"{name} argues") for s, name in names.items()]
    cfg = DebateConfig("T", roles[0], roles[1], more_roles=tuple(roles[2:n]), lang=lang)  # type: ignore[arg-type]
    # one opponent: its whole role (a template may show its description); a panel's others:
    # their seats and names joined, no one description
    described = "Bo argues" if n == 2 else ""
    assert speaker(cfg, "A")["opponent"] == RoleView("/".join("BCDE"[: n - 1]), others, described)  # type: ignore[arg-type]


@pytest.mark.parametrize("side", ["A", "B", "C"])
def test_every_seat_sees_each_role_under_its_own_seat(side: Side) -> None:
    """Whichever seat speaks: itself, Role A and Role B (the re-ask's ledger key) and the
    list of seats are each seat's own role."""
    from collab.config import DebateConfig, Role
    from collab.prompt_views import RoleView, speaker

    al, bo, cy = Role("A", "Al", "Al argues"), Role("B", "Bo", "Bo argues"), Role("C", "Cy", "Cy")
    cfg = DebateConfig("T", al, bo, more_roles=(cy,))
    view = speaker(cfg, side)
    own = {r.side: RoleView(r.side, r.name, r.description) for r in (al, bo, cy)}
    assert (view["me"], view["role_a"], view["role_b"]) == (own[side], own["A"], own["B"])
    assert view["seat_names"] == ["A = Al", "B = Bo", "C = Cy"]
