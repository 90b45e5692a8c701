"""state.json's text, ``json.dumps(doc, ensure_ascii=False, indent=1)``, without encoding
again the parts of the document that did not change since the last save.

A run is saved after every step with every turn and every round's ledger, and json's
indented encoder is pure Python: encoding the whole growing document each time was most
of a save's cost. The parts :meth:`collab.state.RunState.to_dict` makes from immutable
objects (the config, each turn, each ledger) are the same :class:`FrozenForm` /
:class:`FrozenItems` objects from one save to the next; their text is kept by identity
and spliced into the document with the characters json itself puts around them: json
writes each line break of an indented value as ``"\\n"`` followed by the indent of its
depth, and a JSON string never holds a raw line break, so the text of a value encoded
alone is the text json writes for it at depth ``d`` once ``"\\n"`` becomes ``"\\n"`` and
``d`` spaces. (tests/unit/test_json_text.py: the same text as json.dumps, for any
document and for every save of real runs.) Everything else is json.dumps's own text.
"""

from __future__ import annotations

import json
from typing import Any


class FrozenForm(dict[str, Any]):
    """A dict that is never changed once made (a promise, not enforced): its text may be
    kept by identity between saves."""


class FrozenItems(list[Any]):
    """A list that is never changed once made (as :class:`FrozenForm`)."""


# (id, depth) → (the object, its text at that depth): the texts of one save's frozen parts.
Texts = dict[tuple[int, int], tuple[object, str]]


# What json.dumps(value, ensure_ascii=False, indent=1) builds on each call, built once.
_INDENTED = json.JSONEncoder(ensure_ascii=False, indent=1).encode
# The same text for a float (json's C encoder: no indent, nothing to indent), at a
# fraction of the cost of the pure-Python one that an indent needs; and what both write
# for a string (a key, too), None, a bool and an int, without the call.
_FLAT = json.JSONEncoder(ensure_ascii=False).encode
_string = json.encoder.encode_basestring  # json's own, for ensure_ascii=False


def _dumps(value: object) -> str:
    if type(value) is str:
        return _string(value)
    if type(value) is int:
        return int.__repr__(value)
    if value is None:
        return "null"
    if type(value) is bool:
        return "true" if value else "false"
    return _FLAT(value) if type(value) is float else _INDENTED(value)


def document_text(doc: dict[str, object], kept: Texts) -> str:
    """``json.dumps(doc, ensure_ascii=False, indent=1)``; the text of each frozen part
    (a top-level value, or an item of a top-level list) is taken from ``kept`` when the
    same object is there, and ``kept`` is left holding this document's frozen parts."""
    if not doc or not all(type(key) is str for key in doc):
        kept.clear()
        return _dumps(doc)  # a key json converts (or none at all): json's own text
    old = dict(kept)
    kept.clear()

    def text(value: object, depth: int) -> str:
        if isinstance(value, FrozenForm | FrozenItems):
            slot = (id(value), depth)
            hit = old.get(slot)
            made = (
                hit[1]
                if hit is not None and hit[0] is value
                else _dumps(value).replace("\n", "\n" + " " * depth)
            )
            kept[slot] = (value, made)
            return made
        return _dumps(value).replace("\n", "\n" + " " * depth)

    parts = []
    for key, value in doc.items():
        if type(value) is list and any(isinstance(v, FrozenForm | FrozenItems) for v in value):
            items = ",\n  ".join([text(item, 2) for item in value])
            value_text = "[\n  " + items + "\n ]"
        else:
            value_text = text(value, 1)
        parts.append(_string(key) + ": " + value_text)
    return "{\n " + ",\n ".join(parts) + "\n}"
