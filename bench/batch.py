"""4. Batch scaling, and 5c. memory of a parallel-8 batch.

``python -m collab batch topics.txt --parallel N --json --agent bench --runner tmux`` over
20 topics; the bench agent sleeps 1 s per turn (judge included). Rounds: 2 in quick
mode, 3 in full. Parallel 1, 2, 4, 8 (and, in full mode, parallel 4 with the subprocess
runner).

efficiency = ideal wall / measured wall, ideal = serial agent time / parallel, where the
serial agent time is the sum of every agent process's own duration (from the agent log).
With 20 equal debates, parallel 8 cannot beat ceil(20/8) = 3 waves: its best possible
efficiency is (20/8)/3 = 0.83; that bound is shown next to it.

"slot overhead per debate" = (parallel × wall − serial agent time) / 20: the average time a
slot spent on anything but agents (child start-up, turn overhead, the batch's 0.02 s
scheduler poll, idle slots in the last wave).

Memory (parallel 8, tmux): /proc is sampled every 50 ms; "parent + children" is the peak
of VmRSS summed over the batch process and its ``collab.batch.child`` children at one instant;
per child is each child's VmHWM. The agents run in tmux panes, not under the batch.
"""

from __future__ import annotations

import json
import math
import os
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from bench.agent import AgentCall, read_agent_log
from bench.env import Ctx, python_exe
from bench.inproc import debate_config, new_run
from bench.procs import run_watched
from bench.results import BenchResult, ge, le
from bench.stats import median, summary

NAME = "batch"
TOPICS = 20
SLEEP = 1.0

_SUBJECTS = (
    "JWT vs server sessions",
    "monorepo vs polyrepo",
    "Postgres vs DynamoDB for orders",
    "GraphQL vs REST for the public API",
    "feature flags in code vs a vendor",
    "Kubernetes vs plain VMs",
    "trunk-based development vs git-flow",
    "Rust rewrite of the parser",
    "SPA vs server-rendered pages",
    "event sourcing for billing",
    "gRPC between services",
    "self-hosted CI vs a hosted one",
    "one big database vs one per service",
    "TypeScript strict mode everywhere",
    "on-call for every developer",
    "ORM vs hand-written SQL",
    "a design system team",
    "mutation testing in CI",
    "weekly vs continuous releases",
    "multi-region active-active",
)


def run(ctx: Ctx) -> BenchResult:
    res = BenchResult(NAME)
    env = ctx.env
    env.activate()
    rounds = 2 if ctx.quick else 3
    turns = 2 * rounds + 1
    topics = env.root / "topics.txt"
    topics.write_text(
        "\n".join(f"Should we adopt {_SUBJECTS[i % len(_SUBJECTS)]}?" for i in range(TOPICS))
        + "\n",
        encoding="utf-8",
    )
    plan: list[tuple[int, str]] = [(1, "tmux"), (2, "tmux"), (4, "tmux"), (8, "tmux")]
    if not ctx.quick:
        plan.append((4, "subprocess"))
    child = resume_children(ctx, rounds, ctx.n(5, 10))
    runs: dict[str, dict[str, Any]] = {}
    for parallel, runner in plan:
        key = f"{runner}-p{parallel}"
        ctx.say(f"  batch: {key} ({TOPICS} topics × {turns} turns × {SLEEP:g} s)")
        runs[key] = one(ctx, topics, parallel, runner, rounds, turns, rss=key == "tmux-p8")
        ctx.say(
            f"  batch: {key} wall {runs[key]['wall_s']:.1f} s, "
            f"efficiency {runs[key]['efficiency']:.2f}"
        )
    for key, r in runs.items():
        p = r["parallel"]
        target = ge(0.9) if key == "tmux-p4" else None
        bound = r["efficiency_bound"]
        res.row(
            f"batch efficiency, {r['runner']}, parallel {p}",
            r["efficiency"],
            "x",
            target,
            f"wall {r['wall_s']:.1f} s · ideal {r['ideal_s']:.1f} s · per debate: "
            f"{r['slot_overhead_per_debate_s']:.2f} s overhead = "
            f"{median(r['in_debate_overhead_s']['samples']):.2f} in-debate + "
            f"{r['outside_debate_per_debate_s']:.2f} start-up/exit/scheduling"
            + (f" · best possible {bound:.2f}" if bound < 0.999 else "")
            + f" · load {r['loadavg']['start'][0]:.1f}→{r['loadavg']['end'][0]:.1f}",
        )
    p1 = runs.get("tmux-p1")
    if p1 and p1["gap_between_debates_s"]:
        res.row(
            "  batch p1: gap between debates (last turn → next run's first turn)",
            p1["gap_between_debates_s"]["median"],
            "s",
            None,
            "child exit + batch scheduler + next child's start-up to its first turn",
        )
    res.row(
        "  batch child alone: spawn → first turn",
        child["spawn_to_first_turn_s"]["median"],
        "s",
        None,
        f"`python -m collab resume ID --json`, instant agent, n={child['n']}",
    )
    res.row(
        "  batch child alone: last turn → exit",
        child["last_turn_to_exit_s"]["median"],
        "s",
        None,
        "judge pickup, reports, JSON, pane close, interpreter exit",
    )
    if p1 and p1["gap_between_debates_s"]:
        implied = (
            p1["gap_between_debates_s"]["median"]
            - child["spawn_to_first_turn_s"]["median"]
            - child["last_turn_to_exit_s"]["median"]
        )
        res.row(
            "  batch p1: implied scheduler delay (gap − child start-up − child exit)",
            implied,
            "s",
            None,
            f"collab.batch.pool.POLL = {_batch_poll():g} s",
        )
    mem = runs.get("tmux-p8", {}).get("memory")
    if mem:
        res.row(
            "peak RSS, batch parallel 8: parent + children",
            mem["tree_peak_mb"],
            "MB",
            None,
            f"Σ VmRSS at one instant · {mem['samples']} samples",
        )
        res.row("peak RSS, batch parent (VmHWM)", mem["parent_hwm_mb"], "MB", None, "")
        res.row(
            "peak RSS, batch child `collab resume` (max VmHWM)",
            mem["child_hwm_mb"]["max"],
            "MB",
            le(80),
            f"median {mem['child_hwm_mb']['median']:.1f} MB over {mem['child_hwm_mb']['n']} "
            "children",
        )
    res.data = {
        "rounds": rounds,
        "turns_per_debate": turns,
        "sleep_s": SLEEP,
        "runs": runs,
        "resume_child_alone": child,
        "batch_poll_s": _batch_poll(),
    }
    return res


def one(
    ctx: Ctx, topics: Any, parallel: int, runner: str, rounds: int, turns: int, rss: bool
) -> dict[str, Any]:
    env = ctx.env
    log = env.new_log(f"batch-{runner}-p{parallel}")
    argv = [
        python_exe(),
        "-m",
        "collab",
        "batch",
        str(topics),
        "--parallel",
        str(parallel),
        "--json",
        "--agent",
        "bench",
        "--runner",
        runner,
        "--rounds",
        str(rounds),
    ]
    child_env = env.child_env(
        BENCH_AGENT_LOG=str(log), BENCH_AGENT_SLEEP=f"{SLEEP:g}", BENCH_AGENT_TAG="1"
    )
    load0 = os.getloadavg()
    t_start = time.time()
    w = run_watched(argv, child_env, env.work, interval=0.05, tree=rss, timeout=1800)
    load1 = os.getloadavg()
    calls = read_agent_log(log)
    try:
        doc = json.loads(w.stdout)
    except json.JSONDecodeError:
        doc = {}
    statuses = [r.get("status") for r in doc.get("runs", [])]
    if w.returncode != 0 or doc.get("status") != "done" or len(calls) != TOPICS * turns:
        raise RuntimeError(
            f"batch {runner} p{parallel}: exit {w.returncode}, status {doc.get('status')}, "
            f"runs {statuses}, {len(calls)}/{TOPICS * turns} agent calls; "
            f"stderr: {w.stderr.strip()[-300:]}"
        )
    serial = sum(c.duration for c in calls)
    # Group the turns by run: each run has its own temp dir, where the prompt files live.
    by_run: dict[str, list[AgentCall]] = defaultdict(list)
    for c in calls:
        by_run[str(Path(c.stdin).parent)].append(c)
    spans = sorted(
        (min(c.start for c in cs), max(c.end for c in cs), sum(c.duration for c in cs))
        for cs in by_run.values()
    )
    inside = [end - start - agents for start, end, agents in spans]
    outside = (parallel * w.wall - sum(end - start for start, end, _ in spans)) / TOPICS
    gaps = [spans[i + 1][0] - spans[i][1] for i in range(len(spans) - 1)]
    ideal = serial / parallel
    waves = math.ceil(TOPICS / parallel)
    out: dict[str, Any] = {
        "runner": runner,
        "parallel": parallel,
        "rounds": rounds,
        "wall_s": w.wall,
        "serial_agent_s": serial,
        "ideal_s": ideal,
        "efficiency": ideal / w.wall,
        "efficiency_bound": (TOPICS / parallel) / waves,
        "slot_overhead_per_debate_s": (parallel * w.wall - serial) / TOPICS,
        "in_debate_overhead_s": summary(inside),
        "outside_debate_per_debate_s": outside,
        "runs_seen": len(by_run),
        "gap_between_debates_s": summary(gaps) if parallel == 1 else None,
        "first_agent_after_s": calls[0].start - t_start,
        "last_agent_to_exit_s": (t_start + w.wall) - max(c.end for c in calls),
        "agent_calls": len(calls),
        "loadavg": {"start": load0, "end": load1},
    }
    if rss:
        child_hwm = [kb / 1024 for kb in w.child_hwm_kb.values()]
        out["memory"] = {
            "tree_peak_mb": w.tree_peak_kb / 1024,
            "parent_hwm_mb": w.hwm_kb / 1024,
            "child_hwm_mb": summary(child_hwm),
            "children_seen": len(child_hwm),
            "samples": w.samples,
        }
    return out


def _batch_poll() -> float:
    from collab.batch.pool import POLL

    return POLL


def resume_children(ctx: Ctx, rounds: int, n: int) -> dict[str, Any]:
    """What a batch child costs on its own: ``collab resume ID --json`` of a pending run
    (as ``Batch`` spawns it, in a shared tmux session), with the instant agent."""
    env = ctx.env
    _, cfg = debate_config(_SUBJECTS[0], "bench", rounds, "tmux")
    first: list[float] = []
    tail: list[float] = []
    walls: list[float] = []
    for i in range(n + 1):  # the first one warms up
        _, run_dir = new_run(cfg, "pending")
        log = env.new_log("resume-child")
        argv = [python_exe(), "-m", "collab", "resume", run_dir.run_id, "--json"]
        child_env = env.child_env(
            BENCH_AGENT_LOG=str(log), COLLAB_TMUX_SESSION=f"collab-bench-{env.socket[-6:]}"
        )
        t0 = time.time()
        w = run_watched(argv, child_env, env.work)
        calls = read_agent_log(log)
        if w.returncode != 0 or len(calls) != 2 * rounds + 1:
            raise RuntimeError(f"resume child: exit {w.returncode}: {w.stderr.strip()[-300:]}")
        if i == 0:
            continue
        first.append(calls[0].start - t0)
        tail.append(t0 + w.wall - calls[-1].end)
        walls.append(w.wall)
    return {
        "n": n,
        "spawn_to_first_turn_s": summary(first),
        "last_turn_to_exit_s": summary(tail),
        "wall_s": summary(walls),
    }
