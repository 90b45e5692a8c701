"""Contract parsing never raises on model text: any JSON value in any field of a
contract-shaped block (hypothesis), fenced, bare or broken."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from collab.contract import TOP_KEYS, contract_from_dict, contract_to_dict
from collab.contract_parse import parse
from tests.unit.strategies import text

JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | text(max_size=30),
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(text(max_size=8), kids, max_size=4),
    max_leaves=12,
)
FIELD = st.one_of(
    JSON,
    st.sampled_from(
        ["agree", "contest", "drop", "I1", "i2", "", " ", "O1", "o2", "BLOCKING", "minor "]
    ),
)


def item(keys: tuple[str, ...]) -> st.SearchStrategy[object]:
    shaped = st.fixed_dictionaries({}, optional={k: FIELD for k in keys})
    extra = st.dictionaries(st.sampled_from([*keys, "other"]), FIELD, max_size=4)
    return st.one_of(shaped, extra, JSON)


CONTRACT = st.fixed_dictionaries(
    {},
    optional={
        "new_points": st.one_of(
            st.lists(item(("title", "evidence", "severity")), max_size=7), JSON
        ),
        "stances": st.one_of(
            st.lists(item(("id", "stance", "evidence", "severity")), max_size=7), JSON
        ),
        "abstain": JSON,
        "favours": FIELD,  # the option a seat favours (a debate with options)
        "other": JSON,
    },
)


def _check(reply: str, option_ids: tuple[str, ...] = ()) -> None:
    parsed = parse(reply, {"I1", "I2"}, option_ids=option_ids)
    assert (parsed.contract is None) == (parsed.error is not None)
    assert 0 <= parsed.kept <= parsed.sent or parsed.sent == 0
    if parsed.contract is not None:
        # what parse keeps, state.json keeps and reads back the same
        assert contract_from_dict(contract_to_dict(parsed.contract)) == parsed.contract
        for p in parsed.contract.new_points:
            assert isinstance(p.title, str) and isinstance(p.evidence, str)
            assert 0 < len(p.title) <= 120 and len(p.evidence) <= 600
        for s in parsed.contract.stances:
            assert isinstance(s.evidence, str) and s.id in {"I1", "I2"}
            assert s.stance in ("agree", "contest", "drop")
            assert s.stance == "contest" or s.evidence  # agree/drop need a reason
        assert parsed.contract.favours in (None, *option_ids)


@settings(max_examples=60, deadline=None)  # a fast unit suite; the database replays finds
@given(CONTRACT, st.booleans(), st.sampled_from([(), ("O1", "O2")]))
def test_parse_never_raises_on_contract_shaped_json(
    data: dict[str, object], fenced: bool, option_ids: tuple[str, ...]
) -> None:
    body = json.dumps(data)
    reply = f"Prose.\n```json\n{body}\n```\n" if fenced else f"Prose.\n{body}"
    _check(reply, option_ids)


@settings(max_examples=40, deadline=None)
@given(JSON, text(max_size=40))
def test_parse_never_raises_on_any_json_or_text(value: object, noise: str) -> None:
    _check(f"```json\n{json.dumps(value)}\n```")
    _check(f"{noise}\n```json\n{json.dumps(value)[:-1]}{noise}")  # cut off, then noise
    _check(f'{noise}{{"{TOP_KEYS[0]}": {json.dumps(value)}}}')
