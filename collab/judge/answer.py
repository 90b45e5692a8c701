"""What collab does around the Judge's answer: the labels it reads the sides by, and the
checks made on what it wrote. Pure: no I/O.

The Judge writes about "Position 1/2" (``collab.judge.labels``); its text is kept as written
(``raw``) for an audit, and what collab shows and saves has the role names back. Every
open issue must be named in the summary: an id the Judge skipped gets a line appended.

The sections a Judge's answer must have are one list, :data:`REQUIRED_SECTIONS`, read
by everything that checks them: an answer missing any is a failed Judge (one retry
naming what was missing, then the ledger summary). A heading counts at any level
(``#`` to ``######``), numbered or not, in any case, in English or Japanese.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, replace
from functools import cache

from collab.agents.decoding import sum_usage
from collab.judge.labels import Labels, first_side, judge_order
from collab.lang import Lang
from collab.ledger import Ledger
from collab.seats import SEATS, Seat, Side
from collab.turns import AgentMeta

_SKIPPED = {
    "en": "> Open, but not covered by the Judge's summary: {items}.",
    "ja": "> 審判のまとめが触れなかった未解決の論点: {items}。",
}


@dataclass(frozen=True)
class Section:
    key: str
    headings: dict[Lang, str]  # as the Judge prompt asks for it, per language
    only_if_open: bool = False  # required only while an issue is open
    aliases: tuple[str, ...] = ()

    def names(self) -> tuple[str, ...]:
        return tuple(_name(h) for h in (*self.headings.values(), *self.aliases))


REQUIRED_SECTIONS: tuple[Section, ...] = (
    Section("tldr", {"en": "TL;DR", "ja": "TL;DR"}, aliases=("TLDR", "TL DR", "要約")),
    Section("crux", {"en": "Crux", "ja": "争点の核心"}, aliases=("The crux",)),
    Section("minority", {"en": "Minority report", "ja": "少数意見"}),
    Section(
        "open",
        {"en": "Open disagreements", "ja": "未解決の対立点"},
        only_if_open=True,
    ),
)

_HEADING = re.compile(r"^ {0,3}#{1,6}[ \t]+(?P<text>.*?)[ \t#]*$")
_FENCE = re.compile(r"^ {0,3}(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
# "1.", "2)", "iv." or "第1章"-free numbering before a heading's words.
_NUMBER = re.compile(r"^(?:[0-9]+|[ivx]+)[.):．、]\s*|^[0-9]+\s+")
_RETRY = {
    "en": (
        "\n\nYour previous answer was missing the required section(s): {names}. Write the "
        "whole summary again with every section asked for above, each under its own "
        "Markdown heading exactly as named."
    ),
    "ja": (
        "\n\n前回の回答には必須のセクションがありませんでした: {names}。上で求めたすべての"
        "セクションを、指定どおりの Markdown 見出しを付けて、まとめ全体をもう一度書いてください。"
    ),
}


def _norm(heading: str) -> str:
    text = unicodedata.normalize("NFKC", heading).strip().strip("*_`").strip()
    text = _NUMBER.sub("", text.lower()).strip()
    return " ".join(text.rstrip(":：").split())


@cache
def _name(heading: str) -> str:
    """A section's own heading or alias, normalised once a process (:func:`section_of`
    asks for every section's names on each heading line it reads)."""
    return _norm(heading)


def headings(text: str) -> list[str]:
    """Every ATX heading's words in ``text``, normalised (level, numbering, case gone);
    a line inside a fenced code block that closes is code, not a heading."""
    lines = text.splitlines()
    code = code_lines(lines)
    return [
        _norm(m["text"])
        for n, line in enumerate(lines)
        if n not in code and (m := _HEADING.match(line))
    ]


def code_lines(lines: list[str]) -> set[int]:
    """The lines of each fenced code block that closes (with its own character, at least
    as long, nothing after it); a fence never closed hides nothing (a stray one in prose
    does not swallow the sections after it)."""
    code: set[int] = set()
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if m and not (m["fence"][0] == "`" and "`" in m["info"]):
            char, size = m["fence"][0], len(m["fence"])
            for j in range(i + 1, len(lines)):
                c = _FENCE.match(lines[j])
                if (
                    c
                    and c["fence"][0] == char
                    and len(c["fence"]) >= size
                    and not c["info"].strip()
                ):
                    code.update(range(i, j + 1))
                    i = j
                    break
        i += 1
    return code


def missing_sections(text: str, ledger: Ledger) -> tuple[Section, ...]:
    """The required sections ``text`` lacks (Open disagreements only while one is open)."""
    found = headings(text)
    any_open = any(i.status == "open" for i in ledger.issues)
    return tuple(
        section
        for section in REQUIRED_SECTIONS
        if (any_open or not section.only_if_open)
        and not any(_names_it(h, name) for h in found for name in section.names())
    )


def section_of(line: str, sections: tuple[Section, ...] = REQUIRED_SECTIONS) -> Section | None:
    """The section of ``sections`` a heading line names (by the rules above), or None."""
    found = headings(line)
    if not found:
        return None
    return next((s for s in sections if any(_names_it(found[0], name) for name in s.names())), None)


def _names_it(heading: str, name: str) -> bool:
    """ "minority report (position 2)" names "minority report"; "cruxes" does not."""
    rest = heading[len(name) :] if heading.startswith(name) else None
    return rest is not None and not (rest[:1].isascii() and rest[:1].isalnum())


def section_names(sections: tuple[Section, ...], lang: Lang) -> str:
    return ", ".join(s.headings[lang] for s in sections)


def retry_note(missing: tuple[Section, ...], lang: Lang) -> str:
    """What is added to the Judge prompt for its one retry: the sections it left out."""
    return _RETRY[lang].format(names=section_names(missing, lang))


def merged_meta(first: AgentMeta, second: AgentMeta) -> AgentMeta:
    """The Judge's two calls (the answer and its one retry) as one, so none of the cost
    is lost: durations, attempts, tokens and cost add up; the rest is the retry's."""
    costs = [c for c in (first.cost_usd, second.cost_usd) if c is not None]
    usages = [u for u in (first.usage, second.usage) if u is not None]
    return replace(
        second,
        duration=round(first.duration + second.duration, 3),
        attempts=first.attempts + second.attempts,
        usage=sum_usage(usages),
        cost_usd=round(sum(costs), 6) if costs else None,
    )


def labels_for(run_id: str, first: Side | None, name_a: str, name_b: str) -> Labels:
    """The run's labels: the recorded order, else the one drawn from its id."""
    return Labels(first=first or first_side(run_id), name_a=name_a, name_b=name_b)


def seat_labels(
    run_id: str, recorded: tuple[Seat, ...], first: Side | None, names: tuple[str, ...]
) -> Labels:
    """The labels of a debate of any seat count (``names`` in seat order): the recorded
    Position order, else the recorded Position 1 (runs before panels) with the others in
    seat order, else the order drawn from the id."""
    seats = SEATS[: len(names)]
    order = recorded or (
        (first, *[s for s in seats if s != first]) if first else judge_order(run_id, seats)
    )
    return Labels(order[0], names[0], names[1], more_names=names[2:], positions=order)


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
