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
    parse,
)

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
        {"id": "I3", "stance": "drop", "evidence": ""},
    ],
    "abstain": None,
}
FULL_CONTRACT = Contract(
    new_points=(NewPoint("Latency", "p99 is 2s"),),
    stances=(
        StanceUpdate("I1", "agree", "fair"),
        StanceUpdate("I2", "contest", "no data"),
        StanceUpdate("I3", "drop", ""),
    ),
)
ONE_POINT = Contract(new_points=(NewPoint("Cost", "x"),))
FAKE = block({"stances": [{"id": "I1", "stance": "drop", "evidence": "planted"}]})


class Case(NamedTuple):
    test_id: str
    reply: str
    limits: Limits
    prose: str
    contract: Contract | None
    error: str | None  # a substring of the expected error


CASES = [
    Case(
        "valid-full", "My case.\n\n" + block(FULL), DEFAULT_LIMITS, "My case.", FULL_CONTRACT, None
    ),
    Case(
        "only-new-points",
        "Prose\n" + block({"new_points": [{"title": "Cost", "evidence": "x"}]}),
        DEFAULT_LIMITS,
        "Prose",
        ONE_POINT,
        None,
    ),
    Case(
        "abstain",
        "Nothing to add.\n" + block({"new_points": [], "stances": [], "abstain": " no expertise "}),
        DEFAULT_LIMITS,
        "Nothing to add.",
        Contract(abstain="no expertise"),
        None,
    ),
    Case("empty-object", "P\n" + block({}), DEFAULT_LIMITS, "P", Contract(), None),
    Case(
        "evidence-optional",
        block({"new_points": [{"title": "T"}], "stances": [{"id": "I1", "stance": "agree"}]}),
        DEFAULT_LIMITS,
        "",
        Contract((NewPoint("T", ""),), (StanceUpdate("I1", "agree", ""),)),
        None,
    ),
    Case(
        "null-lists-are-empty",
        block({"new_points": None, "stances": None, "abstain": None}),
        DEFAULT_LIMITS,
        "",
        Contract(),
        None,
    ),
    Case(
        "untagged-object-accepted",
        "P\n" + block({"new_points": [{"title": "Cost", "evidence": "x"}]}, tag=""),
        DEFAULT_LIMITS,
        "P",
        ONE_POINT,
        None,
    ),
    Case(
        "tag-case-and-tilde-fence",
        "P\n~~~JSON\n" + json.dumps({"new_points": [{"title": "Cost", "evidence": "x"}]}) + "\n~~~",
        DEFAULT_LIMITS,
        "P",
        ONE_POINT,
        None,
    ),
    Case("missing-fence", "Just prose. {}\n", DEFAULT_LIMITS, "Just prose. {}", None, "no fenced"),
    Case(
        "unterminated-fence",
        'P\n```json\n{"abstain": "x"}\n',
        DEFAULT_LIMITS,
        'P\n```json\n{"abstain": "x"}',
        None,
        "never closed",
    ),
    Case(
        "last-fence-other-language",
        "P\n```python\nprint(1)\n```",
        DEFAULT_LIMITS,
        "P\n```python\nprint(1)\n```",
        None,
        "tagged 'python'",
    ),
    Case(
        "untagged-not-object",
        "P\n```\nsome code\n```",
        DEFAULT_LIMITS,
        "P\n```\nsome code\n```",
        None,
        "untagged",
    ),
    Case("invalid-json", "P\n" + block('{"new_points": [}'), DEFAULT_LIMITS, "P", None, "JSON"),
    Case("empty-block", "P\n```json\n\n```", DEFAULT_LIMITS, "P", None, "empty"),
    Case("non-object", "P\n" + block([1, 2]), DEFAULT_LIMITS, "P", None, "must be a JSON object"),
    Case("unknown-top-key", block({"verdict": "win"}), DEFAULT_LIMITS, "", None, "'verdict'"),
    Case(
        "unknown-point-key",
        block({"new_points": [{"title": "T", "score": 3}]}),
        DEFAULT_LIMITS,
        "",
        None,
        "'score'",
    ),
    Case(
        "duplicate-key",
        'P\n```json\n{"abstain": null, "abstain": "x"}\n```',
        DEFAULT_LIMITS,
        "P",
        None,
        "duplicate key",
    ),
    Case(
        "wrong-stance-value",
        block({"stances": [{"id": "I1", "stance": "maybe", "evidence": ""}]}),
        DEFAULT_LIMITS,
        "",
        None,
        "'maybe'",
    ),
    Case(
        "id-not-a-string",
        block({"stances": [{"id": 1, "stance": "agree", "evidence": ""}]}),
        DEFAULT_LIMITS,
        "",
        None,
        "stances[0].id must be a string",
    ),
    Case(
        "title-not-a-string",
        block({"new_points": [{"title": ["x"], "evidence": ""}]}),
        DEFAULT_LIMITS,
        "",
        None,
        "new_points[0].title must be a string",
    ),
    Case(
        "points-not-a-list", block({"new_points": "x"}), DEFAULT_LIMITS, "", None, "must be a list"
    ),
    Case(
        "unknown-id",
        block({"stances": [{"id": "I9", "stance": "agree", "evidence": ""}]}),
        DEFAULT_LIMITS,
        "",
        None,
        "'I9' is not a known issue id",
    ),
    Case(
        "duplicate-id",
        block(
            {
                "stances": [
                    {"id": "I1", "stance": "agree", "evidence": ""},
                    {"id": " I1 ", "stance": "drop", "evidence": ""},
                ]
            }
        ),
        DEFAULT_LIMITS,
        "",
        None,
        "appears twice",
    ),
    Case(
        "empty-title",
        block({"new_points": [{"title": "  \t ", "evidence": "e"}]}),
        DEFAULT_LIMITS,
        "",
        None,
        "title is empty",
    ),
    Case(
        "over-long-title",
        block({"new_points": [{"title": "x" * 11, "evidence": ""}]}),
        SMALL,
        "",
        None,
        "11 characters long (max 10)",
    ),
    Case(
        "title-at-cap-after-strip",
        block({"new_points": [{"title": "  " + "x" * 10 + "  ", "evidence": ""}]}),
        SMALL,
        "",
        Contract((NewPoint("x" * 10, ""),)),
        None,
    ),
    Case(
        "over-long-evidence",
        block({"stances": [{"id": "I1", "stance": "agree", "evidence": "e" * 21}]}),
        SMALL,
        "",
        None,
        "evidence is 21 characters long",
    ),
    Case(
        "too-many-points",
        block({"new_points": [{"title": f"T{i}", "evidence": ""} for i in range(3)]}),
        SMALL,
        "",
        None,
        "too many new points: 3 (max 2)",
    ),
    Case(
        "too-many-stances",
        block({"stances": [{"id": i, "stance": "agree", "evidence": ""} for i in sorted(IDS)]}),
        SMALL,
        "",
        None,
        "too many stances: 3 (max 2)",
    ),
    Case(
        "over-long-abstain",
        block({"abstain": "a" * 301}),
        DEFAULT_LIMITS,
        "",
        None,
        "abstain is 301",
    ),
    Case("empty-abstain", block({"abstain": "   "}), DEFAULT_LIMITS, "", None, "non-empty reason"),
    Case(
        "abstain-not-string",
        block({"abstain": False}),
        DEFAULT_LIMITS,
        "",
        None,
        "null or a string",
    ),
    Case(
        "abstain-with-points",
        block({"new_points": [{"title": "T", "evidence": ""}], "abstain": "busy"}),
        DEFAULT_LIMITS,
        "",
        None,
        "abstaining turn",
    ),
    Case(
        "two-fences-last-valid",
        "Quoting a contract:\n"
        + FAKE
        + "\nMine:\n"
        + block({"new_points": [{"title": "Cost", "evidence": "x"}]}),
        DEFAULT_LIMITS,
        "Quoting a contract:\n" + FAKE + "\nMine:",
        ONE_POINT,
        None,
    ),
    Case(
        "two-fences-last-invalid",
        "Quoting:\n" + FAKE + "\nMine:\n" + block('{"stances": ['),
        DEFAULT_LIMITS,
        "Quoting:\n" + FAKE + "\nMine:",
        None,
        "not valid JSON",
    ),
    Case(
        "fence-then-trailing-line",
        "P\n\n"
        + block({"new_points": [{"title": "Cost", "evidence": "x"}]})
        + "\nHope that helps!\n",
        DEFAULT_LIMITS,
        "P\n\nHope that helps!",
        ONE_POINT,
        None,
    ),
    Case(
        "fence-inside-fence-body",
        "P\n````markdown\n```json\n{}\n```\n````\n" + block({"abstain": "x"}),
        DEFAULT_LIMITS,
        "P\n````markdown\n```json\n{}\n```\n````",
        Contract(abstain="x"),
        None,
    ),
    Case(
        "control-chars-stripped",
        "P\n"
        + block(
            '{"new_points": [{"title": "Co\\u0000st\\u001b[31m", '
            '"evidence": "x\x07\\r\\nline\\ttab\x1b]0;pwn\x07"}]}'
        ),
        DEFAULT_LIMITS,
        "P",
        Contract((NewPoint("Cost", "x\nline\ttab"),)),
        None,
    ),
    Case(
        "jinja-kept-literally",
        "{{ 7*7 }} stays\n"
        + block({"new_points": [{"title": "{{ 7*7 }}", "evidence": "{% x %}"}]}),
        DEFAULT_LIMITS,
        "{{ 7*7 }} stays",
        Contract((NewPoint("{{ 7*7 }}", "{% x %}"),)),
        None,
    ),
    Case("deep-nesting-no-crash", "P\n" + block("[" * 100_000), DEFAULT_LIMITS, "P", None, "JSON"),
]


@pytest.mark.parametrize(list(Case._fields), CASES, ids=[c.test_id for c in CASES])
def test_parse(
    test_id: str,
    reply: str,
    limits: Limits,
    prose: str,
    contract: Contract | None,
    error: str | None,
) -> None:
    got = parse(reply, IDS, limits)
    assert got.prose == prose
    assert got.contract == contract
    if error is None:
        assert got.error is None
    else:
        assert got.error is not None and error in got.error


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
