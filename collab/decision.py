"""What the person deciding recorded about a run: the choice (one of the options the
debate weighed, or free text), why, and later how it turned out. Pure: no I/O.

Decisions are appended, never rewritten: deciding again supersedes the earlier choice,
which is kept (and shown) as history. The current choice is the last ``choice``; the
current outcome the last ``outcome``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal, get_args

from collab.errors import UsageError
from collab.records import record
from collab.text import clean

DecisionKind = Literal["choice", "outcome"]
DECISION_KINDS: tuple[DecisionKind, ...] = get_args(DecisionKind)
MAX_DECISION_CHARS = 2_000
_OPTION_ID = re.compile(r"^[Oo]([1-9][0-9]*)$")


@record
class HumanDecision:
    kind: DecisionKind
    text: str  # the choice as recorded (an option's text when it names one), or the outcome
    by: str  # $USER, the login name, or mcp:<client name>
    when: str  # ISO 8601, local time with its offset
    option: str | None = None  # "O2" when the choice is one of the run's options
    why: str | None = None

    def to_dict(self) -> dict[str, object]:
        return {
            "kind": self.kind, "text": self.text, "option": self.option, "why": self.why,
            "by": self.by, "when": self.when,
        }  # fmt: skip


def option_ids(options: Sequence[str]) -> list[str]:
    return [f"O{n}" for n in range(1, len(options) + 1)]


def user_text(text: str, what: str, limit: int = MAX_DECISION_CHARS) -> str:
    """A person's text as it is kept: stripped, not empty, no NUL, at most ``limit``
    characters, control characters gone (:func:`collab.text.clean`)."""
    out = clean(text.replace("\r\n", "\n")).strip()
    if "\0" in text:
        raise UsageError(f"{what} contains a NUL byte")
    if not out:
        raise UsageError(f"{what} is empty")
    if len(out) > limit:
        raise UsageError(f"{what} is {len(out)} characters; keep it under {limit}")
    return out


def resolve_choice(
    choice: str, options: Sequence[str], name: str = "--choice"
) -> tuple[str | None, str]:
    """``(option id, text)`` for ``--choice`` (``name``, as the surface spells it): with
    options, an id (``O2``, any case) or an option's exact text, else a UsageError listing
    them; without, free text."""
    text = user_text(choice, name)
    if not options:
        return None, text
    ids = option_ids(options)
    m = _OPTION_ID.match(text)
    if m is not None:
        n = int(m.group(1))
        if 1 <= n <= len(options):
            return ids[n - 1], options[n - 1]
    for oid, option in zip(ids, options, strict=True):
        if text == option.strip():
            return oid, option
    listed = "; ".join(f"{i} {o}" for i, o in zip(ids, options, strict=True))
    raise UsageError(f"{name} must name one of the run's options: {listed} (got {text!r})")


def current(
    decisions: Sequence[HumanDecision], kind: DecisionKind = "choice"
) -> HumanDecision | None:
    """The decision of ``kind`` in force: the last one made."""
    for d in reversed(decisions):
        if d.kind == kind:
            return d
    return None


def superseded(decisions: Sequence[HumanDecision]) -> list[HumanDecision]:
    """Every decision a later one of its kind replaced, oldest first."""
    last = {k: current(decisions, k) for k in DECISION_KINDS}
    return [d for d in decisions if last[d.kind] is not d]


def adr_status(decisions: Sequence[HumanDecision]) -> str:
    """MADR's status: proposed until a choice is recorded, accepted after."""
    return "accepted" if current(decisions) is not None else "proposed"
