"""Markdown people keep: the transcript, the judge summary, our own ledger summary, and the
HTML page's outline (``collab show``).

The labels every report shares (a cost, a token count, the summary's title) are here too.
The transcript is chronological; the outline follows the page (summary, ledger, evolution,
then the rounds). Both are built from the same per-turn pieces.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import groupby

from collab.favours import flip_of
from collab.ledger import get, open_blocking
from collab.ledger_summary import ledger_markdown, title_md
from collab.outcome import counts_text, outcome_of
from collab.panel import IssueTally, answered_line, issue_tallies, one_family_note
from collab.prices import fmt_cost
from collab.report.decision_input import flip_text
from collab.report.markup import demote_headings
from collab.report.steering import steering_md
from collab.seats import SEAT_ICON
from collab.state import RunState
from collab.stats import run_stats
from collab.turns import TurnRecord

ICON = SEAT_ICON


# The small labels every report shares (the HTML page too): a cost, a token count, a title.
def tokens_line(state: RunState) -> str:
    """``1,200 in · 340 out · …``, the zero counts left out; ``n/a`` when none is known."""
    t = state.tokens()
    parts = [
        ("in", t.input_tokens),
        ("out", t.output_tokens),
        ("cache read", t.cache_read_tokens),
        ("cache write", t.cache_write_tokens),
    ]
    if not any(n for _, n in parts):
        return "n/a"
    return " · ".join(f"{n:,} {label}" for label, n in parts if n)


def shares_line(
    total: float | None, shares: Mapping[str, float | None], estimated: bool = False
) -> tuple[str, str]:
    """``("$0.0900", "A $0.0200 · B $0.0200 · judge $0.0500")``: the total (which counts
    every seat; marked when any of it is collab's estimate) and each seat's share."""
    return fmt_cost(total, estimated), " · ".join(
        f"{seat} {fmt_cost(v)}" for seat, v in shares.items()
    )


def cost_parts(state: RunState) -> tuple[str, str]:
    """A run's total and its shares: A, B and the Judge."""
    shares = {**{str(s): state.cost_usd(s) for s in state.seats}, "judge": state.judge_cost_usd()}
    return shares_line(state.cost_usd(), shares, state.cost_estimated())


def cost_breakdown(state: RunState, parts: tuple[str, str] | None = None) -> str:
    """The one cost line every report and document shows: ``$0.0900 (A … · B … · judge …)``
    (``parts``: :func:`cost_parts`, when made)."""
    total, shares = cost_parts(state) if parts is None else parts
    return f"{total} ({shares})"


@dataclass(frozen=True)
class Shared:
    """What the transcript and report.html both show, worked out once when a run's reports
    are written together (:func:`collab.report.write_reports`)."""

    tallies: tuple[IssueTally, ...]  # the final ledger's issues', in its order
    cost: tuple[str, str]  # cost_parts
    family_note: str | None
    steering: str

    @staticmethod
    def of(state: RunState) -> Shared:
        issues = state.ledger().issues
        return Shared(
            tallies=tuple(issue_tallies(state, issues)),
            cost=cost_parts(state),
            family_note=one_family_note(state),
            steering=steering_md(state),
        )


def judge_title(state: RunState) -> str:
    """The summary section's heading: a fallback summary is labelled as ours."""
    fallback = state.judge is not None and state.judge.fallback
    return "Summary (from the ledger)" if fallback else "Judge summary"


# -- shared pieces ---------------------------------------------------------------------------


def _title(state: RunState) -> str:
    return f"# Debate: {state.config.topic}"


def _cost(state: RunState, parts: tuple[str, str] | None = None) -> str:
    return f"Cost: {cost_breakdown(state, parts)}"


def _turn_heading(t: TurnRecord) -> str:
    return (
        f"Role {t.side} ({t.role_name}) · {t.status} · {t.meta.duration:.1f}s · "
        f"{fmt_cost(t.cost_usd, t.meta.cost_estimated)}"
    )


def _points(t: TurnRecord) -> list[str]:
    """The turn's moves on the ledger, one list item each."""
    if t.contract is None:
        return []
    return [
        f"- new point{'' if p.severity == 'major' else f' ({p.severity})'}: "
        f"**{title_md(p.title)}** — {p.evidence}"
        for p in t.contract.new_points
    ] + [f"- {s.stance} {s.id}: {s.evidence}" for s in t.contract.stances]


def _warnings(t: TurnRecord) -> list[str]:
    return [f"- ⚠ {w}" for w in t.warnings]


def _by_round(
    turns: Iterable[TurnRecord],
    heading: Callable[[int], list[str]],
    body: Callable[[TurnRecord], list[str]],
) -> list[str]:
    out: list[str] = []
    for round_no, group in groupby(turns, key=lambda t: t.round_no):
        out += heading(round_no)
        for t in group:
            out += body(t)
    return out


# -- the transcript --------------------------------------------------------------------------


def _agent(name: str, model: str | None) -> str:
    return f"{name} ({model})" if model else name


def _transcript_turn(t: TurnRecord, earlier: Sequence[TurnRecord] = ()) -> list[str]:
    out = ["", f"### {ICON[t.side]} {_turn_heading(t)}", "", t.prose]
    if points := _points(t):
        out += ["", *points]
    if t.contract is not None and t.contract.favours:
        out += ["", f"- favours {t.contract.favours}"]
    out += _warnings(t)
    if (flip := flip_of(t, earlier)) is not None:
        out += ["", f"**⇄ {flip_text(flip)}**"]
    return out


def _verdict(state: RunState, note: str | None) -> str:
    """``verdict: consensus``, and the one-family note beside it when it applies."""
    return f"verdict: {state.verdict()}" + (f" ({note})" if note else "")


def _round_heading(state: RunState, r: int) -> str:
    """``Round 2 · B, C, A · 2 of 3 seats answered`` (the order it was taken in)."""
    order = state.order_of(r)
    how = "all at once" if any(o.round_no == r and o.at_once for o in state.round_orders) else (
        ", ".join(order))  # fmt: skip
    return f"Round {r} · {how} · {answered_line(state, r)}"


def tally_md(state: RunState, tallies: Sequence[IssueTally] | None = None) -> list[str]:
    """Per issue: how many seats agree, contest or are silent, the families on each side
    (``tallies``: :func:`collab.panel.issue_tallies` of the ledger's issues, when made)."""
    issues = state.ledger().issues
    if not issues:
        return []
    out = ["## Where the seats stand", ""]
    out += [
        f"- {i.id} ({i.status}): {t.line()}"
        for i, t in zip(issues, issue_tallies(state, issues) if tallies is None else tallies,
                        strict=True)
    ]  # fmt: skip
    return [*out, ""]


def transcript_md(state: RunState, shared: Shared | None = None) -> str:
    """The run in the order it happened (``shared``: :meth:`Shared.of` the state, when
    report.html is written with it)."""
    cfg = state.config
    shared = Shared.of(state) if shared is None else shared
    agents = ", ".join(f"{r.side} {_agent(a.agent, a.model)}" for r, a in zip(
        cfg.roles, cfg.agents, strict=True))  # fmt: skip
    out = [
        _title(state),
        "",
        f"- Run: `{state.run_id}` · created {state.created}",
        f"- Preset: {cfg.preset} · rounds {state.rounds_done()}/{cfg.rounds} · language {cfg.lang}",
        *(f"- {ICON[r.side]} Role {r.side}: **{r.name}** — {r.description}" for r in cfg.roles),
        f"- Agents: {agents}, judge {_agent(cfg.judge.agent, cfg.judge.model)}",
        f"- Stop: {state.stop_reason or '—'} — {state.stop_detail} · "
        f"{_verdict(state, shared.family_note)}",
        f"- {_cost(state, shared.cost)}",
    ]
    if cfg.contexts:
        out.append("- Context: " + ", ".join(f"`{c.path}`" for c in cfg.contexts))
    heading = lambda r: ["", f"## {_round_heading(state, r)}"]  # noqa: E731
    out += _by_round(state.turns, heading, lambda t: _transcript_turn(t, state.turns))
    if state.angle is not None:
        out += ["", f"_New angle injected before round {state.angle.round_no}: {state.angle.text}_"]
    out += ["", "## Final ledger", "", ledger_markdown(state.ledger().issues)]
    out += tally_md(state, shared.tallies)
    if state.judge is not None:
        title = "Summary (from the ledger)" if state.judge.fallback else "Judge"
        out += [f"## {title}", "", state.judge.text.strip(), ""]
    if steering := shared.steering:
        out += [steering]
    return "\n".join(out)


def judge_md(state: RunState) -> str:
    """The Judge's summary, then every round folded away in ``<details>``."""
    if state.judge is None:
        raise ValueError(f"run {state.run_id} has no judge summary")
    out = [state.judge.text.strip(), "", "<details><summary>The rounds</summary>", ""]
    for t in state.turns:
        heading = f"Round {t.round_no} · {ICON[t.side]} Role {t.side} ({t.role_name})"
        out += [f"#### {heading}", "", t.prose, ""]
    out += ["</details>", ""]
    return "\n".join(out)


# -- the page's outline ----------------------------------------------------------------------


def _seat(agent: str, model: str | None) -> str:
    return f"{agent} · {model}" if model else agent


def _outline_turn(t: TurnRecord) -> list[str]:
    moves = _points(t) + _warnings(t)
    return [f"### {_turn_heading(t)}", "", t.prose, "", *moves] + ([""] if moves else [])


def render_markdown_report(state: RunState) -> str:
    """The HTML page's outline as Markdown (the transcript keeps the chronological view)."""
    cfg = state.config
    ledger = state.ledger()
    outcome = outcome_of(state)
    out = [
        _title(state),
        "",
        f"- Run `{state.run_id}` · {state.status} · preset {cfg.preset} · created {state.created}",
        *(
            f"- Role {r.side}: **{r.name}** ({_seat(a.agent, a.model)}) — {r.description}"
            for r, a in zip(cfg.roles, cfg.agents, strict=True)
        ),
        f"- Judge: {_seat(cfg.judge.agent, cfg.judge.model)}",
        f"- Rounds: {state.rounds_done()} of {cfg.rounds} · {outcome.stop_phrase()}"
        + (f" — {state.stop_detail}" if state.stop_detail else "")
        + f" · verdict: {state.verdict()} ({counts_text(outcome.counts)})"
        + (f" · {note}" if (note := one_family_note(state)) else "")
        + (f" · open blocking: {n}" if (n := open_blocking(ledger)) else ""),
        f"- {_cost(state)} · tokens: {tokens_line(state)}",
    ]
    if state.error:
        out.append(f"- Error: {state.error}")
    judge = (
        "_No judge summary yet._"
        if state.judge is None
        else demote_headings(state.judge.text.strip())
    )
    out += ["", f"## {judge_title(state)}", "", judge, ""]
    if steering := steering_md(state):
        out += [steering]
    out += ["## Final ledger", ""]
    out.append(ledger_markdown(ledger.issues))
    out += tally_md(state)
    lgs = state.round_ledgers()
    if ledger.issues and lgs:
        rounds = " | ".join(f"R{n}" for n in range(1, len(lgs) + 1))
        out += ["## Ledger evolution", "", f"| issue | {rounds} |", "|---|" + "---|" * len(lgs)]
        for issue in ledger.issues:
            cells = " | ".join(i.status if (i := get(lg, issue.id)) else "·" for lg in lgs)
            title = title_md(issue.title).replace("|", "\\|")
            out.append(f"| {issue.id} {title} | {cells} |")
        out.append("")
    out += _by_round(state.turns, lambda r: [f"## {_round_heading(state, r)}", ""], _outline_turn)
    if state.warnings:
        out += ["## Warnings", "", *(f"- {w}" for w in state.warnings), ""]
    out += _numbers(state)
    return "\n".join(out).rstrip() + "\n"


def _numbers(state: RunState) -> list[str]:
    """The run's own ``collab stats``."""
    s = run_stats(state)

    def pct(v: float | None) -> str:
        return "n/a" if v is None else f"{v:.0%}"

    per = "n/a" if s.cost_usd is None or not s.resolved else fmt_cost(s.cost_usd / s.resolved)
    return [
        "## Numbers", "",
        f"- verdict: {s.verdict} · rounds: {s.rounds}"
        + (" (converged)" if s.converged else ""),
        f"- concession rate: {pct(s.concession_rate)} ({s.agrees} reasoned agrees in "
        f"{s.turns} turns)",
        f"- issues: {s.resolved} resolved by evidence, {s.dropped} dropped"
        + (f" ({s.conceded} conceded)" if s.conceded else "") + f", {s.open} open",
        f"- contract salvage: {pct(s.salvage_rate)} ({s.items_kept}/{s.items_sent} items kept)",
        f"- turns with a usable contract: {pct(s.contract_rate)} ({s.contract_turns}/{s.turns})",
        f"- judge: {'fallback from the ledger' if s.judge_fallback else 'answered'}"
        if s.judge_fallback is not None else "- judge: not yet",
        f"- cost per resolved issue: {per}",
        "",
    ]  # fmt: skip
