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
_STR_KEYS = {str}  # the types of a document's keys that this module writes itself


def _dumps(value: object) -> str:
    try:
        return _indented(value, "\n")
    except _Other:
        return _INDENTED(value) if isinstance(value, _NESTED) else _FLAT(value)


class _Other(Exception):
    """A value :func:`_indented` leaves to json: a key json converts or refuses, a type
    it does not know, or a nesting deep enough to be a cycle."""


_float_repr = float.__repr__
_int_repr = int.__repr__
_INF = float("inf")
_DICTS = (dict, FrozenForm)
_LISTS = (list, FrozenItems, tuple)


def _indented(value: object, pad: str) -> str:
    """``_INDENTED(value)`` with each line break ``pad``, for the values state.json is
    made of (str, int, float, bool, None, and dicts with str keys, lists and tuples of
    them: exactly these types, not subclasses but the frozen forms), built as strings:
    json's indented encoder is pure Python and yields every token through a chain of
    generators (~2.5x the time). Anything else raises :class:`_Other` (json's text
    or json's error, then)."""
    kind = type(value)
    if kind is str:
        return _string(value)  # type: ignore[arg-type]
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if kind is int:
        return _int_repr(value)
    if kind is float:
        if value != value:
            return "NaN"
        if value == _INF:
            return "Infinity"
        return "-Infinity" if value == -_INF else _float_repr(value)
    if len(pad) > 100:  # ~100 levels: json's own, which finds a cycle
        raise _Other
    inner = pad + " "
    if kind in _DICTS:
        if not value:
            return "{}"
        parts = []
        for key, item in value.items():  # type: ignore[attr-defined]
            if type(key) is not str:
                raise _Other
            parts.append(_string(key) + ": " + _indented(item, inner))
        return "{" + inner + ("," + inner).join(parts) + pad + "}"
    if kind in _LISTS:
        if not value:
            return "[]"
        items = [_indented(item, inner) for item in value]  # type: ignore[attr-defined]
        return "[" + inner + ("," + inner).join(items) + pad + "]"
    raise _Other


def document_text(doc: dict[str, object], kept: Texts) -> str:
    """``json.dumps(doc, ensure_ascii=False, indent=1)``; the text of each frozen part (or
    scalar) is taken from ``kept`` when the same object is there at the same depth, or
    made from its text a level up or down (this save's or the last's: the run's ledger
    is its last round's too, one level deeper), and ``kept`` is left holding this
    document's frozen parts (those inside a kept text too). A list holding frozen parts
    (the turns, a ledger's issues) is spliced from the text of each of its items."""
    if not doc or {*map(type, doc)} != _STR_KEYS:
        kept.clear()
        return _dumps(doc)  # a key json converts (or none at all): json's own text
    old = dict(kept)
    kept.clear()

    def keep(parts: tuple[Key, ...]) -> None:
        # the texts spliced into a kept text: the next save may splice them into another
        # (a new ledger of the same issues)
        for part in parts:
            hit = kept[part] = old[part]
            keep(hit[2])

    def text(value: object, depth: int) -> str:
        key = (id(value), depth)
        hit = old.get(key)
        if hit is not None and hit[0] is value:  # (only a frozen part or scalar is kept)
            kept[key] = hit
            keep(hit[2])
            return hit[1]
        frozen = type(value) in _SCALARS or isinstance(value, _FROZEN)
        if frozen:
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
