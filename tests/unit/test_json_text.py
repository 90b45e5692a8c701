"""state.json's text is exactly what ``json.dumps(doc, ensure_ascii=False, indent=1)``
wrote before it was made faster (collab.json_text), for any JSON value."""

from __future__ import annotations

import json
import random

import pytest

from collab.json_text import dumps_indented
from collab.store import RunDir

LEAVES: list[object] = [
    None, True, False, 0, -7, 2**70, 0.1, -0.0, 1e300, 3.0, float("nan"), float("inf"),
    float("-inf"), "", "plain", '"', "\\", "\n\t\x00\x1f", "é ü 日本", "\u2028", "\ud800",
]  # fmt: skip
KEYS: list[object] = ["", "k", 'q"', "é", 1, 2.5, True, None]  # json makes the rest strings


def random_doc(rng: random.Random, depth: int = 0) -> object:
    """A JSON value: leaves of every kind, lists, tuples, dicts (some with keys json has
    to turn into strings), nested and empty."""
    kind = rng.randrange(5) if depth < 4 else 0
    if kind == 0:
        return rng.choice(LEAVES)
    items = [random_doc(rng, depth + 1) for _ in range(rng.randrange(4))]
    if kind == 1:
        return items
    if kind == 2:
        return tuple(items)
    if kind == 3:
        return {f"key{i}": v for i, v in enumerate(items)}
    return {rng.choice(KEYS): v for v in items}


def test_the_text_is_json_dumps_indent_1_to_the_character() -> None:
    rng = random.Random(17)  # 200 documents, the same ones every run
    for _ in range(200):
        doc = random_doc(rng)
        assert dumps_indented(doc) == json.dumps(doc, ensure_ascii=False, indent=1), doc


class Text(str):
    pass


def test_subclasses_and_nested_empties_are_written_as_json_writes_them() -> None:
    doc = {"a": [], "b": {}, "c": [[], {}], "d": Text("x"), "e": 1.5, "f": [True, None, -0.0]}
    assert dumps_indented(doc) == json.dumps(doc, ensure_ascii=False, indent=1)


def test_what_json_cannot_hold_is_refused_as_json_refuses_it() -> None:
    with pytest.raises(TypeError, match="not JSON serializable"):
        dumps_indented({"a": [object()]})


def test_a_saved_state_reads_back_and_is_indented(hermetic_env: object) -> None:
    run = RunDir("r1")
    run.create()
    run.save({"topic": "Tabs — or spaces?", "turns": [{"round_no": 1, "cost": 0.25}]})
    text = run.state_path.read_text(encoding="utf-8")
    assert text.startswith('{\n "topic": "Tabs — or spaces?",\n "turns": [\n  {\n')
    assert json.loads(text)["turns"] == [{"round_no": 1, "cost": 0.25}]
