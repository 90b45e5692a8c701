"""A run as one self-contained HTML page, and the same outline as Markdown.

Every string in a RunState came from a user or a model, so text is escaped with
``html.escape`` before any markup is added. The judge's Markdown goes through a small
converter that only ever emits tags it wrote itself (no attributes from model text but
an escaped http(s) link target). The page also carries a Content-Security-Policy that
allows no script and no network, as a second wall. No JavaScript, no external assets.
"""

from __future__ import annotations

import html

from collab import __version__
from collab.ledger import Issue, Ledger, counts, get
from collab.markdown_html import FENCE_RE, HEADING_RE, markdown_to_html, prose_html
from collab.report import fmt_cost, ledger_table
from collab.state import RunState
from collab.text import clean
from collab.turns import TurnRecord

_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'none'"


def _esc(text: str) -> str:
    return html.escape(clean(text), quote=True)


# -- a small, safe Markdown subset ---------------------------------------------------------


def _pill(status: str, label: str | None = None) -> str:
    return f'<span class="pill {_esc(status)}">{_esc(label or status)}</span>'


def _agent(agent: str, model: str | None) -> str:
    return _esc(agent) + (f' <span class="muted">· {_esc(model)}</span>' if model else "")


def _tokens(state: RunState) -> str:
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


def _header(state: RunState) -> str:
    cfg = state.config
    judge_cost = (
        None if state.judge is None or state.judge.meta is None else state.judge.meta.cost_usd
    )
    roles = "".join(
        f'<div class="role {s.lower()}"><div class="label">Role {s}</div>'
        f'<div class="name">{_esc(r.name)}</div><div class="desc">{prose_html(r.description)}</div>'
        f'<div class="agent">agent: {_agent(a.agent, a.model)}</div></div>'
        for s, r, a in (("A", cfg.role_a, cfg.agent_a), ("B", cfg.role_b, cfg.agent_b))
    )
    stop = _esc(state.stop_reason or "—")
    if state.stop_detail:
        stop += f' <span class="muted">— {_esc(state.stop_detail)}</span>'
    facts = [
        ("Rounds", f"{state.rounds_done()} of {cfg.rounds} planned"),
        ("Stopped", stop),
        ("Cost", f"<strong>{fmt_cost(state.cost_usd())}</strong> <span class='muted'>"
                 f"(A {fmt_cost(state.cost_usd('A'))} · B {fmt_cost(state.cost_usd('B'))} · "
                 f"judge {fmt_cost(judge_cost)})</span>"),
        ("Tokens", _tokens(state)),
        ("Judge", _agent(cfg.judge.agent, cfg.judge.model)),
        ("Created", _esc(state.created.replace("T", " "))),
    ]  # fmt: skip
    if cfg.contexts:
        facts.append(("Context", ", ".join(f"<code>{_esc(c.path)}</code>" for c in cfg.contexts)))
    if state.error:
        facts.append(("Error", f'<span class="bad">{_esc(state.error)}</span>'))
    dl = "".join(f"<dt>{k}</dt><dd>{v}</dd>" for k, v in facts)
    return (
        f'<header><div class="kicker">collab debate · {_pill(state.status)} · '
        f"<code>{_esc(state.run_id)}</code> · preset {_esc(cfg.preset)}</div>"
        f"<h1>{_esc(cfg.topic)}</h1>"
        f'<div class="roles">{roles}</div><dl class="facts">{dl}</dl></header>'
    )


def _span(opened: int, updated: int) -> str:
    return f"R{opened}" if opened == updated else f"R{opened} → R{updated}"


def _ledger_html(ledger: Ledger) -> str:
    if not ledger.issues:
        return '<p class="muted">No issues were raised.</p>'
    c = counts(ledger)
    chips = " ".join(_pill(s, f"{c[s]} {s}") for s in ("open", "resolved", "dropped"))
    rows = "".join(
        f'<tr class="{i.status}"><td class="id">{_esc(i.id)}</td><td>{_pill(i.status)}</td>'
        f"<td><strong>{_esc(i.title)}</strong></td><td>{_esc(i.raised_by)}</td>"
        f"<td>{_esc(i.evidence_a) or '—'}</td><td>{_esc(i.evidence_b) or '—'}</td>"
        f'<td class="num">{_span(i.round_opened, i.round_updated)}</td></tr>'
        for i in ledger.issues
    )
    return (
        f'<p class="chips">{chips}</p><div class="scroll"><table class="ledger"><thead><tr>'
        "<th>id</th><th>status</th><th>issue</th><th>by</th><th>evidence A</th>"
        f"<th>evidence B</th><th>rounds</th></tr></thead><tbody>{rows}</tbody></table></div>"
    )


def _evolution(state: RunState) -> str:
    """Issue × round matrix: when each issue appeared and how its status moved."""
    final = state.ledger()
    columns: list[tuple[str, Ledger]] = [
        (f"R{n}", lg) for n, lg in enumerate(state.round_ledgers(), 1)
    ]
    if any(t.round_no > state.rounds_done() for t in state.turns):
        columns.append(("now", final))
    if not final.issues or not columns:
        return '<p class="muted">No issues to track.</p>'
    head = "".join(f"<th>{name}</th>" for name, _ in columns)
    rows: list[str] = []
    for issue in final.issues:
        cells: list[str] = []
        prev: str | None = None
        for _, lg in columns:
            now: Issue | None = get(lg, issue.id)
            if now is None:
                cells.append('<td class="none">·</td>')
                continue
            mark = "new" if prev is None else ("changed" if now.status != prev else "")
            flag = f' <span class="mark">{mark}</span>' if mark else ""
            cells.append(f"<td>{_pill(now.status)}{flag}</td>")
            prev = now.status
        label = (
            f'<th class="issue"><span class="id">{_esc(issue.id)}</span> {_esc(issue.title)}</th>'
        )
        rows.append(f"<tr>{label}{''.join(cells)}</tr>")
    foot = "".join(
        "<td>" + " · ".join(f'<span class="count {s}">{n}</span>' for s, n in counts(lg).items())
        + "</td>" for _, lg in columns
    )  # fmt: skip
    return (
        f'<div class="scroll"><table class="matrix"><thead><tr><th>issue</th>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody><tfoot><tr><th>open · resolved · dropped</th>{foot}</tr>"
        "</tfoot></table></div>"
    )


def _turn(t: TurnRecord) -> str:
    bits = [_pill(t.status), f"{t.meta.duration:.1f}s", fmt_cost(t.cost_usd)]
    if t.meta.attempts > 1:
        bits.append(f"{t.meta.attempts} attempts")
    if t.reask is not None:
        bits.append("re-asked for the json block")
    extra = []
    c = t.contract
    if c is not None and c.abstain:
        extra.append(f"<li><strong>abstained:</strong> {_esc(c.abstain)}</li>")
    if c is not None:
        extra += [
            f'<li><span class="tag new">new point</span> <strong>{_esc(p.title)}</strong>'
            f"{' — ' + _esc(p.evidence) if p.evidence else ''}</li>"
            for p in c.new_points
        ]
        extra += [
            f'<li><span class="tag {s.stance}">{s.stance}</span> <span class="id">{_esc(s.id)}'
            f"</span>{' — ' + _esc(s.evidence) if s.evidence else ''}</li>"
            for s in c.stances
        ]
    extra += [f'<li class="warn">⚠ {_esc(w)}</li>' for w in t.warnings]
    if t.contract_error and not t.warnings:
        extra.append(f'<li class="warn">⚠ json block: {_esc(t.contract_error)}</li>')
    moves = f'<ul class="moves">{"".join(extra)}</ul>' if extra else ""
    return (
        f'<article class="turn {t.side.lower()}"><div class="turn-head"><span class="side">Role '
        f"{t.side}</span> <strong>{_esc(t.role_name)}</strong>"
        f'<span class="meta">{" · ".join(bits)}</span></div>'
        f'<div class="prose">{prose_html(t.prose or "(empty)")}</div>{moves}</article>'
    )  # fmt: skip


def _rounds(state: RunState) -> str:
    out = []
    for r in sorted({t.round_no for t in state.turns}):
        angle = ""
        if state.angle is not None and state.angle.round_no == r:
            ids = ", ".join(_esc(x) for x in state.angle.issue_ids)
            angle = (f'<p class="angle"><strong>New angle injected</strong> (circling on {ids}): '
                     f"{_esc(state.angle.text)}</p>")  # fmt: skip
        turns = "".join(_turn(t) for t in state.turns if t.round_no == r)
        out.append(
            f'<section class="round" id="round-{r}"><h2>Round {r}</h2>{angle}{turns}</section>'
        )
    return "".join(out) or '<p class="muted">No turns were recorded.</p>'


def _judge_title(state: RunState) -> str:
    fallback = state.judge is not None and state.judge.fallback
    return "Summary (from the ledger)" if fallback else "Judge summary"


def render_html(state: RunState) -> str:
    cfg = state.config
    nav = [("summary", "Summary"), ("ledger", "Ledger"), ("evolution", "Evolution")]
    nav += [(f"round-{r}", f"Round {r}") for r in sorted({t.round_no for t in state.turns})]
    if state.judge is None:
        judge = '<p class="muted">No judge summary yet (the run has not finished).</p>'
    else:
        # A fallback summary says itself that the Judge did not answer; the title says it too.
        judge = markdown_to_html(state.judge.text, heading_shift=1)
    warnings = ""
    if state.warnings:
        items = "".join(f"<li>{_esc(w)}</li>" for w in state.warnings)
        warnings = (
            f'<section id="warnings"><h2>Warnings</h2><ul class="warn">{items}</ul></section>'
        )
    return f"""<!doctype html>
<html lang="{"ja" if cfg.lang == "ja" else "en"}">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{_CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="generator" content="collab {__version__}">
<title>collab · {_esc(cfg.topic[:120])}</title>
<style>{_CSS}</style>
</head>
<body><main>
{_header(state)}
<nav>{" ".join(f'<a href="#{key}">{label}</a>' for key, label in nav)}</nav>
<section id="summary" class="judge"><h2>{_judge_title(state)}</h2>{judge}</section>
<section id="ledger"><h2>Final ledger</h2>{_ledger_html(state.ledger())}</section>
<section id="evolution"><h2>Ledger evolution</h2>{_evolution(state)}</section>
{_rounds(state)}
{warnings}
<footer>Generated by collab {__version__} · run <code>{_esc(state.run_id)}</code></footer>
</main></body>
</html>
"""


# -- the same outline as Markdown ----------------------------------------------------------


def _md_cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _demote(md: str) -> str:
    """Push the judge's headings one level down so they sit under our section heading."""
    out, fence = [], ""
    for line in md.split("\n"):
        m = FENCE_RE.match(line)
        if m and (not fence or line.strip().startswith(fence)):
            fence = "" if fence else m[1]
        elif not fence and HEADING_RE.match(line) and not line.lstrip().startswith("######"):
            line = "#" + line.lstrip()
        out.append(line)
    return "\n".join(out)


def _md_agent(agent: str, model: str | None) -> str:
    return f"{agent} · {model}" if model else agent


def _md_turn(t: TurnRecord) -> list[str]:
    out = [
        f"### Role {t.side} ({t.role_name}) · {t.status} · {t.meta.duration:.1f}s · "
        f"{fmt_cost(t.cost_usd)}",
        "",
        t.prose,
        "",
    ]
    moves = []
    if t.contract is not None:
        moves += [f"- new point: **{p.title}** — {p.evidence}" for p in t.contract.new_points]
        moves += [f"- {s.stance} {s.id}: {s.evidence}" for s in t.contract.stances]
    moves += [f"- ⚠ {w}" for w in t.warnings]
    return out + ([*moves, ""] if moves else [])


def render_markdown_report(state: RunState) -> str:
    """The HTML page's outline as Markdown (the transcript keeps the chronological view)."""
    cfg = state.config
    ledger = state.ledger()
    out = [
        f"# Debate: {cfg.topic}",
        "",
        f"- Run `{state.run_id}` · {state.status} · preset {cfg.preset} · created {state.created}",
        *(
            f"- Role {r.side}: **{r.name}** ({_md_agent(a.agent, a.model)}) — {r.description}"
            for r, a in ((cfg.role_a, cfg.agent_a), (cfg.role_b, cfg.agent_b))
        ),
        f"- Judge: {_md_agent(cfg.judge.agent, cfg.judge.model)}",
        f"- Rounds: {state.rounds_done()} of {cfg.rounds} · stopped: {state.stop_reason or '—'}"
        + (f" — {state.stop_detail}" if state.stop_detail else ""),
        f"- Cost: {fmt_cost(state.cost_usd())} (A {fmt_cost(state.cost_usd('A'))}, "
        f"B {fmt_cost(state.cost_usd('B'))}) · tokens: {_tokens(state)}",
    ]
    if state.error:
        out.append(f"- Error: {state.error}")
    judge = "_No judge summary yet._" if state.judge is None else _demote(state.judge.text.strip())
    out += ["", f"## {_judge_title(state)}", "", judge, "", "## Final ledger", ""]
    out.append(ledger_table(ledger.issues))
    lgs = state.round_ledgers()
    if ledger.issues and lgs:
        rounds = " | ".join(f"R{n}" for n in range(1, len(lgs) + 1))
        out += ["## Ledger evolution", "", f"| issue | {rounds} |", "|---|" + "---|" * len(lgs)]
        for issue in ledger.issues:
            cells = " | ".join(i.status if (i := get(lg, issue.id)) else "·" for lg in lgs)
            out.append(f"| {issue.id} {_md_cell(issue.title)} | {cells} |")
        out.append("")
    current = 0
    for t in state.turns:
        if t.round_no != current:
            current = t.round_no
            out += [f"## Round {current}", ""]
        out += _md_turn(t)
    if state.warnings:
        out += ["## Warnings", "", *(f"- {w}" for w in state.warnings), ""]
    return "\n".join(out).rstrip() + "\n"


_CSS = """
:root{--bg:#f5f6f8;--fg:#1c2230;--muted:#5d6878;--card:#fff;--line:#dfe3e9;--soft:#eef1f5;
--a:#1f6feb;--b:#cf222e;--open-bg:#fff1b8;--open-fg:#6b4e00;--resolved-bg:#d3f5dc;
--resolved-fg:#116329;--dropped-bg:#e4e7eb;--dropped-fg:#57606a;--bad:#cf222e;--link:#0a58ca}
@media screen and (prefers-color-scheme:dark){:root{--bg:#0e1117;--fg:#e3e7ed;--muted:#98a3b3;
--card:#161b22;--line:#2b323c;--soft:#1f252e;--a:#58a6ff;--b:#ff7b72;--open-bg:#47380a;--open-fg:#f5d36b;
--resolved-bg:#12391f;--resolved-fg:#7ee2a0;--dropped-bg:#2a3038;--dropped-fg:#aab3bf;
--bad:#ff7b72;--link:#79b8ff}}
*{box-sizing:border-box}
html{color-scheme:light dark}
body{margin:0;background:var(--bg);color:var(--fg);font:16px/1.6 system-ui,-apple-system,
"Segoe UI",Roboto,"Noto Sans","Helvetica Neue",Arial,"Hiragino Sans","Noto Sans CJK JP",sans-serif}
main{max-width:62rem;margin:0 auto;padding:2.5rem 1.25rem 4rem}
h1{font-size:1.9rem;line-height:1.25;margin:.3rem 0 1.2rem;overflow-wrap:anywhere}
h2{font-size:1.35rem;margin:2.6rem 0 .9rem;padding-bottom:.35rem;
border-bottom:1px solid var(--line)}
h3{font-size:1.12rem;margin:1.4rem 0 .5rem}h4,h5,h6{font-size:1rem;margin:1.2rem 0 .4rem}
a{color:var(--link)}code{font:.88em/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;
background:var(--soft);padding:.1em .35em;border-radius:4px}
pre{background:var(--soft);padding:.8rem 1rem;border-radius:8px;overflow:auto}
pre code{padding:0;background:none}
blockquote{margin:1rem 0;padding:.2rem 1rem;border-left:4px solid var(--line);color:var(--muted)}
.muted{color:var(--muted)}.bad{color:var(--bad)}
.kicker{color:var(--muted);font-size:.9rem}
.roles{display:grid;grid-template-columns:1fr 1fr;gap:1rem;margin:1rem 0}
.role{background:var(--card);border:1px solid var(--line);border-top:4px solid var(--a);
border-radius:10px;padding:.9rem 1.1rem}.role.b{border-top-color:var(--b)}
.role .label{font-size:.78rem;text-transform:uppercase;letter-spacing:.06em;color:var(--a);
font-weight:700}.role.b .label{color:var(--b)}
.role .name{font-weight:700;font-size:1.1rem}.role .desc{font-size:.92rem;color:var(--muted)}
.role .desc p{margin:.4rem 0}.role .agent{font-size:.85rem}
.facts{display:grid;grid-template-columns:max-content 1fr;gap:.3rem 1.2rem;margin:1rem 0;
background:var(--card);border:1px solid var(--line);border-radius:10px;padding:.9rem 1.1rem}
.facts dt{color:var(--muted);font-weight:600}.facts dd{margin:0;overflow-wrap:anywhere}
nav{position:sticky;top:0;z-index:1;background:var(--bg);padding:.6rem 0;
border-bottom:1px solid var(--line);display:flex;flex-wrap:wrap;gap:.4rem 1rem;font-size:.92rem}
nav a{text-decoration:none}
.judge{background:var(--card);border:1px solid var(--line);border-radius:10px;
padding:.2rem 1.4rem 1rem;margin-top:2rem}.judge>h2{border:0;margin-top:1.2rem}
.note{background:var(--open-bg);color:var(--open-fg);padding:.5rem .8rem;border-radius:6px}
.scroll{overflow-x:auto}
table{border-collapse:collapse;width:100%;font-size:.9rem;margin:.8rem 0;background:var(--card)}
th,td{border:1px solid var(--line);padding:.4rem .6rem;text-align:left;vertical-align:top;
overflow-wrap:anywhere}thead th{background:var(--soft)}td.c,th.c{text-align:center}
td.r,th.r{text-align:right}td.num{white-space:nowrap}
.pill{display:inline-block;padding:.05rem .55rem;border-radius:999px;font-size:.78rem;
font-weight:600;white-space:nowrap;background:var(--dropped-bg);color:var(--dropped-fg)}
.pill.open{background:var(--open-bg);color:var(--open-fg)}
.pill.resolved,.pill.ok,.pill.done{background:var(--resolved-bg);color:var(--resolved-fg)}
.pill.timeout,.pill.error,.pill.no-response,.pill.failed{background:#ffd8d3;color:#8a1c12}
.pill.running,.pill.interrupted{background:var(--open-bg);color:var(--open-fg)}
tr.open td.id{box-shadow:inset 4px 0 var(--open-fg)}tr.resolved td.id{box-shadow:inset 4px 0
var(--resolved-fg)}tr.dropped td{color:var(--muted)}
.id{font-weight:700;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
.chips .pill{font-size:.85rem;margin-right:.3rem}
.matrix td{text-align:center;white-space:nowrap}.matrix td.none{color:var(--muted)}
.matrix th.issue{font-weight:400;min-width:14rem}.mark{font-size:.72rem;color:var(--muted)}
.count{display:inline-block;min-width:1.4em;font-weight:700}.count.open{color:var(--open-fg)}
.count.resolved{color:var(--resolved-fg)}.count.dropped{color:var(--dropped-fg)}
.turn{background:var(--card);border:1px solid var(--line);border-left:5px solid var(--a);
border-radius:10px;padding:.8rem 1.2rem;margin:1rem 0;break-inside:avoid}
.turn.b{border-left-color:var(--b)}
.turn-head{display:flex;flex-wrap:wrap;align-items:baseline;gap:.5rem}
.turn .side{font-size:.78rem;text-transform:uppercase;letter-spacing:.06em;font-weight:700;
color:var(--a)}.turn.b .side{color:var(--b)}
.turn .meta{margin-left:auto;color:var(--muted);font-size:.85rem}
.prose{overflow-wrap:anywhere}.prose p{margin:.6rem 0}
.moves{list-style:none;padding:.6rem 0 0;margin:.4rem 0 0;border-top:1px dashed var(--line);
font-size:.9rem}.moves li{margin:.25rem 0}
.tag{display:inline-block;font-size:.72rem;font-weight:700;text-transform:uppercase;
letter-spacing:.04em;padding:0 .45rem;border-radius:4px;background:var(--soft)}
.tag.agree{color:var(--resolved-fg)}.tag.contest{color:var(--bad)}.tag.drop{color:var(--muted)}
.tag.new{color:var(--a)}.warn{color:var(--bad)}
.angle{background:var(--soft);border-radius:8px;padding:.6rem 1rem}
footer{margin-top:3rem;color:var(--muted);font-size:.85rem}
@media (max-width:720px){.roles{grid-template-columns:1fr}}
@media print{nav{display:none}
main{max-width:none;padding:0}.turn,.role,.judge,tr{break-inside:avoid}
h2{break-after:avoid}a{color:inherit}}
"""
