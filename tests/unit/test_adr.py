"""collab export --format adr (collab.report.adr): the Judge's sections found by heading,
the MADR document section by section, the next free number in a records directory."""

from __future__ import annotations

import re

import pytest

from collab.config import DebateConfig, Role
from collab.contract import Contract, NewPoint, StanceUpdate
from collab.decision import HumanDecision
from collab.report.adr import adr_markdown, file_name, judge_sections, next_number, withhold_lines
from collab.state import Judge, RunState
from tests.unit.test_state_load import _turn

RID = "20261201-120000-3fa9c1"
JUDGE = """## TL;DR
- sessions win on revocation

## Crux
Can tokens be revoked in time?

## Agreements
- I2

## Open disagreements
- I1 still open

```md
## Crux
not a heading: in a fence
```

## Minority report
Tokens scale without a store.

## Trade-offs
| Option | Gains | Costs | Favoured by |
|---|---|---|---|
| JWT | scale | revocation | A |

## Recommended actions
1. Measure.
"""


def test_judge_sections_by_heading() -> None:
    s = judge_sections(JUDGE)
    assert set(s) == {"tldr", "crux", "agreements", "open", "minority", "tradeoffs", "actions"}
    assert s["crux"] == "Can tokens be revoked in time?"
    assert "not a heading: in a fence" in s["open"]  # the fence stays in its section
    assert s["minority"] == "Tokens scale without a store."


@pytest.mark.parametrize(
    "heading",
    [
        "## Crux",
        "# 2. Crux",
        "### **Crux**",
        "## crux:",
        "## Crux (the one question)",
        "## 争点の核心",
    ],
)
def test_a_crux_heading_in_any_form(heading: str) -> None:
    assert judge_sections(f"{heading}\nthe question\n")["crux"] == "the question"


def test_a_title_above_the_sections_does_not_hide_them() -> None:
    """The Judge check accepts sections under a "# ..." title; the ADR reads them too."""
    s = judge_sections("# Judge summary\n\n## TL;DR\nshort\n\n## Crux\nthe question\n")
    assert s == {"tldr": "short", "crux": "the question"}
    assert judge_sections("# Notes\nx\n## Other\ny\n") == {}  # nothing named: no section


def test_cruxes_is_not_the_crux() -> None:
    assert judge_sections("## Cruxes\nx\n") == {}


def _state(decisions: list[HumanDecision]) -> RunState:
    cfg = DebateConfig(
        topic="JWT or server sessions for the API?",
        role_a=Role("A", "Token Advocate", "argues for JWT"),
        role_b=Role("B", "Session Advocate", "argues for sessions"),
    )
    turns = [
        _turn("A", 1, Contract(new_points=(NewPoint("Stateless", "no store to scale"),))),
        _turn("B", 1, Contract(stances=(StanceUpdate("I1", "contest", "cannot revoke"),),
                               new_points=(NewPoint("Revocation", "logout must be instant"),))),
        _turn("A", 2, Contract(stances=(StanceUpdate("I2", "agree", "a denylist is a store"),))),
    ]  # fmt: skip
    return RunState(
        run_id=RID, config=cfg, status="done", turns=turns,
        judge=Judge(JUDGE, fallback=False, meta=None), decisions=decisions,
        created="2026-12-01T12:00:00+0000",
    )  # fmt: skip


def _sections(md: str) -> dict[str, str]:
    parts = re.split(r"^## (.+)$", md, flags=re.MULTILINE)
    return {parts[i]: parts[i + 1].strip() for i in range(1, len(parts), 2)}


def test_adr_proposed_section_by_section() -> None:
    md = adr_markdown(_state([]))
    head = md.split("\n## ")[0]
    assert head.startswith("# JWT or server sessions for the API?\n")
    assert "- Status: proposed" in head and "- Date: 2026-12-01" in head
    assert f"collab run `{RID}` (`collab show {RID}`)" in head
    s = _sections(md)
    assert list(s) == [
        "Context and Problem Statement", "Decision Drivers", "Considered Options",
        "Pros and Cons of the Options", "Decision Outcome", "Crux", "Minority Report",
        "What Would Change This", "More Information",
    ]  # fmt: skip
    assert s["Context and Problem Statement"].startswith("JWT or server sessions for the API?")
    assert "- I1 Stateless (open, raised by seat A)" in s["Decision Drivers"]
    assert "- I2 Revocation (resolved, raised by seat B)" in s["Decision Drivers"]
    assert "Token Advocate (seat A)" in s["Considered Options"]
    pros_cons = s["Pros and Cons of the Options"]
    a, b = pros_cons.split("### Session Advocate (seat B)")
    assert "- Good, because I1 Stateless: no store to scale" in a
    assert "- Bad, because I1 Stateless: cannot revoke" in a
    assert "Good, because I2" not in a  # A agreed to B's issue: its words are a concession
    assert "- Good, because I2 Revocation: logout must be instant" in b
    assert "- Bad, because I2" not in b  # A agreed to B's issue: a concession, not a con
    assert "No decision recorded yet (status: proposed)" in s["Decision Outcome"]
    assert "sessions win on revocation" in s["Decision Outcome"]
    assert "#### Consequences" not in md and "### Consequences" in s["Decision Outcome"]
    assert "| JWT | scale | revocation | A |" in s["Decision Outcome"]
    assert s["Crux"] == "Can tokens be revoked in time?"
    assert s["Minority Report"] == "Tokens scale without a store."
    assert s["What Would Change This"].startswith("- I1 Stateless is still open")
    assert "I2" not in s["What Would Change This"]
    assert f"`collab show {RID}`" in s["More Information"]
    assert "/tmp" not in md and "runs/" not in md  # never a local path


def test_adr_accepted_with_its_history() -> None:
    first = HumanDecision("choice", "JWT", "bo", "2026-12-02T09:00:00+0000")
    chosen = HumanDecision("choice", "sessions", "ana", "2026-12-03T09:00:00+0000", why="revoke")
    outcome = HumanDecision("outcome", "logout works", "ana", "2026-12-20T09:00:00+0000")
    md = adr_markdown(_state([first, chosen, outcome]))
    s = _sections(md)
    assert "- Status: accepted" in md and "- Date: 2026-12-03" in md and "- Deciders: ana" in md
    assert s["Decision Outcome"].startswith('Chosen option: "sessions", because revoke.')
    assert "How it turned out (2026-12-20): logout works" in s["Decision Outcome"]
    assert "- Superseded choice (2026-12-02, bo): JWT" in s["More Information"]


def test_adr_with_options_lists_them() -> None:
    chosen = HumanDecision("choice", "Sessions", "ana", "2026-12-03T09:00:00+0000", option="O2")
    md = adr_markdown(_state([chosen]), ("JWT", "Sessions"))
    s = _sections(md)
    assert s["Considered Options"] == "- O1 JWT\n- O2 Sessions"
    assert s["Decision Outcome"].startswith('Chosen option: "O2 Sessions".')


def test_numbers_and_names() -> None:
    assert next_number([]) == 1
    assert next_number(["0001-a.md", "0007-b.md", "README.md", "12-x.md"]) == 8
    assert file_name(8, "JWT or sessions? (für die API)") == "0008-jwt-or-sessions-fur-die-api.md"
    assert file_name(1, "データベース") == "0001-decision.md"


@pytest.mark.parametrize(
    "topic",
    [
        "JWT\x1b[31m or sessions\x1b[0m?",  # colours
        "\x1b]0;pwned\x07JWT or sessions?",  # a window title (OSC)
        "JWT\x9b1m or\u202e sessions?",  # an 8-bit CSI, a bidi override
        "JWT\x00\x07 or\r\nsessions?",  # C0 controls
    ],
)
def test_the_file_name_is_made_of_the_cleaned_topic(topic: str) -> None:
    """An escape sequence's printable tail (``[31m``, ``0;pwned``) is not part of the topic
    a person reads (the ADR's title is cleaned): nor of the file's name."""
    assert file_name(3, topic) == "0003-jwt-or-sessions.md"


def test_withheld_lines() -> None:
    assert withhold_lines("a\nb\nc", {2: "looked like a secret: X"}) == (
        "a\n> (a line was withheld here: it looked like a secret: X)\nc"
    )
