"""A contract read back from state.json (``collab.contract.contract_from_dict``): each
damaged shape is refused with a message that says where and what, word for word."""

from __future__ import annotations

import pytest

from collab import contract as c
from collab.contract import Contract, NewPoint, StanceUpdate, contract_from_dict, contract_to_dict
from collab.fields import DamagedField

POINT = {"title": "t", "evidence": "e"}
STANCE = {"id": "I1", "stance": "agree", "evidence": "e"}

BAD = [
    (None, "the contract must be a JSON object, not null"),
    ([], "the contract must be a JSON object, not a list"),
    ({"x": 1},
     f"unknown key 'x' in the contract (allowed: {', '.join((*c.TOP_KEYS, c.FAVOURS_KEY))})"),
    ({"new_points": {}}, "new_points must be a list, not an object"),
    ({"stances": "I1"}, "stances must be a list, not a string"),
    ({"new_points": [3]}, "new_points[0] must be a JSON object, not a number"),
    ({"new_points": [POINT, {"evidence": "e"}]}, "new_points[1] has no 'title'"),
    ({"new_points": [{"title": True}]}, "new_points[0].title must be a string, not a boolean"),
    ({"new_points": [POINT | {"why": 1}]},
     f"unknown key 'why' in new_points[0] (allowed: {', '.join(c._POINT_KEYS)})"),
    ({"new_points": [POINT | {"severity": "huge"}]},
     "new_points[0].severity must be one of blocking/major/minor, not 'huge'"),
    ({"stances": [STANCE | {"stance": "nope"}]},
     "stances[0].stance must be one of agree/contest/drop, not 'nope'"),
    ({"stances": [{"stance": "agree"}]}, "stances[0] has no 'id'"),
    ({"stances": [STANCE | {"evidence": 5}]}, "stances[0].evidence must be a string, not a number"),
    ({"stances": [STANCE | {"severity": 1}]},
     "stances[0].severity must be one of blocking/major/minor, not 1"),
    ({"abstain": 1.5}, "abstain must be null or a string, not a number"),
    ({"favours": ["O1"]}, "favours must be null or a string, not a list"),
    ({"new_points": [POINT | {"evidence": 7}]},
     "new_points[0].evidence must be a string, not a number"),
    ({"stances": [STANCE, None]}, "stances[1] must be a JSON object, not null"),
    ({"stances": [{"id": "I1", "evidence": "e"}]}, "stances[0] has no 'stance'"),
    ({"stances": [STANCE | {"stance": 1}]}, "stances[0].stance must be a string, not a number"),
]  # fmt: skip


@pytest.mark.parametrize(("data", "problem"), BAD, ids=[b[1][:40] for b in BAD])
def test_a_damaged_contract_says_where_and_what(data: object, problem: str) -> None:
    with pytest.raises(DamagedField) as err:
        contract_from_dict(data, "turns[3].contract")
    assert (err.value.path, err.value.problem) == ("turns[3].contract", problem)


def test_what_may_be_left_out_and_what_is_kept() -> None:
    loaded = contract_from_dict({
        "new_points": [{"title": "t"}, {"title": "u", "evidence": "e", "severity": "minor"}],
        "stances": [{"id": "I1", "stance": "drop"}, STANCE | {"severity": "blocking"}],
        "abstain": None,
    })  # fmt: skip
    assert loaded == Contract(
        (NewPoint("t", "", "major"), NewPoint("u", "e", "minor")),
        (StanceUpdate("I1", "drop", "", None), StanceUpdate("I1", "agree", "e", "blocking")),
        None,
    )
    assert contract_from_dict({}) == Contract()
    assert contract_from_dict({"favours": "O2"}) == Contract(favours="O2")
    assert contract_from_dict({"new_points": None, "stances": None}) == Contract()


def test_the_stored_shape() -> None:
    stored = contract_to_dict(Contract(
        (NewPoint("t", "e", "blocking"),),
        (StanceUpdate("I1", "agree", "ok"), StanceUpdate("I2", "contest", "no", "minor")),
        "busy",
    ))  # fmt: skip
    assert stored == {
        "new_points": [{"title": "t", "evidence": "e", "severity": "blocking"}],
        "stances": [
            {"id": "I1", "stance": "agree", "evidence": "ok"},  # no severity: none stored
            {"id": "I2", "stance": "contest", "evidence": "no", "severity": "minor"},
        ],
        "abstain": "busy",
    }
    assert contract_to_dict(Contract(favours="O1")) == {
        "new_points": [], "stances": [], "abstain": None, "favours": "O1"
    }  # fmt: skip


def test_kind_of_every_json_value() -> None:
    kinds = [c.kind_of(v) for v in (None, True, 0, 1.5, "s", [], {}, ())]
    assert kinds == ["null", "a boolean", "a number", "a number", "a string", "a list",
                     "an object", "an object"]  # fmt: skip


def test_the_default_path_is_contract() -> None:
    with pytest.raises(DamagedField) as err:
        contract_from_dict(None)
    assert str(err.value) == "contract: the contract must be a JSON object, not null"
