"""Three scripted debates for ``--depth`` (issue 21), as in-process runner handlers.

- ``easy``: each side opens with a point, and agrees with the other's once it has seen it;
- ``lingering``: one issue stays contested with the same evidence round after round (no
  new point after round 1);
- ``contested``: every round brings a new contest with new evidence.

Each reply's prose is as long as the prompt allows (``Keep the prose under N
characters``, read from the prompt): a cross-check turn writes a short reply because it
is asked to, as an agent would. Used by tests/unit/test_depth.py and ``python -m bench
--only depth``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence

from collab.runners.base import TurnJob

# Every section a Judge's answer must have (collab.judging.REQUIRED_SECTIONS).
JUDGE = (
    "## TL;DR\nThe Judge's summary.\n\n## Crux\nWhat the question turns on.\n\n"
    "## Open disagreements\n- none left unsaid\n\n## Minority report\nThe other case."
)
_LIMIT = re.compile(r"Keep the prose under (\d+) characters")


def reply(
    job: TurnJob,
    new: Sequence[str] = (),
    stances: Sequence[tuple[str, str, str]] = (),
) -> str:
    """Prose filling 90 % of the prompt's limit, then the contract block."""
    m = _LIMIT.search(job.prompt)
    n = int(int(m.group(1)) * 0.9) if m else 200
    prose = ("An argument with its reasons. " * (n // 30 + 1))[:n].strip()
    doc = {
        "new_points": [{"title": t, "evidence": f"evidence for {t}"} for t in new],
        "stances": [{"id": i, "stance": s, "evidence": e} for i, s, e in stances],
        "abstain": None,
    }
    return f"{prose}\n\n```json\n{json.dumps(doc)}\n```\n"


def _turn(job: TurnJob) -> tuple[int, str]:
    step = job.step.split("-")
    return int(step[0][1:]), step[1]


def easy(job: TurnJob) -> str:
    if job.step.startswith("judge"):
        return JUDGE
    r, side = _turn(job)
    if r == 1:
        return reply(job, ["tabs read faster"] if side == "A" else ["spaces align"])
    other = "I2" if side == "A" else "I1"  # A raised I1 and B I2 (A's are numbered first)
    return reply(job, [], [(other, "agree", f"{side} is convinced by the example")])


def lingering(job: TurnJob) -> str:
    if job.step.startswith("judge"):
        return JUDGE
    r, side = _turn(job)
    if r == 1:
        return reply(job, ["tabs read faster"] if side == "A" else ["spaces align"])
    if side == "A":  # concedes B's point once, then has nothing to add
        return reply(job, [], [("I2", "agree", "alignment matters")] if r == 2 else [])
    return reply(job, [], [("I1", "contest", "mixed editors render tabs differently")])


# New evidence each round (rewording the same sentence would not count as new).
_FINDINGS = (
    "a survey of 40 repositories shows mixed indentation in a third of them",
    "git blame noise doubled after the last reformat",
    "screen readers announce tab stops but not runs of spaces",
    "the style guide of the largest dependency mandates four spaces",
    "code review tools render tabs at eight columns by default",
    "profiling the editor found no measurable difference in load time",
    "two new hires reported confusion over alignment in diffs",
)


def contested(job: TurnJob) -> str:
    if job.step.startswith("judge"):
        return JUDGE
    r, side = _turn(job)
    if r == 1:
        return reply(job, ["tabs read faster"] if side == "A" else [])
    finding = _FINDINGS[(r - 2) % len(_FINDINGS)]
    return reply(job, [], [("I1", "contest", f"{side}: {finding}")])


SCRIPTS: dict[str, Callable[[TurnJob], str]] = {
    "easy": easy,
    "lingering": lingering,
    "contested": contested,
}
