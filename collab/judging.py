"""What collab does around the Judge's answer: the labels it reads the sides by, and the
checks made on what it wrote. Pure: no I/O.

The Judge writes about "Position 1/2" (``collab.labels``); its text is kept as written
(``raw``) for an audit, and what collab shows and saves has the role names back. Every
open issue must be named in the summary: an id the Judge skipped gets a line appended.
"""

from __future__ import annotations

import re

from collab.labels import Labels, first_side
from collab.lang import Lang
from collab.ledger import Ledger
from collab.seats import Side

_SKIPPED = {
    "en": "> Open, but not covered by the Judge's summary: {items}.",
    "ja": "> 審判のまとめが触れなかった未解決の論点: {items}。",
}


def labels_for(run_id: str, first: Side | None, name_a: str, name_b: str) -> Labels:
    """The run's labels: the recorded order, else the one drawn from its id."""
    return Labels(first=first or first_side(run_id), name_a=name_a, name_b=name_b)


def skipped_open_ids(text: str, ledger: Ledger) -> list[str]:
    mentioned = set(re.findall(r"(?<![A-Za-z0-9])I[1-9][0-9]*(?![0-9])", text))
    return [i.id for i in ledger.issues if i.status == "open" and i.id not in mentioned]


def finish(raw: str, labels: Labels, ledger: Ledger, lang: Lang) -> str:
    """The Judge's text as collab shows and saves it: role names back in, and a line for
    every open issue it did not mention."""
    text = labels.reveal(raw).rstrip()
    skipped = skipped_open_ids(text, ledger)
    if skipped:
        titles = {i.id: i.title for i in ledger.issues}
        items = ", ".join(f"{i} ({titles[i]})" for i in skipped)
        text += "\n\n" + _SKIPPED[lang].format(items=items)
    return text
