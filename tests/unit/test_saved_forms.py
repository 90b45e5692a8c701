"""collab.saved_forms: what a run keeps from one save to the next is kept while, and only
while, it is made of the same objects (or values written alike)."""

from __future__ import annotations

from collab.json_text import FrozenForm, FrozenItems
from collab.ledger import Ledger, issue_to_dict
from collab.saved_forms import NOTHING, SavedForms
from tests.unit.test_orchestrator import debate


def _form(obj: object) -> dict[str, object]:
    return {"of": repr(obj)}


def test_a_list_of_the_same_objects_is_the_last_save_s_list_and_its_items_are_kept_with_it() -> (
    None
):
    forms = SavedForms()
    a, b, c = object(), object(), object()
    first = forms.begin().each("xs", [a, b], lambda o: forms.form(o, _form))
    assert first == [{"of": repr(a)}, {"of": repr(b)}] and isinstance(first, FrozenItems)
    # kept whole, twice: the forms of its items go on being kept with it
    assert forms.begin().each("xs", [a, b], lambda o: forms.form(o, _form)) is first
    assert forms.begin().each("xs", [a, b], lambda o: forms.form(o, _form)) is first
    grown = forms.begin().each("xs", [a, b, c], lambda o: forms.form(o, _form))
    assert grown is not first and grown == [*first, {"of": repr(c)}]
    assert grown[0] is first[0] and grown[1] is first[1]  # not made again
    other = forms.begin().each("xs", [b, a, c], lambda o: forms.form(o, _form))
    assert other is not grown and [id(f) for f in other] == [
        id(grown[1]),
        id(grown[0]),
        id(grown[2]),
    ]
    assert forms.begin().each("xs", [], lambda o: forms.form(o, _form)) is NOTHING
    assert forms.begin().each("xs", [], lambda o: forms.form(o, _form)) is NOTHING


def test_the_round_ledgers_kept_whole_keep_their_issues_forms() -> None:
    run = debate({}, rounds=3)
    ledgers = run.state.round_ledgers()
    forms = SavedForms()
    first = forms.begin().ledgers(ledgers)
    assert first == [[issue_to_dict(i) for i in lg.issues] for lg in ledgers]
    assert forms.begin().ledgers(ledgers) is first
    # a new ledger of the same issues (as the next round's): each issue's form kept
    again = Ledger(ledgers[-1].issues)
    made = forms.begin().ledgers([*ledgers, again])
    assert made[:-1] == first and all(x is y for x, y in zip(made, first, strict=False))
    assert all(x is y for x, y in zip(made[-1], first[-1], strict=True))


def test_made_is_kept_for_the_same_objects_and_for_values_written_alike_only() -> None:
    forms = SavedForms()
    calls: list[int] = []

    def make() -> FrozenForm:
        calls.append(1)
        return FrozenForm({"n": len(calls)})

    thing = object()
    kept = forms.begin().made("x", (thing, 1, 0.0, "s"), make)
    assert forms.begin().made("x", (thing, 1, 0.0, "s"), make) is kept
    assert forms.begin().made("x", (thing, 1, 0.0, "s" + "")[:4], make) is kept
    assert forms.begin().made("x", (thing, 1, -0.0, "s"), make) is not kept  # written -0.0
    assert forms.begin().made("x", (thing, True, -0.0, "s"), make)["n"] == 3  # True is not 1
    assert forms.begin().made("x", (object(), True, -0.0, "s"), make)["n"] == 4
    assert len(calls) == 4


def test_to_dict_hands_back_the_same_lists_while_nothing_changed() -> None:
    state = debate({}, rounds=2).state
    first, again = state.to_dict(), state.to_dict()
    for key in ("turns", "round_ledgers", "round_orders", "ledger", "config"):
        assert again[key] is first[key], key
    state.turns.pop()
    fewer = state.to_dict()
    assert fewer["turns"] is not first["turns"] and len(fewer["turns"]) == len(first["turns"]) - 1
    assert all(x is y for x, y in zip(fewer["turns"], first["turns"], strict=False))  # type: ignore[call-overload]
