"""A debate as an Architecture Decision Record in the MADR layout (``collab export ID
--format adr``): title, status (proposed until decided, accepted after), context and
problem statement, decision drivers from the ledger's issues, the considered options
with each one's pros and cons from the seats' evidence, the decision outcome, the
consequences from the Judge's trade-offs, then the Crux, the Minority report and what
would change this (the open issues), and the run id with its ``collab show`` command —
never a local path. Pure: no I/O; the caller scans the text for secrets
(:func:`withhold_lines`) before it lands in a repository.

The Judge's sections are found by :func:`judge_sections` through the one shared list
of required sections (:data:`collab.judge.answer.REQUIRED_SECTIONS`) and its heading rules.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence

from collab.decision import adr_status, current, superseded
from collab.judge.answer import REQUIRED_SECTIONS, Section, code_lines, section_of
from collab.ledger import Issue
from collab.report.markup import demote_headings
from collab.seats import Side
from collab.state import RunState
from collab.text import clean, md_cell, one_line

# The Judge's sections: the shared list of required ones (collab.judge.answer), and those an
# ADR reads besides, named as the Judge prompt asks for them (templates/*/judge.md.j2).
_ADR_SECTIONS: tuple[Section, ...] = (
    *REQUIRED_SECTIONS,
    Section("agreements", {"en": "Agreements", "ja": "合意点"}),
    Section("tradeoffs", {"en": "Trade-offs", "ja": "トレードオフ"}, aliases=("Tradeoffs",)),
    Section("actions", {"en": "Recommended actions", "ja": "推奨アクション"}),
)
_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)[ \t#]*$")
MAX_TITLE = 120


def _key_of(line: str) -> str | None:
    """The section a heading line names (normalised as collab.judge.answer does)."""
    section = section_of(line, _ADR_SECTIONS)
    return None if section is None else section.key


def judge_sections(text: str) -> dict[str, str]:
    """The Judge's answer cut at its top-level headings (those at the level of the
    shallowest heading that names a section, as the HTML's answer_first does), by section
    key; a heading inside a code fence that closes does not count (the Judge check's
    rule: collab.judge.answer.code_lines)."""
    lines = text.replace("\r\n", "\n").split("\n")
    found: list[tuple[int, int, str]] = []  # (line, level, heading)
    code = code_lines(lines)
    for n, line in enumerate(lines):
        if n not in code and (m := _HEADING.match(line)):
            found.append((n, len(m.group(1)), line))
    if not found:
        return {}
    # The level of the shallowest heading that names a section (a title above them all,
    # "# Judge summary", is not where the answer is cut), else the shallowest used.
    named = [level for _, level, h in found if _key_of(h) is not None]
    top = min(named or [level for _, level, _ in found])
    cuts = [(n, h) for n, level, h in found if level == top]
    out: dict[str, str] = {}
    for i, (n, heading) in enumerate(cuts):
        end = cuts[i + 1][0] if i + 1 < len(cuts) else len(lines)
        key = _key_of(heading)
        if key is not None and key not in out:
            out[key] = "\n".join(lines[n + 1 : end]).strip()
    return out


def _section(body: str | None, missing: str) -> list[str]:
    if not body:
        return [missing, ""]
    return [demote_headings(demote_headings(body)), ""]


def _line(i: Issue, side: Side) -> str:
    return f"{i.id} {md_cell(i.title, 160)}: {md_cell(i.evidence(side), 400)}"


def _conceded(i: Issue, side: Side) -> bool:
    """Did ``side`` give the issue up: agree to the other seat's issue, or concede its own
    (its words there are its reason to, neither a pro nor a con)?"""
    if i.raised_by == side:
        return i.resolution == "conceded"
    return i.resolution == "agree"


def _position(state: RunState, side: Side) -> list[str]:
    """A seat's position: its pros are its own evidence, its cons the other seat's, on
    every issue but those a seat conceded (its words there are its reason to agree)."""
    role = state.config.role(side)
    others = [s for s in state.config.seats if s != side]
    issues = state.ledger().issues
    pros = [_line(i, side) for i in issues if i.evidence(side).strip() and not _conceded(i, side)]
    cons = [
        _line(i, other)
        for other in others
        for i in issues
        if i.evidence(other).strip() and not _conceded(i, other)
    ]
    out = [f"### {md_cell(role.name, 100)} (seat {side})", "", md_cell(role.description, 600), ""]
    out += [f"- Good, because {p}" for p in pros] or ["- Good: no evidence recorded."]
    out += [f"- Bad, because {c}" for c in cons] or ["- Bad: no evidence recorded."]
    return [*out, ""]


def _slug_title(topic: str) -> str:
    return one_line(topic, MAX_TITLE)


def adr_markdown(state: RunState, options: Sequence[str] = ()) -> str:
    """The ADR of ``state``; ``options`` are the ones the debate weighed (O1…), if any."""
    cfg = state.config
    options = options or cfg.options
    rid = state.run_id
    judge = judge_sections(state.judge.text) if state.judge is not None else {}
    choice = current(state.decisions)
    outcome = current(state.decisions, "outcome")
    issues = state.ledger().issues
    open_issues = [i for i in issues if i.status == "open"]
    date = (choice.when if choice else state.created)[:10]
    out = [
        f"# {md_cell(_slug_title(cfg.topic))}",
        "",
        f"- Status: {adr_status(state.decisions)}",
        f"- Date: {date}",
    ]
    if choice is not None:
        out.append(f"- Deciders: {md_cell(choice.by, 100)}")
    out += [f"- Debate: collab run `{rid}` (`collab show {rid}`)", ""]

    out += ["## Context and Problem Statement", "", cfg.topic.strip(), ""]
    names = [md_cell(r.name, 100) for r in cfg.roles]
    out.append(
        f"Debated by {', '.join(names[:-1])} and {names[-1]} over "
        f"{state.rounds_done()} round(s); the ledger's verdict: {state.verdict()}."
    )
    out.append("")

    out += ["## Decision Drivers", ""]
    out += [
        f"- {i.id} {md_cell(i.title, 200)} ({i.status}, raised by seat {i.raised_by})"
        for i in issues
    ] or ["- No issue was recorded in the debate's ledger."]
    out.append("")

    out += ["## Considered Options", ""]
    if options:
        out += [f"- O{n} {md_cell(o, 300)}" for n, o in enumerate(options, 1)]
    else:
        out += [f"- The position of {md_cell(r.name, 100)} (seat {r.side})" for r in cfg.roles]
    out += ["", "## Pros and Cons of the Options", ""]
    for seat in cfg.seats:
        out += _position(state, seat)

    out += ["## Decision Outcome", ""]
    if choice is None:
        out += [
            "No decision recorded yet (status: proposed). Record it with "
            f'`collab decide {rid} --choice "…" --why "…"`.',
            "",
        ]
    else:
        label = f"{choice.option} {md_cell(choice.text)}" if choice.option else md_cell(choice.text)
        why = f", because {md_cell(choice.why)}" if choice.why else ""
        out += [f'Chosen option: "{label}"{why}.', ""]
        if outcome is not None:
            out += [f"How it turned out ({outcome.when[:10]}): {md_cell(outcome.text)}", ""]
    if judge.get("tldr"):
        out += ["Summary of the debate (the Judge's TL;DR):", "", *_section(judge["tldr"], "")]

    out += ["### Consequences", ""]
    out += _section(judge.get("tradeoffs"), "The Judge named no trade-offs.")

    out += ["## Crux", ""]
    out += _section(judge.get("crux"), "The Judge named no crux.")
    out += ["## Minority Report", ""]
    out += _section(judge.get("minority"), "The Judge wrote no minority report.")

    out += ["## What Would Change This", ""]
    out += [
        f"- {i.id} {md_cell(i.title, 200)} is still open — "
        + "; ".join(f"seat {s}: {md_cell(i.evidence(s), 300) or '—'}" for s in state.config.seats)
        for i in open_issues
    ] or ["- Nothing was left open in the debate's ledger."]
    out.append("")

    out += ["## More Information", ""]
    out.append(f"- The debate: collab run `{rid}` — read it with `collab show {rid}`.")
    for d in superseded(state.decisions):
        out.append(f"- Superseded {d.kind} ({d.when[:10]}, {md_cell(d.by, 100)}): "
                   f"{md_cell(d.text)}")  # fmt: skip
    return clean("\n".join(out).rstrip() + "\n")


def withhold_lines(text: str, lines: dict[int, str]) -> str:
    """``text`` with each line in ``lines`` (1-based → what it looked like) replaced by a
    note saying it was withheld."""
    out = text.split("\n")
    for n, kind in sorted(lines.items()):
        if 1 <= n <= len(out):
            out[n - 1] = f"> (a line was withheld here: it {kind})"
    return "\n".join(out)


_FREE = re.compile(r"^([0-9]{4})-")


def next_number(names: Iterable[str]) -> int:
    """The next free ADR number among the file names in a directory (``0007-x.md`` → 8)."""
    taken = [int(m.group(1)) for n in names if (m := _FREE.match(n))]
    return max(taken, default=0) + 1


def file_name(number: int, topic: str) -> str:
    """``0007-jwt-vs-sessions.md``: the number, then the first words of the topic as
    :func:`clean` leaves it (an escape sequence's tail, ``[31m``, is no word), in ASCII."""
    ascii_text = unicodedata.normalize("NFKD", clean(topic)).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")[:50].rstrip("-")
    return f"{number:04d}-{slug or 'decision'}.md"
