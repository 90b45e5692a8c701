"""``collab stats``: what the kept debates did, in numbers (``--json`` too)."""

from __future__ import annotations

from collab.cli import options as o
from collab.cli.options import echo_json
from collab.prices import fmt_cost


def stats(as_json: o.Json = False) -> None:
    """Across every kept run: concessions, resolutions, convergence, verdicts, salvage,
    Judge fallbacks and cost per resolved issue."""
    from dataclasses import asdict

    from rich.console import Console
    from rich.table import Table

    from collab.fields import DamagedField
    from collab.state import RunState
    from collab.stats import aggregate, run_stats
    from collab.store import scan_runs

    per_run = []
    for stored in scan_runs():
        if stored.state is None:
            continue  # collab list shows damaged runs; they have no numbers
        try:
            per_run.append(run_stats(RunState.from_dict(stored.state)))
        except DamagedField:
            continue
    total = aggregate(per_run)
    if as_json:
        echo_json({"schema": "collab.stats/1", **asdict(total),
                   "per_run": [r.document() for r in per_run]})  # fmt: skip
        return
    table = Table(title=f"collab stats · {total.runs} runs", title_justify="left")
    table.add_column("measure", no_wrap=True)
    table.add_column("value", overflow="fold")

    def pct(v: float | None) -> str:
        return "n/a" if v is None else f"{v:.0%}"

    verdicts = ", ".join(f"{k} {v}" for k, v in total.verdicts.items()) or "—"
    rows = [
        ("debater turns", str(total.turns)),
        ("concession rate (reasoned agrees per turn)", pct(total.concession_rate)),
        ("issues resolved by evidence / dropped / open",
         f"{total.resolved_by_evidence} / {total.dropped} / {total.open}"
         + (f" ({total.conceded} conceded by their raiser)" if total.conceded else "")),
        ("rounds to converge (mean)", "n/a" if total.rounds_to_converge is None
         else f"{total.rounds_to_converge:g} over {total.converged_runs} runs"),
        ("verdicts", verdicts),
        *((f"verdicts with {n} seats", ", ".join(f"{k} {v}" for k, v in mix.items()))
          for n, mix in total.verdicts_by_seats.items()),
        ("contract salvage (items kept / sent)",
         f"{pct(total.salvage_rate)} ({total.items_kept}/{total.items_sent})"),
        ("turns with a usable contract / debater turns",
         f"{pct(total.contract_rate)} ({total.contract_turns}/{total.turns})"),
        ("Judge fallback rate", pct(total.judge_fallback_rate)),
        ("open blocking issues", str(total.open_blocking)),
        ("cited evidence verified (path:line)",
         f"{pct(total.evidence_verified_rate)} of {total.cites} cites"),
        ("cost", fmt_cost(total.cost_usd)),
        ("cost per resolved issue", fmt_cost(total.cost_per_resolved_usd)),
        ("decided runs (collab decide)", str(total.decided_runs)),
        ("choice matched the option most seats favoured at the end",
         f"{pct(total.choice_matched_rate)} ({total.choice_matched}/"
         f"{total.decided_with_options} decided runs with options)"),
    ]  # fmt: skip
    for name, value in rows:
        table.add_row(name, value)
    Console().print(table)
    if not total.by_depth:
        return
    depths = Table(title="per depth", title_justify="left")
    for column in ("depth", "runs", "calls", "tokens in / out", "cost", "verdicts"):
        depths.add_column(column, no_wrap=column != "verdicts")
    for depth, d in total.by_depth.items():
        mix = ", ".join(f"{k} {v}" for k, v in d.verdicts.items())
        cost = fmt_cost(d.cost_usd)
        depths.add_row(depth, str(d.runs), f"{d.calls} ({d.calls_per_run:g}/run)",
                       f"{d.input_tokens:,} / {d.output_tokens:,}", cost, mix)  # fmt: skip
    Console().print(depths)
