"""1. Turn-completion detection latency in the tmux runner, vs the origin skill's 2 s polling.

The agent runs for a random 0–0.6 s, so its exit lands at a random phase of our 5 ms
exit-file poll and of the runner's 0.25 s liveness probe (``tmux display-message``).
Latency = the moment ``runner.run()`` has the reply (time.time() on return) minus the
bench agent's last timestamp (``$EPOCHREALTIME``, written just before it exits). It
covers everything after the agent is done: bash's ``wait`` waking, the atomic
``<step>.exit`` write (printf + mv), our poll noticing it, and reading the outputs.

``ProcessResult.detect_latency`` (exit-file mtime → noticed) is reported too; file
timestamps use the kernel's coarse clock, so it is the less precise of the two.

The 2 s simulation launches the same script through the same pane and then checks for
the exit file every 2 s, as the origin skill's ``sleep 2`` loop does. Real agents run for
an arbitrary time, so the loop's phase relative to the agent's exit is random: the first
check comes at a uniformly random offset in [0, 2) s after launch.
"""

from __future__ import annotations

import time
from pathlib import Path

from bench.agent import AGENT_SCRIPT, read_agent_log
from bench.env import Ctx
from bench.results import BenchResult, le, spread
from bench.stats import median, percentile, summary

NAME = "detect"
SIM_INTERVAL = 2.0


def run(ctx: Ctx) -> BenchResult:
    from collab.runners.base import TurnJob
    from collab.runners.tmux import TmuxRunner
    from collab.runners.turnfiles import TurnDir

    res = BenchResult(NAME)
    env = ctx.env
    env.activate()
    n_ours = ctx.n(40, 150)
    n_sim = ctx.n(8, 24)
    tdir = TurnDir()
    runner = TmuxRunner(tdir, f"bench-detect-{env.socket[-6:]}")
    ours: list[float] = []
    mtime_lat: list[float] = []
    script_part: list[float] = []
    sim: list[float] = []
    counter = 0

    def job(tag: str, sleep: float) -> tuple[TurnJob, Path]:
        nonlocal counter
        counter += 1
        step = f"{tag}{counter}"
        log = env.new_log(step)
        agent_env = env.base_env()
        agent_env["BENCH_AGENT_LOG"] = str(log)
        agent_env["BENCH_AGENT_SLEEP"] = f"{sleep:.3f}"
        j = TurnJob(
            step=step,
            argv=(env.bash, str(AGENT_SCRIPT)),
            env=tuple(sorted(agent_env.items())),
            prompt="bench prompt\n",
            stdin_prompt=True,
            timeout=60.0,
        )
        return j, log

    def one_ours(record: bool) -> None:
        # The agent runs 0–0.6 s, so its exit falls at a random point of our 5 ms poll and
        # of the 0.25 s liveness probe (a `tmux display-message` that can delay a poll).
        j, log = job("d", ctx.rng.uniform(0.0, 0.6))
        result = runner.run(j)
        have = time.time()
        calls = read_agent_log(log)
        if result.exit_code != 0 or len(calls) != 1:
            raise RuntimeError(f"detect turn failed: exit {result.exit_code}, {len(calls)} calls")
        if record:
            ours.append(have - calls[0].end)
            mtime_lat.append(result.detect_latency)
            exit_mtime = tdir.file(j.step, "exit").stat().st_mtime
            script_part.append(exit_mtime - calls[0].end)

    def one_sim() -> None:
        j, log = job("s", 0.0)
        script = tdir.write(j)
        runner.launch(script)
        exit_path = tdir.file(j.step, "exit")
        check_at = time.monotonic() + ctx.rng.uniform(0.0, SIM_INTERVAL)
        while True:
            time.sleep(max(0.0, check_at - time.monotonic()))
            if exit_path.exists() and tdir.exit_code(j.step) is not None:
                tdir.outputs(j.step)
                have = time.time()
                break
            check_at += SIM_INTERVAL
        calls = read_agent_log(log)
        if len(calls) != 1:
            raise RuntimeError("simulated turn: the agent did not run")
        sim.append(have - calls[0].end)

    try:
        for _ in range(3):  # warm-up: pane shell, page cache
            one_ours(record=False)
        per_sim = max(1, n_ours // n_sim)
        while len(ours) < n_ours or len(sim) < n_sim:
            for _ in range(per_sim):
                if len(ours) < n_ours:
                    one_ours(record=True)
            if len(sim) < n_sim:
                one_sim()
            ctx.say(f"  detect: {len(ours)}/{n_ours} ours, {len(sim)}/{n_sim} simulated")
    finally:
        runner.close()
        tdir.cleanup()

    ms = 1000.0
    res.row(
        "detect latency, tmux (agent exit → reply) median",
        median(ours) * ms,
        "ms",
        le(50),
        spread(ours, "ms", ms),
    )
    res.row("detect latency, tmux p95", percentile(ours, 95) * ms, "ms", le(150), f"n={len(ours)}")
    res.row(
        "  of which: agent exit → exit file written",
        median(script_part) * ms,
        "ms",
        None,
        "bash wait + printf + mv (median)",
    )
    res.row(
        "  ProcessResult.detect_latency (exit mtime → noticed)",
        median(mtime_lat) * ms,
        "ms",
        None,
        spread(mtime_lat, "ms", ms) + " · coarse mtime clock",
    )
    res.row(
        "2 s polling simulation, median",
        median(sim) * ms,
        "ms",
        None,
        spread(sim, "ms", ms),
    )
    ratio = median(sim) / median(ours) if ours and median(ours) > 0 else float("nan")
    res.row("2 s polling / ours (median ratio)", ratio, "x", None, "higher = we are faster")
    res.data = {
        "ours_s": summary(ours),
        "exit_mtime_minus_agent_exit_s": summary(script_part),
        "detect_latency_field_s": summary(mtime_lat),
        "sim_2s_s": summary(sim),
        "ratio_median": ratio,
        "poll_interval_s": _poll_interval(),
    }
    return res


def _poll_interval() -> float:
    from collab.runners.turnfiles import POLL_INTERVAL

    return POLL_INTERVAL
