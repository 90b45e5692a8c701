"""Markdown people keep: the transcript, the judge summary, and our own ledger summary."""

from __future__ import annotations

from pathlib import Path

from collab.ledger import Issue, counts
from collab.state import RunState
from collab.store import RunDir

STATUS_MARK = {"open": "🟡 open", "resolved": "🟢 resolved", "dropped": "⚪ dropped"}


def fmt_cost(cost: float | None) -> str:
    return "n/a" if cost is None else f"${cost:.4f}"


def _cell(text: str, limit: int = 160) -> str:
    flat = " ".join(text.split()).replace("|", "\\|")
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def ledger_table(issues: tuple[Issue, ...]) -> str:
    if not issues:
        return "_No issues were raised._\n"
    lines = [
        "| id | status | issue | raised by | evidence A | evidence B |",
        "|---|---|---|---|---|---|",
    ]
    for i in issues:
        lines.append(
            f"| {i.id} | {STATUS_MARK[i.status]} | {_cell(i.title)} | {i.raised_by} "
            f"| {_cell(i.evidence_a)} | {_cell(i.evidence_b)} |"
        )
    return "\n".join(lines) + "\n"


def fallback_summary(state: RunState) -> str:
    """Written by us from the ledger when the judge cannot answer: the outcome is never lost."""
    cfg = state.config
    ledger = state.ledger()
    c = counts(ledger)
    a, b = cfg.role_a.name, cfg.role_b.name
    resolved = [i for i in ledger.issues if i.status == "resolved"]
    open_ = [i for i in ledger.issues if i.status == "open"]
    dropped = [i for i in ledger.issues if i.status == "dropped"]
    out = [
        "> Summary written by collab from the issue ledger: the Judge did not answer.",
        "",
        "## TL;DR",
        f"- {len(ledger.issues)} issues raised over {state.rounds_done()} rounds: "
        f"{c['resolved']} resolved, {c['open']} still open, {c['dropped']} dropped.",
        f"- Stopped: {state.stop_reason or 'unknown'} — {state.stop_detail or ''}".rstrip(" —"),
        "",
        "## Agreements",
    ]
    out += [f"- **{i.id} {i.title}**" for i in resolved] or ["- none recorded"]
    out += ["", "## Open disagreements"]
    for i in open_:
        out.append(f"- **{i.id} {i.title}** (raised by {i.raised_by})")
        out.append(f"  - {a}: {_cell(i.evidence_a, 400) or '—'}")
        out.append(f"  - {b}: {_cell(i.evidence_b, 400) or '—'}")
    if not open_:
        out.append("- none")
    out += ["", "## Trade-offs", "", ledger_table(ledger.issues)]
    out += ["## Recommended actions"]
    if open_:
        out += [f"- Settle {i.id} ({_cell(i.title, 80)}) with the evidence both sides named."
                for i in open_]  # fmt: skip
    else:
        out.append("- Act on the agreements above.")
    if dropped:
        out += ["", "Dropped: " + ", ".join(f"{i.id} {i.title}" for i in dropped)]
    return "\n".join(out) + "\n"


def transcript_md(state: RunState) -> str:
    cfg = state.config
    out = [
        f"# Debate: {cfg.topic}",
        "",
        f"- Run: `{state.run_id}` · created {state.created}",
        f"- Preset: {cfg.preset} · rounds {state.rounds_done()}/{cfg.rounds} · language {cfg.lang}",
        f"- 🔵 Role A: **{cfg.role_a.name}** — {cfg.role_a.description}",
        f"- 🔴 Role B: **{cfg.role_b.name}** — {cfg.role_b.description}",
        f"- Agents: A {_agent(cfg.agent_a.agent, cfg.agent_a.model)}, "
        f"B {_agent(cfg.agent_b.agent, cfg.agent_b.model)}, "
        f"judge {_agent(cfg.judge.agent, cfg.judge.model)}",
        f"- Stop: {state.stop_reason or '—'} — {state.stop_detail}",
        f"- Cost: {fmt_cost(state.cost_usd())} (A {fmt_cost(state.cost_usd('A'))}, "
        f"B {fmt_cost(state.cost_usd('B'))})",
    ]
    if cfg.contexts:
        out.append("- Context: " + ", ".join(f"`{c.path}`" for c in cfg.contexts))
    current = 0
    for t in state.turns:
        if t.round_no != current:
            current = t.round_no
            out += ["", f"## Round {current}"]
        icon = "🔵" if t.side == "A" else "🔴"
        out += [
            "",
            f"### {icon} Role {t.side} ({t.role_name}) · {t.status} · "
            f"{t.meta.duration:.1f}s · {fmt_cost(t.cost_usd)}",
            "",
            t.prose,
        ]
        if t.contract is not None and (t.contract.new_points or t.contract.stances):
            out.append("")
            out += [f"- new point: **{p.title}** — {p.evidence}" for p in t.contract.new_points]
            out += [f"- {s.stance} {s.id}: {s.evidence}" for s in t.contract.stances]
        out += [f"- ⚠ {w}" for w in t.warnings]
    if state.angle is not None:
        out += ["", f"_New angle injected before round {state.angle.round_no}: {state.angle.text}_"]
    out += ["", "## Final ledger", "", ledger_table(state.ledger().issues)]
    if state.judge is not None:
        title = "Summary (from the ledger)" if state.judge.fallback else "Judge"
        out += [f"## {title}", "", state.judge.text.strip(), ""]
    return "\n".join(out)


def _agent(name: str, model: str | None) -> str:
    return f"{name} ({model})" if model else name


def write_reports(state: RunState, run_dir: RunDir) -> dict[str, Path]:
    paths = {"transcript": run_dir.write_text("transcript.md", transcript_md(state))}
    if state.judge is not None:
        paths["judge"] = run_dir.write_text("judge.md", judge_md(state))
    from collab.html_report import render_html

    paths["html"] = run_dir.write_text("report.html", render_html(state))
    return paths


def judge_md(state: RunState) -> str:
    """The Judge's summary, then every round folded away in ``<details>``."""
    assert state.judge is not None
    out = [state.judge.text.strip(), "", "<details><summary>The rounds</summary>", ""]
    for t in state.turns:
        icon = "🔵" if t.side == "A" else "🔴"
        out += [f"#### Round {t.round_no} · {icon} Role {t.side} ({t.role_name})", "", t.prose, ""]
    out += ["</details>", ""]
    return "\n".join(out)


RESULT_SCHEMA = "collab.result/1"


def result_document(state: RunState, run_dir: RunDir) -> dict[str, object]:
    """The one JSON document ``--json`` prints for a run: stable, versioned by ``schema``."""
    from collab.ledger import ledger_to_dict

    cfg = state.config
    ledger = state.ledger()
    paths = {"run_dir": str(run_dir.path), "state": str(run_dir.state_path)}
    for key, name in (
        ("transcript", "transcript.md"),
        ("judge", "judge.md"),
        ("html", "report.html"),
    ):
        p = run_dir.path / name
        if p.exists():
            paths[key] = str(p)
    tokens = state.tokens()
    return {
        "schema": RESULT_SCHEMA,
        "run_id": state.run_id,
        "status": state.status,
        "stop_reason": state.stop_reason,
        "stop_detail": state.stop_detail,
        "error": state.error,
        "topic": cfg.topic,
        "preset": cfg.preset,
        "roles": {
            "A": {"name": cfg.role_a.name, "agent": cfg.agent_a.agent, "model": cfg.agent_a.model},
            "B": {"name": cfg.role_b.name, "agent": cfg.agent_b.agent, "model": cfg.agent_b.model},
            "judge": {"agent": cfg.judge.agent, "model": cfg.judge.model},
        },
        "rounds": {"done": state.rounds_done(), "planned": cfg.rounds},
        "ledger": ledger_to_dict(ledger),
        "counts": counts(ledger),
        "turns": [
            {
                "round": t.round_no,
                "side": t.side,
                "status": t.status,
                "prose": t.prose,
                "cost_usd": t.cost_usd,
                "duration_s": t.meta.duration,
                "warnings": list(t.warnings),
            }
            for t in state.turns
        ],
        "judge": None
        if state.judge is None
        else {"markdown": state.judge.text, "fallback": state.judge.fallback},
        "cost_usd": state.cost_usd(),
        "cost_usd_by_role": {"A": state.cost_usd("A"), "B": state.cost_usd("B")},
        "tokens": {
            "input": tokens.input_tokens,
            "output": tokens.output_tokens,
            "cache_read": tokens.cache_read_tokens,
            "cache_write": tokens.cache_write_tokens,
        },
        "paths": paths,
        "resume": None if state.status == "done" else f"collab resume {state.run_id}",
    }
