"""The summary collab writes from the issue ledger when the Judge cannot answer, so the
outcome of a run is never lost: part of the run's result (saved as the Judge's text),
in the run's language, under the Judge's own headings. Pure: no I/O."""

from __future__ import annotations

from typing import Literal

from collab.evidence import marks
from collab.lang import Lang
from collab.ledger import Issue, counts
from collab.seats import SEATS, Side
from collab.state import RunState
from collab.text import md_cell, md_inline, one_line

STATUS_MARK = {"open": "🟡 open", "resolved": "🟢 resolved", "dropped": "⚪ dropped"}


# The ledger table's words per language: the header, the status marks, "no issues".
_TABLE: dict[str, tuple[tuple[str, ...], dict[str, str], str]] = {
    "en": (("id", "status", "issue", "raised by", "evidence A", "evidence B"), STATUS_MARK,
           "_No issues were raised._"),
    "ja": (("id", "状態", "論点", "提起", "Aの根拠", "Bの根拠"),
           {"open": "🟡 未解決", "resolved": "🟢 解決済み", "dropped": "⚪ 取り下げ"},
           "_提起された論点はありません。_"),
}  # fmt: skip


def ledger_markdown(issues: tuple[Issue, ...], lang: Lang = "en") -> str:
    header, mark, empty = _TABLE[lang]
    if not issues:
        return empty + "\n"
    # A panel's seats C–E get a column once one of them has evidence on some issue.
    more = [s for s in SEATS[2:] if any(i.evidence(s) for i in issues)]
    heads = [*header, *(header[-1].replace("B", s) for s in more)]
    lines = ["| " + " | ".join(heads) + " |", "|---" * len(heads) + "|"]
    for i in issues:
        lines.append(
            f"| {i.id} | {mark[i.status]} | {rated_cell(i, 160)} | {i.raised_by} | "
            + " | ".join(checked(i, s, 160) for s in ("A", "B", *more))
            + " |"
        )
    return "\n".join(lines) + "\n"


SEVERITY_MARK = {"blocking": "⛔ blocking", "major": "major", "minor": "minor"}
# An issue without a mark is major (the default); blocking and minor ones are marked.


def rated(issue: Issue) -> str:
    """The title after its severity (and who re-rated it, from what)."""
    changes = "".join(
        f" (re-rated {c.old}→{c.new} by {c.side}, round {c.round_no})"
        for c in issue.severity_changes
    )
    if issue.severity == "major":  # the default stays unmarked, as in the prompts
        return f"{issue.title}{changes}"
    return f"[{SEVERITY_MARK[issue.severity]}] {issue.title}{changes}"


def title_md(title: str, limit: int | None = None) -> str:
    """A title (a model's text) as one line of our Markdown that renders as written."""
    return md_inline(one_line(title, limit))


def rated_cell(issue: Issue, cap: int) -> str:
    """:func:`rated` as a table cell: cut to ``cap``, then the title's part escaped (the
    severity mark and the re-ratings are ours)."""
    flat = one_line(rated(issue), cap)
    head = "" if issue.severity == "major" else f"[{SEVERITY_MARK[issue.severity]}] "
    return (head + md_inline(flat[len(head) :])).replace("|", "\\|")


def checked(issue: Issue, side: Side, cap: int) -> str:
    """One side's evidence, then what the check of each cited ``path:line`` found."""
    text = md_cell(issue.evidence(side), cap)
    found = issue.checks(side)
    return f"{text} ({md_cell(marks(found), 200)})" if found else text


# Why the Judge's summary is the ledger's: it failed (no answer), its answer lacked a
# required section even when asked again, or the cost cap was reached before it was asked.
FallbackCause = Literal["no-answer", "no-sections", "cost-cap"]

# The fallback summary's words per language; its headings are the Judge's own
# (templates/<lang>/judge.md.j2), so a reader finds the same sections either way.
_FALLBACK: dict[str, dict[str, str]] = {
    "en": {
        "no-answer": "> Summary written by collab from the issue ledger: the Judge did not answer.",
        "no-sections": "> Summary written by collab from the issue ledger: the Judge answered "
        "without the required sections.",
        "cost-cap": "> Summary written by collab from the issue ledger: the cost cap was reached "
        "before the Judge was asked.",
        "tldr": "- {n} issues raised over {rounds} rounds: "
        "{resolved} resolved, {open} still open, {dropped} dropped.",
        "stopped": "- Stopped: {reason} — {detail}", "unknown": "unknown",
        "verdict": "- Verdict (from the ledger): {verdict}",
        "agreements": "## Agreements", "open": "## Open disagreements",
        "tradeoffs": "## Trade-offs", "actions": "## Recommended actions",
        "none_recorded": "- none recorded", "none": "- none",
        "raised": "(raised by {side})", "settle": "- Settle {id} ({title}) with the evidence "
        "both sides named.", "act": "- Act on the agreements above.", "dropped": "Dropped: ",
        "settle_panel": "- Settle {id} ({title}) with the evidence the seats named.",
    },
    "ja": {
        "no-answer": "> 審判が応答しなかったため、このまとめは collab が論点台帳から作成しました。",
        "no-sections": "> 審判の回答に必要な見出しがなかったため、このまとめは collab が"
        "論点台帳から作成しました。",
        "cost-cap": "> 費用の上限に達したため審判には依頼せず、このまとめは collab が"
        "論点台帳から作成しました。",
        "tldr": "- {rounds}ラウンドで{n}件の論点が提起されました: "
        "解決済み{resolved}件、未解決{open}件、取り下げ{dropped}件。",
        "stopped": "- 終了理由: {reason} — {detail}", "unknown": "不明",
        "verdict": "- 判定（台帳から算出）: {verdict}",
        "agreements": "## 合意点", "open": "## 未解決の対立点",
        "tradeoffs": "## トレードオフ", "actions": "## 推奨アクション",
        "none_recorded": "- なし", "none": "- なし",
        "raised": "（提起: {side}）", "settle": "- {id}（{title}）は、双方が示した根拠を"
        "もとに決着をつけてください。", "act": "- 上記の合意点に沿って進めてください。",
        "dropped": "取り下げ: ",
        "settle_panel": "- {id}（{title}）は、各席が示した根拠をもとに決着をつけてください。",
    },
}  # fmt: skip
_JA_VERDICT = {"consensus": "合意", "partial": "部分的な合意", "split": "対立",
               "inconclusive": "判定不能"}  # fmt: skip
_JA_PANEL_CONVERGED = "各席が収束しました"  # a panel's seats: not "both sides"
_JA_STOP = {"converged-early": "双方が収束しました",
            "max-rounds": "予定したラウンドをすべて実施しました",
            "circular-break": "議論が同じ論点を回り続けたため打ち切りました",
            "timeout": "時間の上限に達しました", "budget": "費用の上限に達しました",
            "interrupted": "ユーザーが中断しました",
            "settled": "直前のラウンドで何も変わらなかったため終了しました",
            "no-contract": "どの席からも有効なjsonブロックが返りませんでした",
            "too-few-seats": "第1ラウンドに答えた席が1つだけでした"}  # fmt: skip


def fallback_summary(state: RunState, cause: FallbackCause = "no-answer") -> str:
    """Written by us from the ledger when the judge cannot answer: the outcome is never
    lost. In the run's language, with the Judge's headings; its first line says why
    (``cause``: the Judge failed, answered without its sections, or the cost cap came first)."""
    cfg = state.config
    w = _FALLBACK[cfg.lang]
    ledger = state.ledger()
    c = counts(ledger)
    resolved = [i for i in ledger.issues if i.status == "resolved"]
    open_ = [i for i in ledger.issues if i.status == "open"]
    dropped = [i for i in ledger.issues if i.status == "dropped"]
    code = state.verdict()
    verdict = f"{_JA_VERDICT[code]} ({code})" if cfg.lang == "ja" else code
    reason, detail = state.stop_reason or w["unknown"], state.stop_detail or ""
    if cfg.lang == "ja" and reason in _JA_STOP:  # the detail is English: say it in Japanese
        said = _JA_STOP[reason]
        if reason == "converged-early" and len(cfg.seats) > 2:
            said = _JA_PANEL_CONVERGED
        reason, detail = f"{said} ({reason})", ""
    out = [
        w[cause],
        "",
        "## TL;DR",
        w["tldr"].format(n=len(ledger.issues), rounds=state.rounds_done(), **c),
        w["stopped"].format(reason=reason, detail=detail).rstrip(" —"),
        w["verdict"].format(verdict=verdict),
        "",
        w["agreements"],
    ]
    out += [f"- **{i.id} {title_md(i.title)}**" for i in resolved] or [w["none_recorded"]]
    out += ["", w["open"]]
    for i in open_:
        out.append(f"- **{i.id} {title_md(i.title)}** " + w["raised"].format(side=i.raised_by))
        for seat in cfg.seats:
            name = title_md(cfg.role(seat).name)
            out.append(f"  - {name}: {md_cell(i.evidence(seat), 400) or '—'}")
    if not open_:
        out.append(w["none"])
    out += ["", w["tradeoffs"], "", ledger_markdown(ledger.issues, cfg.lang), w["actions"]]
    if open_:
        settle = w["settle" if len(cfg.seats) == 2 else "settle_panel"]
        out += [
            settle.format(id=i.id, title=title_md(i.title, 80).replace("|", "\\|")) for i in open_
        ]
    else:
        out.append(w["act"])
    if dropped:
        out += ["", w["dropped"] + ", ".join(f"{i.id} {title_md(i.title)}" for i in dropped)]
    return "\n".join(out) + "\n"
