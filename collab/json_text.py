"""state.json's text, ``json.dumps(doc, ensure_ascii=False, indent=1)``, without encoding
again the parts of the document that did not change since the last save.

A run is saved after every step with every turn and every round's ledger, and json's
indented encoder is pure Python: encoding the whole growing document each time was most
of a save's cost. The parts :meth:`collab.state.RunState.to_dict` makes from immutable
objects (the config, each turn, each ledger and issue, the plan) are the same
:class:`FrozenForm` / :class:`FrozenItems` objects from one save to the next; their text
is kept by identity and spliced into the document with the characters json itself puts
around them: json writes each line break of an indented value as ``"\\n"`` followed by
the indent of its depth, and a JSON string never holds a raw line break, so the text of
a value encoded alone is the text json writes for it at depth ``d`` once ``"\\n"``
becomes ``"\\n"`` and ``d`` spaces. (tests/unit/test_json_text.py: the same text as
json.dumps, for any document and for every save of real runs.) Everything else is
json.dumps's own text.
"""

from __future__ import annotations

import json
from typing import Any


class FrozenForm(dict[str, Any]):
    """A dict that is never changed once made (a promise, not enforced): its text may be
    kept by identity between saves."""


class FrozenItems(list[Any]):
    """A list that is never changed once made (as :class:`FrozenForm`)."""


# (id, depth) → (the object, its text at that depth, the keys of the frozen parts spliced
# into that text): the texts of one save's frozen parts.
Key = tuple[int, int]
Texts = dict[Key, tuple[object, str, tuple[Key, ...]]]


# What json.dumps(value, ensure_ascii=False, indent=1) builds on each call, built once.
_INDENTED = json.JSONEncoder(ensure_ascii=False, indent=1).encode
# The same for a value with nothing to indent (a string, number, bool or None): json's C
# encoder writes it as the pure-Python one an indent needs would, for a fraction of it.
_FLAT = json.JSONEncoder(ensure_ascii=False).encode
_string = json.encoder.encode_basestring  # json's own, for ensure_ascii=False (the keys)


_NESTED = (list, tuple, dict)  # what json indents (a tuple: ``A | B`` is made on every call)
_FROZEN = (FrozenForm, FrozenItems)
# Kept by identity too: a value of these types never changes (the run's id, its status,
# None: ~20 of a save's values, each a call of json's encoder).
_SCALARS = frozenset((str, int, float, bool, type(None)))


def _dumps(value: object) -> str:
    return _INDENTED(value) if isinstance(value, _NESTED) else _FLAT(value)


def document_text(doc: dict[str, object], kept: Texts) -> str:
    """``json.dumps(doc, ensure_ascii=False, indent=1)``; the text of each frozen part (or
    scalar) is taken from ``kept`` when the same object is there at the same depth, or
    made from its text a level up or down (this save's or the last's: the run's ledger
    is its last round's too, one level deeper), and ``kept`` is left holding this
    document's frozen parts (those inside a kept text too). A list holding frozen parts
    (the turns, a ledger's issues) is spliced from the text of each of its items."""
    if not doc or not all(type(key) is str for key in doc):
        kept.clear()
        return _dumps(doc)  # a key json converts (or none at all): json's own text
    old = dict(kept)
    kept.clear()

    def keep(key: Key, hit: tuple[object, str, tuple[Key, ...]]) -> None:
        # a kept text, with the texts spliced into it: the next save may splice them
        # into another (a new ledger of the same issues)
        kept[key] = hit
        for part in hit[2]:
            keep(part, old[part])

    def text(value: object, depth: int) -> str:
        frozen = type(value) in _SCALARS or isinstance(value, _FROZEN)
        if frozen:
            hit = old.get((id(value), depth))
            if hit is not None and hit[0] is value:
                keep((id(value), depth), hit)
                return hit[1]
            for near in (depth - 1, depth + 1):  # the same object a level up or down
                hit = kept.get((id(value), near)) or old.get((id(value), near))
                if hit is not None and hit[0] is value:
                    made = hit[1].replace("\n" + " " * near, "\n" + " " * depth)
                    kept[id(value), depth] = (value, made, ())
                    return made
        parts: tuple[Key, ...] = ()
        if isinstance(value, list) and any(isinstance(v, _FROZEN) for v in value):
            pad = "\n" + " " * (depth + 1)
            items = ("," + pad).join([text(item, depth + 1) for item in value])
            made = "[" + pad + items + "\n" + " " * depth + "]"
            parts = tuple((id(v), depth + 1) for v in value if isinstance(v, _FROZEN))
        else:
            made = _dumps(value).replace("\n", "\n" + " " * depth)
        if frozen:
            kept[id(value), depth] = (value, made, parts)
        return made

    parts = [_string(key) + ": " + text(value, 1) for key, value in doc.items()]
    return "{\n " + ",\n ".join(parts) + "\n}"
