"""The pull-request comment: a run's result document as one GitHub Markdown comment.

Pure. :func:`comment_body` renders the verdict, the open issues by severity, the Crux,
the Judge's summary (folded), the cost and where the run's artefacts are, under a hidden
marker (``<!-- collab:KEY -->``) by which the next run finds and edits the same comment.
Model and topic text goes through :func:`for_github` first: ``text.clean``, then what it
could do on GitHub is defused — raw HTML (``<`` escaped: no tags, no comments, so no
forged marker), images (``![`` → a plain link), ``@mentions`` (no notification), and an
unclosed code fence is closed. A body over GitHub's limit loses the Judge's text first,
then is cut, and says where the rest is.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence

from collab.contract import SEVERITIES
from collab.gate import open_rows, severity
from collab.prices import fmt_cost
from collab.report.adr import judge_sections
from collab.report.markdown import shares_line
from collab.seats import SEATS
from collab.text import clean, one_line

# GitHub refuses a comment body over 65,536 characters; keep a margin.
BODY_LIMIT = 65_000
_ZWSP = "\u200b"
_MENTION = re.compile(r"@(?=[A-Za-z0-9_-])")
_IMAGE = re.compile(r"!\[")
_FENCE = re.compile(r"^\s{0,3}(```|~~~)", re.MULTILINE)
_VERDICT_ICON = {"consensus": "✅", "partial": "🟡", "split": "🔴", "inconclusive": "⚪"}


def marker(key: str) -> str:
    return f"<!-- collab:{key} -->"


def comment_key(given: str | None, topic_file: str | None, topic: str) -> str:
    """``--comment-key`` as given, else a short hash of the topic file's path, else of
    the topic: the same topic file (or topic) on the same pull request → the same comment."""
    if given:
        if not re.fullmatch(r"[A-Za-z0-9._-]{1,64}", given):
            raise ValueError("--comment-key must be 1–64 letters, digits, '.', '_' or '-'")
        return given
    source = f"file:{topic_file}" if topic_file else f"topic:{topic}"
    return hashlib.sha256(source.encode()).hexdigest()[:16]


def for_github(text: str) -> str:
    """Untrusted text made inert for GitHub Markdown (after :func:`collab.text.clean`)."""
    text = clean(text).replace("<", "&lt;")
    text = _IMAGE.sub("!" + _ZWSP + "[", text)
    text = _MENTION.sub("@" + _ZWSP, text)
    if len(_FENCE.findall(text)) % 2:
        text += "\n```"
    return text


def crux(judge_md: str) -> str | None:
    """The first paragraph of the Judge's Crux section, found by the shared heading rules
    (any level, numbering or case, English or Japanese: collab.judge.answer)."""
    found = judge_sections(judge_md).get("crux")
    if not found:
        return None
    return found.split("\n\n", 1)[0].strip() or None


def comment_body(
    doc: Mapping[str, object],
    key: str,
    *,
    report_url: str | None = None,
    gate_line: str | None = None,
    limit: int = BODY_LIMIT,
) -> str:
    """The whole comment, at most ``limit`` characters."""
    judge = doc.get("judge")
    judge_md = str(judge.get("markdown") or "") if isinstance(judge, Mapping) else ""
    body = _render(doc, key, judge_md, report_url, gate_line)
    if len(body) <= limit:
        return body
    where = _where(doc, report_url)
    short = _render(doc, key, f"*(too long for a comment: the Judge's summary is in {where})*",
                    report_url, gate_line)  # fmt: skip
    if len(short) <= limit:
        return short
    tail = f"\n\n… *(truncated: the full result is in {where})*"
    return short[: limit - len(tail)] + tail


def short_body(doc: Mapping[str, object], key: str, report_url: str | None = None) -> str:
    """The smallest comment: the marker, the verdict and where the rest is."""
    return (
        f"{marker(key)}\n### collab: {_verdict(doc)}\n\n"
        f"The full result is in {_where(doc, report_url)}.\n"
    )


def notice_body(key: str, line: str) -> str:
    """A comment of one line: why no debate ran (a diff over budget, a refused secret)."""
    return f"{marker(key)}\n### collab did not run\n\n{for_github(one_line(line, 2000))}\n"


def _render(
    doc: Mapping[str, object],
    key: str,
    judge_md: str,
    report_url: str | None,
    gate_line: str | None,
) -> str:
    topic = for_github(one_line(str(doc.get("topic") or ""), 300))
    lines = [marker(key), f"### collab: {_verdict(doc)}", "", f"**Topic:** {topic}", ""]
    if gate_line:
        lines += [f"**Gate:** {for_github(gate_line)}", ""]
    lines += _issues(open_rows(doc))
    point = crux(judge_md)
    if point:
        lines += ["**Crux:** " + for_github(one_line(point, 1000)), ""]
    if judge_md:
        lines += ["<details><summary>The Judge's summary</summary>", "",
                  for_github(judge_md), "", "</details>", ""]  # fmt: skip
    lines += [_footer(doc, report_url)]
    return "\n".join(lines) + "\n"


def _verdict(doc: Mapping[str, object]) -> str:
    verdict = str(doc.get("verdict") or "inconclusive")
    return f"{_VERDICT_ICON.get(verdict, '')} {verdict}".strip()


def _issues(issues: Sequence[Mapping[str, object]]) -> list[str]:
    if not issues:
        return ["No open issues.", ""]
    out = [f"**Open issues ({len(issues)}):**", ""]
    for level in SEVERITIES:
        for issue in (i for i in issues if severity(i) == level):
            title = for_github(one_line(str(issue.get("title") or ""), 300))
            out.append(f"- **{level}** `{issue.get('id')}` {title}")
    return [*out, ""]


def _where(doc: Mapping[str, object], report_url: str | None) -> str:
    run_id = str(doc.get("run_id") or "")
    local = f"`collab show {run_id}`"
    return f"[the run's report]({report_url}) ({local})" if report_url else local


def _money(doc: Mapping[str, object]) -> str:
    """The run's one cost breakdown (as in its reports), from the result document."""
    cost, by_seat = doc.get("cost_usd"), doc.get("cost_usd_by_role")
    if not isinstance(cost, int | float):
        return "not reported"
    if not isinstance(by_seat, Mapping):
        return fmt_cost(float(cost))
    shares = {
        seat: float(v) if isinstance(v := by_seat.get(seat), int | float) else None
        for seat in (*SEATS, "judge")
        if seat in by_seat
    }
    total, line = shares_line(float(cost), shares, doc.get("cost_estimated") is True)
    return f"{total} ({line})"


def _footer(doc: Mapping[str, object], report_url: str | None) -> str:
    rounds = doc.get("rounds")
    done = rounds.get("done") if isinstance(rounds, Mapping) else None
    money = _money(doc)
    return (f"<sub>run `{doc.get('run_id')}` · {done} round(s) · cost {money} · "
            f"artefacts: {_where(doc, report_url)}</sub>")  # fmt: skip
