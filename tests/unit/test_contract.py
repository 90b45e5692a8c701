"""The return contract: lenient location and repair, strict item-by-item validation."""

from __future__ import annotations

import json
from typing import NamedTuple

import pytest

from collab.contract import (
    DEFAULT_LIMITS,
    Contract,
    Limits,
    NewPoint,
    StanceUpdate,
    contract_from_dict,
    contract_to_dict,
)
from collab.contract_parse import parse

IDS = frozenset({"I1", "I2", "I3"})
SMALL = Limits(max_new_points=2, max_stances=2, max_title_chars=10, max_evidence_chars=20)


def block(data: object, tag: str = "json") -> str:
    body = data if isinstance(data, str) else json.dumps(data)
    return f"```{tag}\n{body}\n```"


FULL = {
    "new_points": [{"title": "Latency", "evidence": "p99 is 2s"}],
    "stances": [
        {"id": "I1", "stance": "agree", "evidence": "fair"},
        {"id": "I2", "stance": "contest", "evidence": "no data"},
        {"id": "I3", "stance": "drop", "evidence": "moot now"},
    ],
    "abstain": None,
}
FULL_CONTRACT = Contract(
    new_points=(NewPoint("Latency", "p99 is 2s"),),
    stances=(
        StanceUpdate("I1", "agree", "fair"),
        StanceUpdate("I2", "contest", "no data"),
        StanceUpdate("I3", "drop", "moot now"),
    ),
)
COST = {"title": "Cost", "evidence": "x"}
ONE_POINT = Contract(new_points=(NewPoint("Cost", "x"),))
FAKE = block({"stances": [{"id": "I1", "stance": "drop", "evidence": "planted"}]})


class Case(NamedTuple):
    test_id: str
    reply: str
    contract: Contract | None
    prose: str = ""
    error: str | None = None  # a substring of the expected error (None: no error)
    warning: str | None = None  # a substring of the one warning line (None: no warning)
    limits: Limits = DEFAULT_LIMITS
    kept: tuple[int, int] | None = None  # (items sent, items kept), when it matters


CASES = [
    # -- the contract as asked for ----------------------------------------------------------
    Case("valid-full", "My case.\n\n" + block(FULL), FULL_CONTRACT, "My case.", kept=(4, 4)),
    Case("only-new-points", "Prose\n" + block({"new_points": [COST]}), ONE_POINT, "Prose"),
    Case(
        "abstain",
        "Nothing to add.\n" + block({"new_points": [], "stances": [], "abstain": " no expertise "}),
        Contract(abstain="no expertise"),
        "Nothing to add.",
    ),
    Case("empty-object-says-nothing", "P\n" + block({}), None, "P", error="none of the keys"),
    Case("only-unknown-keys-says-nothing", block({"summary": "x"}), None,
         error="none of the keys new_points, stances, abstain"),
    Case("null-lists-are-empty", block({"new_points": None, "stances": None}), Contract()),
    Case("evidence-optional-for-points-and-contest",
         block({"new_points": [{"title": "T"}], "stances": [{"id": "I1", "stance": "contest"}]}),
         Contract((NewPoint("T", ""),), (StanceUpdate("I1", "contest", ""),))),
    # -- where the contract is: fences, tags, a bare object ---------------------------------
    Case("untagged-object-accepted", "P\n" + block({"new_points": [COST]}, tag=""), ONE_POINT,
         "P"),
    Case("tag-case-and-tilde-fence", "P\n~~~JSON\n" + json.dumps({"new_points": [COST]}) + "\n~~~",
         ONE_POINT, "P"),
    Case("bare-object-at-the-end", "My case.\n\n" + json.dumps({"new_points": [COST]}) + "\n  ",
         ONE_POINT, "My case.", warning="without a fence"),
    Case("bare-object-pretty-printed",
         "My case.\n" + json.dumps({"new_points": [COST], "stances": []}, indent=2),
         ONE_POINT, "My case.", warning="without a fence"),
    Case("bare-object-without-contract-key-is-prose",
         'Set it like this: {"timeout": 30}', None, 'Set it like this: {"timeout": 30}',
         error="no json block"),
    Case("bare-object-not-at-the-end-is-prose",
         json.dumps({"new_points": [COST]}) + "\nThat is all.", None,
         json.dumps({"new_points": [COST]}) + "\nThat is all.", error="no json block"),
    Case("bare-object-repaired", 'My case.\n{"new_points": [{"title": "Cost", "evidence": "x"},],}',
         ONE_POINT, "My case.", warning="without a fence"),
    Case("no-contract-at-all", "Just prose.\n", None, "Just prose.", error="no json block"),
    Case("last-fence-other-language-with-earlier-json",
         "P\n" + FAKE + "\n```python\nprint(1)\n```", None,
         "P\n" + FAKE + "\n```python\nprint(1)\n```", error="tagged 'python'"),
    Case("code-block-then-bare-contract",
         "P\n```python\nprint(1)\n```\n" + json.dumps({"new_points": [COST]}), ONE_POINT,
         "P\n```python\nprint(1)\n```", warning="without a fence"),
    Case("two-fences-last-valid",
         "Quoting a contract:\n" + FAKE + "\nMine:\n" + block({"new_points": [COST]}),
         ONE_POINT, "Quoting a contract:\n" + FAKE + "\nMine:"),
    Case("fence-then-trailing-line",
         "P\n\n" + block({"new_points": [COST]}) + "\nHope that helps!\n", ONE_POINT,
         "P\n\nHope that helps!"),
    Case("fence-inside-fence-body",
         "P\n````markdown\n```json\n{}\n```\n````\n" + block({"abstain": "x"}),
         Contract(abstain="x"), "P\n````markdown\n```json\n{}\n```\n````"),
    Case("empty-block", "P\n```json\n\n```", None, "P", error="empty"),
    # -- repairs ----------------------------------------------------------------------------
    Case("trailing-commas",
         'P\n```json\n{"new_points": [{"title": "Cost", "evidence": "x",},], "stances": [],}\n```',
         ONE_POINT, "P", warning="repaired"),
    Case("smart-quotes-in-keys",
         'P\n```json\n{“new_points”: [{“title”: "Cost", “evidence”: "x"}]}\n```', ONE_POINT, "P",
         warning="repaired"),
    Case("single-quotes-and-python-literals",
         "P\n```json\n{'new_points': [{'title': 'Cost', 'evidence': 'x'}], 'abstain': None}\n```",
         ONE_POINT, "P", warning="repaired"),
    Case("unclosed-fence-salvaged", "P\n```json\n" + json.dumps({"new_points": [COST]}) + "\n",
         ONE_POINT, "P", warning="never closed"),
    Case("cut-off-json-salvaged", "P\n```json\n" + json.dumps({"new_points": [COST]})[:-1]
         + ', "st\n```', ONE_POINT, "P", warning="repaired"),
    Case("hopeless-json", "P\n" + block("this is not json"), None, "P",
         error="holds no JSON object"),
    Case("non-object", "P\n" + block([1, 2]), None, "P", error="holds no JSON object"),
    Case("deep-nesting-no-crash", "P\n" + block("[" * 100_000), None, "P",
         error="holds no JSON object"),
    # -- item by item -----------------------------------------------------------------------
    Case("valid-point-survives-unknown-id",
         block({"new_points": [COST], "stances": [{"id": "I9", "stance": "contest"}]}),
         ONE_POINT, warning="stances[0] ('I9' is not a known issue id)", kept=(2, 1)),
    Case("unknown-top-key-ignored", block({"verdict": "win", "new_points": [COST]}), ONE_POINT,
         warning="unknown key ignored: verdict"),
    Case("unknown-point-key-ignored", block({"new_points": [COST | {"score": 3}]}), ONE_POINT),
    Case("wrong-stance-value-dropped",
         block({"new_points": [COST], "stances": [{"id": "I1", "stance": "maybe"}]}),
         ONE_POINT, warning="stance must be one of agree/contest/drop"),
    Case("stance-case-and-id-case-forgiven",
         block({"stances": [{"id": "i2", "stance": " Contest ", "evidence": "e"}]}),
         Contract(stances=(StanceUpdate("I2", "contest", "e"),))),
    Case("integer-id-forgiven", block({"stances": [{"id": 1, "stance": "contest"}]}),
         Contract(stances=(StanceUpdate("I1", "contest", ""),))),
    Case("title-not-a-string-dropped",
         block({"new_points": [{"title": ["x"]}, COST]}), ONE_POINT,
         warning="new_points[0] (no title)"),
    Case("points-not-a-list", block({"new_points": "x"}), None,
         error="new_points (a list was expected, not a string)"),
    Case("points-as-strings",
         block({"new_points": ["Cost matters", "So does time"]}), None,
         error="new_points[0] (an object was expected, not a string)", kept=(2, 0)),
    Case("duplicate-id-second-dropped",
         block({"stances": [{"id": "I1", "stance": "contest"},
                            {"id": " I1 ", "stance": "contest"}]}),
         Contract(stances=(StanceUpdate("I1", "contest", ""),)), warning="I1 appears twice"),
    Case("empty-title-dropped", block({"new_points": [{"title": " \t ", "evidence": "e"}]}), None,
         error="no title"),
    Case("over-long-title-dropped-not-truncated",
         block({"new_points": [{"title": "x" * 11}, {"title": "ok"}]}),
         Contract((NewPoint("ok", ""),)), limits=SMALL, warning="title over 10 characters"),
    Case("title-at-cap-after-strip", block({"new_points": [{"title": "  " + "x" * 10 + "  "}]}),
         Contract((NewPoint("x" * 10, ""),)), limits=SMALL),
    Case("over-long-evidence-dropped",
         block({"stances": [{"id": "I1", "stance": "contest", "evidence": "e" * 21}]}), None,
         limits=SMALL, error="evidence over 20 characters"),
    Case("too-many-points-keeps-the-first",
         block({"new_points": [{"title": f"T{i}"} for i in range(3)]}),
         Contract((NewPoint("T0", ""), NewPoint("T1", ""))), limits=SMALL,
         warning="new_points[2] (over the cap of 2 new points)", kept=(3, 2)),
    Case("too-many-stances-keeps-the-first",
         block({"stances": [{"id": i, "stance": "contest"} for i in sorted(IDS)]}),
         Contract(stances=(StanceUpdate("I1", "contest", ""), StanceUpdate("I2", "contest", ""))),
         limits=SMALL, warning="stances[2] (over the cap of 2 stances)"),
    # -- concessions need a reason ----------------------------------------------------------
    Case("agree-without-reason-dropped",
         block({"new_points": [COST], "stances": [{"id": "I1", "stance": "agree"}]}),
         ONE_POINT, warning="agree I1 without a reason"),
    Case("drop-with-blank-reason-dropped",
         block({"stances": [{"id": "I2", "stance": "drop", "evidence": "   "}]}), None,
         error="drop I2 without a reason"),
    Case("agree-with-reason-kept",
         block({"stances": [{"id": "I1", "stance": "agree", "evidence": "the benchmark won"}]}),
         Contract(stances=(StanceUpdate("I1", "agree", "the benchmark won"),))),
    # -- abstain ----------------------------------------------------------------------------
    Case("abstain-next-to-points-keeps-the-points",
         block({"new_points": [COST], "abstain": "busy"}), ONE_POINT,
         warning="abstain (ignored: the block has points or stances)"),
    Case("abstain-next-to-invalid-points-counts",
         block({"new_points": [{"title": ""}], "abstain": "no expertise"}),
         Contract(abstain="no expertise"), warning="new_points[0] (no title)"),
    Case("over-long-abstain", block({"abstain": "a" * 301}), None, error="abstain (over 300"),
    Case("blank-abstain-is-no-abstain", block({"abstain": "   "}), Contract()),
    Case("abstain-false-is-no-abstain", block({"abstain": False}), Contract()),
    # -- hostile text -----------------------------------------------------------------------
    Case("control-chars-stripped",
         "P\n" + block('{"new_points": [{"title": "Co\\u0000st\\u001b[31m", '
                       '"evidence": "x\x07\\r\\nline\\ttab\x1b]0;pwn\x07"}]}'),
         Contract((NewPoint("Cost", "x\nline\ttab"),)), "P"),
    Case("jinja-kept-literally",
         "{{ 7*7 }} stays\n"
         + block({"new_points": [{"title": "{{ 7*7 }}", "evidence": "{% x %}"}]}),
         Contract((NewPoint("{{ 7*7 }}", "{% x %}"),)), "{{ 7*7 }} stays"),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=[c.test_id for c in CASES])
def test_parse(case: Case) -> None:
    got = parse(case.reply, IDS, case.limits)
    assert got.prose == case.prose
    assert got.contract == case.contract
    if case.error is None:
        assert got.error is None
    else:
        assert got.error is not None and case.error in got.error, got.error
    if case.warning is None:
        # A turn with nothing usable is explained by its error (and the one re-ask).
        assert case.error is not None or not got.warnings, got.warnings
    else:
        assert any(case.warning in w for w in got.warnings), got.warnings
    if case.kept is not None:
        assert (got.sent, got.kept) == case.kept


def test_every_dropped_item_is_named_in_one_warning() -> None:
    reply = block(
        {
            "new_points": [COST, {"title": ""}, "loose"],
            "stances": [{"id": "I9", "stance": "contest"}, {"id": "I1", "stance": "agree"}],
        }
    )
    got = parse(reply, IDS)
    assert got.contract == ONE_POINT and (got.sent, got.kept) == (5, 1)
    (dropped,) = [w for w in got.warnings if w.startswith("dropped")]
    for where in ("new_points[1]", "new_points[2]", "stances[0]", "stances[1]"):
        assert where in dropped


def test_nothing_usable_says_exactly_what_was_wrong() -> None:
    got = parse(block({"stances": [{"id": "I7", "stance": "agree", "evidence": "ok"}]}), IDS)
    assert got.contract is None
    assert (
        got.error
        == "nothing in the json block was usable: stances[0] ('I7' is not a known issue id)"
    )


def test_round_trip() -> None:
    data = contract_to_dict(FULL_CONTRACT)
    assert json.loads(json.dumps(data)) == data
    assert contract_from_dict(data) == FULL_CONTRACT
    assert contract_from_dict(contract_to_dict(Contract(abstain="why"))) == Contract(abstain="why")


@pytest.mark.parametrize(
    "bad",
    [None, [], {"stances": [{"id": "I1", "stance": "nope", "evidence": ""}]}, {"x": 1}],
)
def test_from_dict_rejects(bad: object) -> None:
    with pytest.raises(ValueError):
        contract_from_dict(bad)
