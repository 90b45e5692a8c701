"""Each test here kills a mutant that survived tests/unit in the issue-19 audit: what
the contract parser keeps of odd values and caps, the fence rules, and what the Judge
reads of the role names and in which order."""

from __future__ import annotations

import json

import pytest

from collab.config import DebateConfig, Role
from collab.contract import DEFAULT_LIMITS, Contract, NewPoint, StanceUpdate
from collab.contract_parse import parse
from collab.judge.answer import finish, labels_for
from collab.judge.labels import Labels, first_side
from collab.ledger import replay
from collab.prompts import Prompts, TurnView
from collab.text import well_formed

IDS = {"I1", "I2"}


def block(doc: object) -> str:
    return f"Prose.\n```json\n{json.dumps(doc)}\n```"


# -- values that are not strings -------------------------------------------------------------


@pytest.mark.parametrize("bad", [5, [], True, {}, 1.5])
def test_non_string_evidence_drops_that_item_only(bad: object) -> None:
    doc = {
        "new_points": [{"title": "bad", "evidence": bad}, {"title": "good", "evidence": "e"}],
        "stances": [{"id": "I1", "stance": "contest", "evidence": bad},
                    {"id": "I2", "stance": "contest", "evidence": "why"}],
    }  # fmt: skip
    parsed = parse(block(doc), IDS)
    assert parsed.contract == Contract(
        (NewPoint("good", "e"),), (StanceUpdate("I2", "contest", "why"),)
    )
    assert (parsed.sent, parsed.kept) == (4, 2)
    (warning,) = parsed.warnings
    assert "new_points[0] (evidence must be a string)" in warning
    assert "stances[0] (evidence must be a string)" in warning


@pytest.mark.parametrize("bad", [5, [], True])
def test_a_block_of_only_non_string_evidence_is_no_contract(bad: object) -> None:
    parsed = parse(block({"stances": [{"id": "I1", "stance": "agree", "evidence": bad}]}), IDS)
    assert parsed.contract is None and parsed.error is not None
    assert "evidence must be a string" in parsed.error


def test_null_evidence_is_no_evidence() -> None:
    doc = {
        "new_points": [{"title": "T", "evidence": None}],
        "stances": [{"id": "I1", "stance": "contest", "evidence": None},
                    {"id": "I2", "stance": "agree", "evidence": None}],
    }  # fmt: skip
    parsed = parse(block(doc), IDS)
    assert parsed.contract == Contract((NewPoint("T", ""),), (StanceUpdate("I1", "contest", ""),))
    assert "agree I2 without a reason" in parsed.warnings[-1]


def test_abstain_beside_valid_stances_keeps_the_stances() -> None:
    doc = {"stances": [{"id": "I1", "stance": "agree", "evidence": "convinced"}],
           "abstain": "no view"}  # fmt: skip
    parsed = parse(block(doc), IDS)
    assert parsed.contract == Contract(stances=(StanceUpdate("I1", "agree", "convinced"),))
    assert parsed.warnings == ("dropped abstain (ignored: the block has points or stances)",)
    alone = parse(block({"abstain": "no view", "stances": []}), IDS)
    assert alone.contract == Contract(abstain="no view")


# -- caps ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("field", "cap"),
    [("title", DEFAULT_LIMITS.max_title_chars), ("evidence", DEFAULT_LIMITS.max_evidence_chars)],
)
def test_a_point_at_its_cap_is_kept_one_over_is_dropped(field: str, cap: int) -> None:
    def point(n: int) -> dict[str, str]:
        return {"title": "T", "evidence": "e"} | {field: "x" * n}

    at = parse(block({"new_points": [point(cap)]}), IDS)
    assert at.contract is not None and len(getattr(at.contract.new_points[0], field)) == cap
    over = parse(block({"new_points": [point(cap + 1), point(1)]}), IDS)
    assert over.contract is not None and len(over.contract.new_points) == 1
    assert f"new_points[0] ({field} over {cap} characters)" in over.warnings[-1]
    huge = parse(block({"new_points": [point(50_000)]}), IDS)
    assert huge.contract is None  # 50,000 characters never reach the ledger


def test_stance_evidence_and_abstain_caps() -> None:
    cap = DEFAULT_LIMITS.max_evidence_chars
    ok = {"id": "I1", "stance": "contest", "evidence": "x" * cap}
    over = {"id": "I2", "stance": "contest", "evidence": "x" * (cap + 1)}
    parsed = parse(block({"stances": [ok, over]}), IDS)
    assert parsed.contract is not None and [s.id for s in parsed.contract.stances] == ["I1"]
    a = DEFAULT_LIMITS.max_abstain_chars
    assert parse(block({"abstain": "y" * a}), IDS).contract == Contract(abstain="y" * a)
    assert parse(block({"abstain": "y" * (a + 1)}), IDS).contract is None


def test_count_caps() -> None:
    points = [{"title": f"T{i}", "evidence": "e"} for i in range(7)]
    parsed = parse(block({"new_points": points}), IDS)
    assert parsed.contract is not None
    assert len(parsed.contract.new_points) == DEFAULT_LIMITS.max_new_points
    assert (parsed.sent, parsed.kept) == (7, DEFAULT_LIMITS.max_new_points)


# -- fences -----------------------------------------------------------------------------------

CONTRACT = '{"new_points": [{"title": "Real", "evidence": "e"}]}'


def test_a_backtick_in_a_backtick_fences_info_string_opens_nothing() -> None:
    reply = f"```py`\nnot a fence above\n```json\n{CONTRACT}\n```"
    parsed = parse(reply, IDS)
    assert parsed.contract == Contract((NewPoint("Real", "e"),))
    assert parsed.prose == "```py`\nnot a fence above"


def test_a_fence_closes_only_with_its_own_character() -> None:
    reply = f"Look:\n```\n~~~\n```\n```json\n{CONTRACT}\n```"
    parsed = parse(reply, IDS)
    assert parsed.contract == Contract((NewPoint("Real", "e"),))
    assert parsed.prose == "Look:\n```\n~~~\n```"
    tilde = f"~~~json\n{CONTRACT}\n~~~\nAfter."
    assert parse(tilde, IDS).prose == "After."


def test_a_longer_closing_fence_closes_a_shorter_one_does_not() -> None:
    longer = parse(f"```json\n{CONTRACT}\n`````\nMore prose after.", IDS)
    assert longer.contract == Contract((NewPoint("Real", "e"),))
    assert longer.prose == "More prose after." and longer.warnings == ()
    quoted = '{"new_points": [{"title": "Quoted", "evidence": "q"}]}'
    shorter = parse(f"````md\n```json\n{quoted}\n```\n````\n```json\n{CONTRACT}\n```", IDS)
    assert shorter.contract == Contract((NewPoint("Real", "e"),))
    assert "Quoted" in shorter.prose


# -- the Judge reads positions, never names ----------------------------------------------------

CFG = DebateConfig("T", Role("A", "C++ Expert", "a"), Role("B", "Ops (SRE)", "b"))


def judge_prompt(cfg: DebateConfig, labels: Labels, ledger_title: str, evidence: str) -> str:
    ledger = replay(
        [
            ("A", 1, Contract(new_points=(NewPoint(ledger_title, evidence),))),
            ("B", 1, Contract(stances=(StanceUpdate("I1", "contest", evidence),))),
        ]
    )
    history = [
        TurnView(1, "A", cfg.role_a.name, f"{cfg.role_a.name} opens.", "ok"),
        TurnView(1, "B", cfg.role_b.name, f"{cfg.role_b.name} answers.", "ok"),
    ]
    return Prompts("en").judge(cfg, ledger, history, "max-rounds", labels)


def test_role_names_in_ledger_titles_and_evidence_are_hidden() -> None:
    labels = Labels("A", CFG.role_a.name, CFG.role_b.name)
    prompt = judge_prompt(
        CFG, labels, "C++ Expert vs Ops (SRE)", "Ops (SRE) says C++ Expert is wrong"
    )
    assert "C++ Expert" not in prompt and "Ops (SRE)" not in prompt
    assert "Position 1 vs Position 2" in prompt
    assert "Position 2 says Position 1 is wrong" in prompt


def test_a_name_that_prefixes_another_is_hidden_whole() -> None:
    cfg = DebateConfig("T", Role("A", "Architect", "a"), Role("B", "Architect Lead", "b"))
    labels = Labels("B", "Architect", "Architect Lead")
    prompt = judge_prompt(cfg, labels, "Architect Lead and Architect", "Architect Lead said so")
    assert "Architect" not in prompt and "Position 1 Lead" not in prompt
    assert "Position 1 and Position 2" in prompt
    assert finish("Position 1 beats Position 2.", labels, replay([]), "en") == (
        "Architect Lead beats Architect."
    )


@pytest.mark.parametrize("first", ["A", "B"])
def test_the_position_order_is_the_one_drawn_from_the_run_id(first: str) -> None:
    run_id = next(f"20261201-000000-{n:06x}" for n in range(100)
                  if first_side(f"20261201-000000-{n:06x}") == first)  # fmt: skip
    labels = labels_for(run_id, None, CFG.role_a.name, CFG.role_b.name)
    assert labels.first == first
    prompt = judge_prompt(CFG, labels, "t", "e")
    a_label = "Position 1" if first == "A" else "Position 2"
    b_label = "Position 2" if first == "A" else "Position 1"
    assert f"{a_label} opens." in prompt and f"{b_label} answers." in prompt
    assert finish(f"{a_label} wins.", labels, replay([]), "en") == "C++ Expert wins."
    # a recorded order wins over the drawn one
    other = "B" if first == "A" else "A"
    assert labels_for(run_id, other, "x", "y").first == other  # type: ignore[arg-type]


def test_well_formed_replaces_lone_surrogates_only() -> None:
    assert well_formed("a\ud800b\udfffc") == "a\ufffdb\ufffdc"
    assert well_formed("emoji 😀 stays") == "emoji 😀 stays"
    assert well_formed("plain") == "plain"


@pytest.mark.parametrize(("item", "kind"), [(5, "a number"), ("I1", "a string"), ([], "a list")])
def test_an_item_that_is_no_object_is_named_by_its_kind(item: object, kind: str) -> None:
    parsed = parse(block({"new_points": [item], "stances": [item]}), IDS)
    assert parsed.contract is None and parsed.error is not None
    assert f"new_points[0] (an object was expected, not {kind})" in parsed.error
    assert f"stances[0] (an object was expected, not {kind})" in parsed.error


# -- where the contract is: blocks and bare objects (mutmut survivors) ------------------------

POINT = {"new_points": [{"title": "T", "evidence": "e"}]}
FOUND = Contract((NewPoint("T", "e"),))


def test_kind_of_names_every_json_kind() -> None:
    from collab.contract import kind_of

    kinds = [kind_of(v) for v in (None, True, 5, 1.5, "x", [], {})]
    assert kinds == ["null", "a boolean", "a number", "a number", "a string", "a list",
                     "an object"]  # fmt: skip


def test_an_untagged_block_counts_only_when_it_holds_an_object() -> None:
    text = parse("Prose.\n```\nplain text, no json\n```", IDS)
    assert (text.contract, text.error) == (None, "no json block found at the end of the reply")
    spaced = parse(f"Prose.\n```\n\n   {json.dumps(POINT)}\n```", IDS)
    assert spaced.contract == FOUND


def test_a_bare_object_alone_or_after_prose_on_the_same_line() -> None:
    assert parse(json.dumps(POINT), IDS).contract == FOUND
    assert parse(f"Here it is: {json.dumps(POINT)}", IDS).contract == FOUND
    after_braces = parse(f"Prose {{x}} and {{y: 1}} then: {json.dumps(POINT)}", IDS)
    assert after_braces.contract == FOUND
    long = parse("word " * 5_000 + "\n" + json.dumps(POINT), IDS)
    assert long.contract == FOUND and long.prose.startswith("word word")


def test_a_broken_bare_object_is_repaired_only_from_a_line_start() -> None:
    broken = '{"new_points": [{"title": "T", "evidence": "e"},],}'
    assert parse(f"Prose {{x\n{broken}", IDS).contract == FOUND
    assert parse(f"Prose: {broken}", IDS).contract is None


def test_a_bare_object_without_contract_keys_is_no_contract() -> None:
    for reply in ('Prose\n{"timeout": 30}', 'Prose\n{"timeout": 30,}'):
        parsed = parse(reply, IDS)
        assert (parsed.contract, parsed.error) == (
            None, "no json block found at the end of the reply"
        )  # fmt: skip


def test_the_warnings_name_what_was_dropped_and_ignored() -> None:
    one = parse(block({**POINT, "foo": 1}), IDS)
    assert one.warnings == ("unknown key ignored: foo",)
    two = parse(
        block({"new_points": [{"evidence": "no title"}, {"title": "T", "evidence": "e"}],
               "stances": 5, "foo": 1, "bar": 2}),
        IDS,
    )  # fmt: skip
    assert two.contract == FOUND
    assert two.warnings == (
        "unknown keys ignored: foo, bar",
        "dropped stances (a list was expected, not a number); new_points[0] (no title)",
    )
    assert (two.sent, two.kept) == (2, 1)


def test_what_is_said_when_nothing_was_usable() -> None:
    bad_abstain = parse(block({"abstain": 5}), IDS)
    why = "abstain (a reason string was expected, not a number)"
    assert (bad_abstain.contract, bad_abstain.error) == (None, why)
    assert bad_abstain.warnings == (f"dropped {why}",)
    assert (bad_abstain.sent, bad_abstain.kept) == (0, 0)
    bad_list = parse(block({"stances": "I1"}), IDS)
    assert bad_list.error == "stances (a list was expected, not a string)"
    two = parse(block({"new_points": [{"title": ""}, 7]}), IDS)
    assert two.error == (
        "nothing in the json block was usable: new_points[0] (no title); "
        "new_points[1] (an object was expected, not a number)"
    )
    assert (two.sent, two.kept) == (2, 0)
