"""state.json's text: what ``json.dumps(doc, ensure_ascii=False, indent=1)`` writes,
character for character, made ~4× faster.

With ``indent`` the standard library drops its C encoder for the pure-Python one, whose
nested generators were the largest part of saving a run (it is saved after every step,
whole). Here one recursive function appends to one list; strings go through the same
(C) string encoder ``json`` uses. Anything but the plain JSON types (a subclass, a key
that is not a string, a float that is not finite) is handed to ``json.dumps`` itself, so
the text, and the error for what JSON cannot hold, stay exactly the standard library's.
"""

from __future__ import annotations

import json
from json.encoder import encode_basestring

__all__ = ["dumps_indented"]


def dumps_indented(doc: object) -> str:
    """``json.dumps(doc, ensure_ascii=False, indent=1)``."""
    out: list[str] = []
    try:
        _value(doc, out, "\n")
    except _NotPlain:
        return json.dumps(doc, ensure_ascii=False, indent=1)
    return "".join(out)


class _NotPlain(Exception):
    """A value the fast path does not write the way json would: json writes it all."""


_INF = float("inf")


def _value(o: object, out: list[str], nl: str) -> None:
    """Append ``o`` as JSON; ``nl``: a newline and the indent of the line ``o`` is on."""
    t = type(o)
    if isinstance(o, str) and t is str:
        out.append(encode_basestring(o))
    elif isinstance(o, dict) and t is dict:
        if not o:
            out.append("{}")
            return
        inner = nl + " "
        sep = "{" + inner
        for key, value in o.items():
            if type(key) is not str:
                raise _NotPlain
            head = sep + encode_basestring(key) + ": "
            vt = type(value)
            if vt is str:  # the leaves, inline: most values are
                out.append(head + encode_basestring(value))
            elif value is None:
                out.append(head + "null")
            elif vt is int:
                out.append(head + int.__repr__(value))
            else:
                out.append(head)
                _value(value, out, inner)
            sep = "," + inner
        out.append(nl + "}")
    elif isinstance(o, list | tuple) and (t is list or t is tuple):
        if not o:
            out.append("[]")
            return
        inner = nl + " "
        sep = "[" + inner
        for item in o:
            if type(item) is str:
                out.append(sep + encode_basestring(item))
            else:
                out.append(sep)
                _value(item, out, inner)
            sep = "," + inner
        out.append(nl + "]")
    elif o is None:
        out.append("null")
    elif o is True:
        out.append("true")
    elif o is False:
        out.append("false")
    elif isinstance(o, int) and t is int:
        out.append(int.__repr__(o))
    elif isinstance(o, float) and t is float and -_INF < o < _INF:
        out.append(float.__repr__(o))
    else:
        raise _NotPlain
