"""collab.json_text: state.json's text is exactly ``json.dumps(doc, ensure_ascii=False,
indent=1)``, whatever the document and whichever of its parts are kept from the last save."""

from __future__ import annotations

import json
from dataclasses import asdict, replace
from pathlib import Path
from random import Random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import collab.store
from collab.agents.decoding import Usage
from collab.json_text import FrozenForm, FrozenItems, Texts, document_text
from collab.runners.inprocess import SCRIPTED
from collab.state import FollowUp, RunState
from collab.turns import AgentMeta, meta_to_dict
from tests.unit.strategies import UNICODE
from tests.unit.test_orchestrator import QUIET, circling, debate, fresh_point, said


def dumps(doc: object) -> str:
    return json.dumps(doc, ensure_ascii=False, indent=1)


# Strings with unicode, control characters, quotes, backslashes, U+2028 and raw newlines.
TEXT = st.text(UNICODE | st.sampled_from('\n\r\t\x00\x1f"\\\u2028é€😀'))
SCALARS = (
    st.none() | st.booleans() | st.integers() | st.integers(min_value=2**63)
    | st.floats(allow_nan=True, allow_infinity=True) | TEXT
)  # fmt: skip
KEYS = TEXT | st.integers() | st.floats() | st.booleans() | st.none()


def _frozen(value: Any, freeze: bool) -> Any:
    if freeze and isinstance(value, dict):
        return FrozenForm(value)
    if freeze and isinstance(value, list):
        return FrozenItems(value)
    return value


JSON = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(inner, inner)
        | st.dictionaries(TEXT, inner, max_size=4)
        | st.dictionaries(KEYS, inner, max_size=3)
        | st.builds(_frozen, st.lists(inner, max_size=3), st.booleans())
        | st.builds(_frozen, st.dictionaries(TEXT, inner, max_size=3), st.booleans())
    ),
    max_leaves=12,
)
# A top-level value: anything, or a list whose items may be frozen (the turns, the ledgers).
VALUES = JSON | st.lists(JSON, max_size=4)
DOCS = st.dictionaries(TEXT, VALUES, max_size=6) | st.dictionaries(KEYS, VALUES, max_size=3)


@settings(max_examples=50, deadline=None)
@given(DOCS, st.randoms(use_true_random=False))
def test_the_text_is_json_dumps_for_any_document_and_any_kept_parts(
    first: dict[Any, Any], rnd: Random
) -> None:
    kept: Texts = {}
    assert document_text(first, kept) == dumps(first)
    # The next save keeps some of the first's values (frozen or not) where they were, one
    # level deeper or twice over, and changes others: a kept text is only ever that of the
    # same object at the same depth.
    values = list(first.values())
    second = {
        key: rnd.choice([value, [value], [value, *values], FrozenItems([value]), None])
        for key, value in first.items()
    }
    second[rnd.choice([*first, "new"])] = rnd.choice([*values, "new"])
    assert document_text(second, kept) == dumps(second)
    assert document_text(second, kept) == dumps(second)  # every part kept
    assert document_text(first, kept) == dumps(first)


def test_a_frozen_part_changed_in_place_is_the_one_thing_it_cannot_see() -> None:
    """The promise the kept texts rest on (documented, not enforced): what is shown here is
    why RunState.to_dict's forms are never changed once made."""
    turn = FrozenForm({"reply": "first"})
    kept: Texts = {}
    document_text({"turns": [turn]}, kept)
    turn["reply"] = "changed"
    assert document_text({"turns": [turn]}, kept) != dumps({"turns": [turn]})
    assert document_text({"turns": [FrozenForm(turn)]}, kept) == dumps({"turns": [turn]})


def test_a_kept_text_stands_on_every_later_save_of_the_same_object() -> None:
    """Kept from one save to the next, and the next: not encoded again while the object is
    the same (changed in place here, to see which text is written)."""
    turn = FrozenForm({"reply": "first"})
    kept: Texts = {}
    first = document_text({"turns": [turn]}, kept)
    turn["reply"] = "changed"
    later = [document_text({"turns": [turn]}, kept) for _ in range(3)]
    assert later == [first] * 3 != [dumps({"turns": [turn]})] * 3


def test_the_texts_inside_a_kept_text_are_kept_with_it() -> None:
    """A frozen list kept whole (a ledger unchanged since the last save) keeps the texts
    of the frozen items it was spliced from: a later save splices them into a new list
    (a new ledger of the same issues), at each depth, without encoding them again
    (changed in place here, to see which text is written)."""
    issue, other = FrozenForm({"id": "I1"}), FrozenForm({"id": "I2"})
    ledger = FrozenItems([issue])
    kept: Texts = {}
    first = document_text({"ledger": ledger, "round_ledgers": [ledger]}, kept)
    assert document_text({"ledger": ledger, "round_ledgers": [ledger]}, kept) == first
    issue["id"] = "changed"
    new = FrozenItems([issue, other])
    assert document_text({"ledger": new, "round_ledgers": [ledger, new]}, kept) == dumps(
        {
            "ledger": [{"id": "I1"}, {"id": "I2"}],
            "round_ledgers": [[{"id": "I1"}], [{"id": "I1"}, {"id": "I2"}]],
        }
    )


def test_a_part_a_level_up_or_down_is_made_from_its_text_there(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The run's ledger is its last round's too, one level deeper: its text there is made
    from the text a level up or down, this save's or the last's, not encoded again
    (changed in place here, to see which text is written)."""
    encoded: list[object] = []
    real = collab.json_text._dumps
    monkeypatch.setattr(collab.json_text, "_dumps", lambda v: encoded.append(v) or real(v))
    issue = FrozenForm({"id": "I1", "checks": ["a", "b"]})
    ledger = FrozenItems([issue])
    kept: Texts = {}
    # Encoded at depth 3 (its issue at 4), then made from this save's a level deeper.
    doc = {"deeper": [FrozenItems([ledger])], "round_ledgers": [ledger], "ledger": ledger}
    assert document_text(doc, kept) == dumps(doc) and encoded.count(issue) == 1
    issue["id"] = "changed"
    for moved in (
        {"round_ledgers": [ledger]},  # kept at its own depth
        {"deeper": [FrozenItems([ledger])]},  # from the last save's, a level up
        {"round_ledgers": [ledger]},  # from the last save's, a level deeper
        {"ledger": ledger, "round_ledgers": [ledger]},
        {"x": [ledger], "y": [FrozenItems([ledger])]},  # from this save's, a level up
    ):
        text = document_text(moved, kept)
        assert text == dumps(moved).replace('"changed"', '"I1"') != dumps(moved)
    assert encoded.count(issue) == 1


def test_a_text_kept_for_an_id_is_taken_only_for_the_same_object() -> None:
    """An id is reused once the object it was made of is gone: a kept text whose object
    is another one (here put there by hand, at the same id and depth) is never written,
    at the top of the document or deeper."""
    part = FrozenForm({"id": "I1"})
    name = "run-1"
    doc = {"status": name, "ledger": FrozenItems([part]), "judge": part}
    stale = FrozenForm({"id": "gone"})
    for depth in (1, 2):
        kept: Texts = {
            (id(part), depth): (stale, '{"stale": 1}', ()),
            (id(name), depth): (stale, '"stale"', ()),
        }
        assert document_text(doc, kept) == dumps(doc)
        assert document_text(doc, kept) == dumps(doc)  # and kept, this time its own


def test_a_scalar_is_kept_by_identity_as_a_frozen_part_is(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A string, number, bool or None never changes: the same object's text is kept (the
    run's id, its status, every None of a save), whichever type it is; a list or dict
    that is not frozen is encoded again."""
    encoded: list[object] = []
    real = collab.json_text._dumps
    monkeypatch.setattr(collab.json_text, "_dumps", lambda v: encoded.append(v) or real(v))
    scalars: list[object] = ["run-1", 2**70, -0.0, float("nan"), True, False, None]
    doc = {str(n): v for n, v in enumerate(scalars)} | {"a": [1], "d": {"k": 1}}
    kept: Texts = {}
    assert document_text(doc, kept) == dumps(doc)
    assert document_text(doc, kept) == dumps(doc)
    assert encoded == [*scalars, [1], {"k": 1}, [1], {"k": 1}]


def test_every_kind_of_value_beside_kept_parts_is_written_as_json_writes_it() -> None:
    scalars = [
        True,
        False,
        None,
        7,
        -(2**70),
        1.5,
        float("inf"),
        'é\n"',
        [],
        {},
        [True],
        {"k": False},
    ]
    doc = {f"v{i}": value for i, value in enumerate(scalars)}
    doc["items"] = [FrozenForm({"a": True}), *scalars, FrozenItems([False, None])]
    kept: Texts = {}
    assert document_text(doc, kept) == dumps(doc)
    assert document_text(doc, kept) == dumps(doc)


@pytest.fixture
def every_save(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """(the text saved, json.dumps of the same document) for every state.json written."""
    texts: list[tuple[str, str]] = []
    real = collab.store.document_text

    def checked(doc: dict[str, object], kept: Texts) -> str:
        text = real(doc, kept)
        texts.append((text, dumps(doc)))
        return text

    monkeypatch.setattr(collab.store, "document_text", checked)
    return texts


def _state_on_disk(run_id: str, home: Path) -> str:
    return (home / "runs" / run_id / "state.json").read_text(encoding="utf-8")


PANEL = ("Skeptic: doubts every claim", "Builder: wants it shipped", "Operator: runs it")


@pytest.mark.parametrize(
    "options",
    [
        {"rounds": 3},
        {"rounds": 2, "opening": "sequential"},
        {"rounds": 3, "depth": "auto"},
        {"rounds": 2, "role": PANEL, "agents": (SCRIPTED,)},
        {"rounds": 4, "replies": circling},  # issues contested and dropped: some changed
    ],
    ids=["default", "sequential", "depth-auto", "panel-of-3", "issues-changing"],
)
def test_every_save_of_real_runs_is_json_dumps_of_its_document(
    every_save: list[tuple[str, str]], hermetic_env: Path, options: dict[str, Any]
) -> None:
    options = dict(options)
    run = debate({}, options.pop("replies", fresh_point), **options)
    assert run.error is None and len(every_save) == len(run.saved) > 5
    assert all(text == expected for text, expected in every_save)
    assert _state_on_disk(run.state.run_id, hermetic_env) == every_save[-1][0]
    # Resumed from a middle save (a new RunDir and RunState: nothing kept at first).
    middle = json.loads(every_save[len(every_save) // 2][0])
    del every_save[:]
    again = debate({}, QUIET, state=RunState.from_dict(middle))
    assert again.error is None and every_save
    assert all(text == expected for text, expected in every_save)
    assert _state_on_disk(run.state.run_id, hermetic_env) == every_save[-1][0]


def test_unicode_and_control_characters_in_replies_are_saved_as_json_writes_them(
    every_save: list[tuple[str, str]],
) -> None:
    odd = 'tabs\tand\x00nul, \u2028 line sep, é, 😀, "quoted" \\ back\nslash'
    run = debate({}, said([odd], prose=odd), rounds=2)
    assert run.error is None and every_save
    assert all(text == expected for text, expected in every_save)
    assert any(odd in json.loads(text)["turns"][0]["reply"] for text, _ in every_save[2:])


def test_the_parts_made_anew_on_every_save_are_kept_only_while_written_alike() -> None:
    # to_dict keeps its form of the checked rounds, the Judge, the costs by side and the
    # tokens (and the store their text) while each holds values json writes alike.
    state = debate({}, rounds=2).state
    assert state.judge is not None and state.judge.meta is not None
    meta, kept = state.judge.meta, Texts()

    def saved() -> dict[str, Any]:
        doc = state.to_dict()
        text = document_text(doc, kept)
        assert text == dumps(doc) == dumps(replace(state).to_dict())  # a state with none kept
        return dict(json.loads(text))

    before = saved()
    assert saved() == before
    state.checked_rounds.append(7)
    assert saved()["checked_rounds"] == [*before["checked_rounds"], 7]
    state.judge.text = "Another summary."
    assert saved()["judge"]["text"] == "Another summary."
    for cost in (0.0, -0.0, 0, 2.5, 2.5):  # equal, but json writes 0.0, -0.0 and 0 apart
        state.judge.meta = replace(meta, cost_usd=cost)
        assert saved()["cost_usd_by_side"]["judge"] == cost
    state.judge.meta = replace(meta, usage=Usage(input_tokens=10**6))
    assert saved()["tokens"]["input_tokens"] > 10**6
    # The costs and tokens are kept while the same calls' metas make them, wherever held.
    asked = FollowUp("A", "Why?", "Because.", "ok", 2, "", replace(meta, cost_usd=1.0))
    state.followups.append(asked)
    assert saved()["cost_usd_by_side"]["A"] != before["cost_usd_by_side"]["A"]
    asked.seat = "B"
    assert saved()["cost_usd_by_side"]["A"] == before["cost_usd_by_side"]["A"]
    state.superseded_judges.append(state.judge)
    state.judge = None
    assert saved()["cost_usd_by_side"]["judge"] is None
    # The rounds done, kept while the same config and turns make them.
    assert saved()["rounds_done"] == 2
    state.turns[-1] = replace(state.turns[-1], round_no=5)  # as many turns: one elsewhere
    assert saved()["rounds_done"] == 1
    state.config = replace(state.config, rounds=0)
    assert saved()["rounds_done"] == 0


@pytest.mark.parametrize("usage", [None, Usage(1, 2, 3, 4)])
def test_a_meta_is_saved_as_asdict_makes_it(usage: Usage | None) -> None:
    meta = AgentMeta("fake", "m", 0, 1.5, 2, usage, 0.25, "s", "e", 1, True)
    assert list(meta_to_dict(meta).items()) == list(asdict(meta).items())


def test_json_s_own_encoder_only_for_what_the_built_text_leaves_to_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The text of a part made anew is built as strings (json's indented encoder is pure
    Python): json encodes only a value with a key it converts, a type it alone knows (a
    str or int subclass: json's text; anything else: json's error) or a cycle."""
    given: list[object] = []
    real = collab.json_text._INDENTED
    monkeypatch.setattr(collab.json_text, "_INDENTED", lambda v: given.append(v) or real(v))
    plain = {
        "a": [1, -(2**70), 2.5, -0.0, None, True, False, 'é\n"\u2028\x00'],
        "b": {"c": {}, "d": [], "e": ()},
        "f": FrozenForm({"x": FrozenItems([float("nan"), float("inf"), -float("inf")])}),
        "g": [("t", 1), [[[]]]],
    }
    assert document_text(plain, {}) == dumps(plain) and given == []

    class Name(str):
        pass

    for odd in ({1: "a key json converts"}, [Name("x")], {"k": [True, Name("y")]}):
        doc = {"odd": odd, "plain": [1]}
        assert document_text(doc, {}) == dumps(doc) and given == [odd]
        given.clear()
    doc = {"odd": Name("z"), "plain": [1]}  # a scalar json alone knows: its flat encoder
    assert document_text(doc, {}) == dumps(doc) and given == []
    with pytest.raises(TypeError, match="not JSON serializable"):
        document_text({"odd": [object()]}, {})
    cycle: list[object] = []
    cycle.append([cycle])
    with pytest.raises(ValueError, match="Circular reference"):
        document_text({"odd": cycle}, {})
