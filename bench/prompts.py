"""3. Prompt growth over a 7-round debate with a realistic ledger (collab.prompts.Prompts).

Each turn: ~900 characters of prose, two new points (title ~60, evidence 150–400
characters) and stances on earlier issues: the opponent's two newest points (contest, or
agree about a third of the time, which resolves them), one older open issue of the
opponent's (contest, with fresh evidence) every other turn, and now and then a drop of
one's own stale point. Replies go through ``collab.contract_parse.parse`` and the ledger through
``collab.ledger.apply``, exactly as in a run.

Reported: the role prompt's size per round (mean of A and B), round 7 / round 2, what the
ledger table and the shown replies contribute, and "what if" sizes for ledgers rendered
more compactly (the same public ``Prompts.role`` fed a trimmed ledger), to size a fix.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from bench.agent import contract_block, prose
from bench.env import Ctx
from bench.results import BenchResult, le, spread
from bench.stats import median, summary

if TYPE_CHECKING:
    from collab.config import DebateConfig
    from collab.ledger import Ledger
    from collab.prompts import Prompts, TurnView
    from collab.seats import Side

NAME = "prompts"
ROUNDS = 7
TOPIC = "Should our public API replace server-side sessions with stateless JWTs?"


def _config() -> DebateConfig:
    from collab.agents import BUILTIN
    from collab.options import DebateRequest
    from collab.request import build_config

    return build_config(DebateRequest(topic=TOPIC, rounds=ROUNDS, lang="en"), BUILTIN.keys())


def _reply(rng: random.Random, ledger: Ledger, side: Side, round_no: int, seed: int) -> str:
    opp: Side = "B" if side == "A" else "A"  # the two-seat debate this bench measures
    open_opp = [i for i in ledger.issues if i.status == "open" and i.raised_by == opp]
    stances: list[tuple[str, str, str]] = []
    for issue in open_opp[-2:]:
        kind = "agree" if rng.random() < 0.33 else "contest"
        stances.append((issue.id, kind, prose(rng.randint(150, 400), seed + len(stances))))
    older = open_opp[:-2]
    if older and (seed % 2 == 0):
        issue = rng.choice(older)
        stances.append((issue.id, "contest", prose(rng.randint(150, 400), seed + 7)))
    mine = [
        i
        for i in ledger.issues
        if i.status == "open" and i.raised_by == side and i.round_updated <= round_no - 2
    ]
    if mine and rng.random() < 0.3:
        stances.append((mine[0].id, "drop", ""))
    new = [
        (prose(rng.randint(40, 80), seed * 3 + k), prose(rng.randint(150, 400), seed * 5 + k))
        for k in (1, 2)
    ]
    return prose(rng.randint(850, 950), seed) + "\n\n" + contract_block(new, stances)


def simulate(
    p: Prompts, cfg: DebateConfig, seed: int, what_if: WhatIf | None = None
) -> tuple[list[dict[str, Any]], Ledger, list[TurnView]]:
    """Play 7 rounds; returns per-turn sizes, the final ledger and the history."""
    from collab.contract_parse import parse
    from collab.ledger import Ledger, apply
    from collab.prompts import TurnView

    rng = random.Random(seed)
    ledger = Ledger()
    history: list[TurnView] = []
    rows: list[dict[str, Any]] = []
    n = 0
    for r in range(1, ROUNDS + 1):
        for side in ("A", "B"):
            n += 1
            shown = what_if.ledger(ledger, r) if what_if and what_if.ledger else ledger
            seen = what_if.history(history, r) if what_if and what_if.history else history
            t0 = time.perf_counter()
            text = p.role(cfg, side, r, shown, seen, None)
            render = time.perf_counter() - t0
            empty_ledger = p.role(cfg, side, r, Ledger(), seen, None)
            no_history = p.role(cfg, side, r, shown, [], None)
            rows.append({
                "round": r,
                "side": side,
                "chars": len(text),
                "bytes": len(text.encode("utf-8")),
                "ledger_chars": len(text) - len(empty_ledger),
                "history_chars": len(text) - len(no_history),
                "issues": len(ledger.issues),
                "open": sum(1 for i in ledger.issues if i.status == "open"),
                "render_s": render,
            })  # fmt: skip
            reply = _reply(rng, ledger, side, r, n * 101)
            parsed = parse(reply, [i.id for i in ledger.issues])
            if parsed.contract is None:
                raise RuntimeError(f"bench reply rejected: {parsed.error}")
            ledger = apply(ledger, side, r, parsed.contract)
            role = cfg.role(side)
            history.append(TurnView(r, side, role.name, parsed.prose, "ok"))
    return rows, ledger, history


def _per_round(rows: list[dict[str, Any]], key: str = "chars") -> dict[int, float]:
    out: dict[int, float] = {}
    for r in range(1, ROUNDS + 1):
        xs = [row[key] for row in rows if row["round"] == r]
        out[r] = sum(xs) / len(xs)
    return out


# "What if" ledgers and histories, to size a fix without touching collab.


def _closed_title_only(ledger: Ledger, round_no: int) -> Ledger:
    """Resolved/dropped issues keep their row but lose their evidence."""
    return replace(
        ledger,
        issues=tuple(
            i if i.status == "open" else replace(i, evidence_a="", evidence_b="")
            for i in ledger.issues
        ),
    )


def _recent_only(ledger: Ledger, round_no: int, cap: int = 150) -> Ledger:
    """Evidence (≤ cap chars) only for open issues touched in the previous round or this
    one; every other row is id, status and title only."""
    return replace(
        ledger,
        issues=tuple(
            replace(i, evidence_a=i.evidence_a[:cap], evidence_b=i.evidence_b[:cap])
            if i.status == "open" and i.round_updated >= round_no - 1
            else replace(i, evidence_a="", evidence_b="")
            for i in ledger.issues
        ),
    )


def _last_round(history: list[TurnView], round_no: int) -> list[TurnView]:
    return [t for t in history if t.round_no >= round_no - 1]


@dataclass(frozen=True)
class WhatIf:
    ledger: Callable[[Ledger, int], Ledger] | None = None
    history: Callable[[list[TurnView], int], list[TurnView]] | None = None


WHAT_IFS: dict[str, WhatIf] = {
    "closed issues without evidence": WhatIf(_closed_title_only),
    "evidence ≤150 chars, only open issues touched last round": WhatIf(_recent_only),
    "… and only the previous round's replies": WhatIf(_recent_only, _last_round),
}


def run(ctx: Ctx) -> BenchResult:
    from collab.prompts import Prompts

    res = BenchResult(NAME)
    ctx.env.activate()
    cfg = _config()
    builds: list[float] = []
    for _ in range(ctx.n(10, 30)):
        t0 = time.perf_counter()
        Prompts(cfg.lang)
        builds.append(time.perf_counter() - t0)
    p = Prompts(cfg.lang)
    from collab.judge.answer import labels_for

    seeds = list(range(ctx.n(3, 10)))
    ratios: list[float] = []
    all_rows: list[list[dict[str, Any]]] = []
    judge_sizes: list[int] = []
    for seed in seeds:
        rows, ledger, history = simulate(p, cfg, seed)
        all_rows.append(rows)
        per = _per_round(rows)
        ratios.append(per[7] / per[2])
        labels = labels_for("bench-prompts", "A", cfg.role_a.name, cfg.role_b.name)
        judge_sizes.append(len(p.judge(cfg, ledger, history, "max-rounds", labels)))
    first = all_rows[0]
    per = _per_round(first)
    for r in range(1, ROUNDS + 1):
        xs = [row for row in first if row["round"] == r]
        res.row(
            f"role prompt size, round {r} (mean of A, B)",
            per[r],
            "chars",
            None,
            f"ledger {sum(x['ledger_chars'] for x in xs) / 2:,.0f} · replies "
            f"{sum(x['history_chars'] for x in xs) / 2:,.0f} · {xs[0]['issues']} issues "
            f"({xs[0]['open']} open)",
        )
    res.row(
        "prompt growth, round 7 / round 2",
        median(ratios),
        "x",
        le(1.5),
        f"median over {len(ratios)} seeded debates · max {max(ratios):.2f}×",
    )
    res.row(
        "judge prompt after 7 rounds",
        median([float(s) for s in judge_sizes]),
        "chars",
        None,
        "all rounds' prose + the full ledger",
    )
    res.row(
        "Prompts() construction",
        median(builds) * 1000,
        "ms",
        None,
        spread(builds, "ms", 1000) + " · Jinja env + 3 templates + angles.toml",
    )
    renders = [row["render_s"] for rows in all_rows for row in rows]
    res.row("role prompt render", median(renders) * 1000, "ms", None, spread(renders, "ms", 1000))
    what_if: dict[str, Any] = {}
    for label, what in WHAT_IFS.items():
        wr: list[float] = []
        sizes: list[dict[int, float]] = []
        for seed in seeds:
            rows, _, _ = simulate(p, cfg, seed, what)
            per_w = _per_round(rows)
            sizes.append(per_w)
            wr.append(per_w[7] / per_w[2])
        what_if[label] = {"ratio": summary(wr), "per_round_chars_seed0": sizes[0]}
        res.row(
            f"  what if: {label}",
            median(wr),
            "x",
            None,
            f"round 7 = {sizes[0][7]:,.0f} chars (seed 0)",
        )
    res.data = {
        "per_turn_seed0": first,
        "per_round_chars": {
            str(s): _per_round(rows) for s, rows in zip(seeds, all_rows, strict=True)
        },
        "ratio_r7_r2": summary(ratios),
        "judge_chars": summary([float(s) for s in judge_sizes]),
        "prompts_construction_s": summary(builds),
        "render_s": summary(renders),
        "what_if": what_if,
    }
    return res
