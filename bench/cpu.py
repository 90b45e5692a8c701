"""5c. What the quick commands cost in CPU time, as ratios to typer's own import.

CPU time (user + sys of the child, from ``wait4``) rather than wall time: on a shared
2-core machine the load moves wall time, not the work done. Every command and its
reference run interleaved, ``n`` times each; the table gives medians and the ratio of
medians, and the load average before and after (``os.getloadavg``).

- ``collab --version``, ``collab list --json``, ``collab status ID --json``: ≤ 2× the CPU
  time of ``python -c "import typer"`` (what scripts and skills call);
- ``collab --help``: ≤ 1.5× ``python -c "import typer.rich_utils"`` (typer's rich help).

Children run with a private bytecode cache (as an installed collab would), from a
neutral working directory, in the bench's COLLAB_HOME (one finished run for ``status``);
``collab list --json`` also with a history: a COLLAB_HOME of 100 saved runs
(:mod:`bench.saved_runs`: finished, interrupted, migrated, damaged, not JSON).
"""

from __future__ import annotations

import os
import subprocess

from bench.env import REPO, Ctx, python_exe
from bench.results import BenchResult, le, spread
from bench.stats import interleave, median

NAME = "cpu"
LIST_100 = "collab list --json, 100 saved runs"


def cpu_seconds(argv: list[str], env: dict[str, str], cwd: str) -> float:
    """User + sys CPU seconds of one child process (and anything it waited for)."""
    proc = subprocess.Popen(
        argv, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} exited {proc.returncode}")
    return usage.ru_utime + usage.ru_stime


def _a_run(env: dict[str, str], cwd: str) -> str:
    """A run dir holding one saved run (for ``collab status ID``); its id."""
    code = (
        "from collab.options import DebateRequest\n"
        "from collab.request import build_config\n"
        "from collab.state import RunState\n"
        "from collab.store import RunDir, new_run_id\n"
        "cfg = build_config(DebateRequest(topic='bench', agent_a='bench', agent_b='bench',"
        " judge_agent='bench'), {'bench'})\n"
        "rd = RunDir(new_run_id()); rd.create()\n"
        "rd.save(RunState(run_id=rd.run_id, config=cfg).to_dict()); print(rd.run_id)\n"
    )
    out = subprocess.run(
        [python_exe(), "-c", code], env=env, cwd=cwd, capture_output=True, text=True, check=True
    )
    return out.stdout.strip()


def _saved_runs(env: dict[str, str], cwd: str) -> dict[str, str]:
    """``env`` with a COLLAB_HOME of its own holding 100 saved runs (bench.saved_runs)."""
    home = os.path.join(cwd, "home-100-runs")
    os.makedirs(home, exist_ok=True)
    env = env | {"COLLAB_HOME": home}
    subprocess.run([python_exe(), "-m", "bench.saved_runs"], env=env, cwd=REPO, check=True,
                   stdout=subprocess.DEVNULL)  # fmt: skip
    return env


def run(ctx: Ctx) -> BenchResult:
    res = BenchResult(NAME)
    env = ctx.env.child_env()
    cwd = str(ctx.env.work)
    py = python_exe()
    run_id = _a_run(env, cwd)
    envs = {LIST_100: _saved_runs(env, cwd)}
    cases: dict[str, list[str]] = {
        "import typer": [py, "-c", "import typer"],
        "import typer.rich_utils": [py, "-c", "import typer.rich_utils"],
        "collab --version": [py, "-m", "collab", "--version"],
        "collab list --json": [py, "-m", "collab", "list", "--json"],
        LIST_100: [py, "-m", "collab", "list", "--json"],
        "collab status ID --json": [py, "-m", "collab", "status", run_id, "--json"],
        "collab --help": [py, "-m", "collab", "--help"],
    }
    for name, argv in cases.items():  # warm-up: page cache and the bytecode cache
        cpu_seconds(argv, envs.get(name, env), cwd)
    n = ctx.n(7, 21)
    load_before = os.getloadavg()[0]
    samples: dict[str, list[float]] = {k: [] for k in cases}
    for name in interleave(list(cases), n):
        samples[name].append(cpu_seconds(cases[name], envs.get(name, env), cwd))
    load_after = os.getloadavg()[0]
    typer_cpu = median(samples["import typer"])
    rich_cpu = median(samples["import typer.rich_utils"])
    for name, ref_name, ref, limit in (
        ("import typer", None, None, None),
        ("import typer.rich_utils", None, None, None),
        ("collab --version", "import typer", typer_cpu, 2.0),
        ("collab list --json", "import typer", typer_cpu, 2.0),
        (LIST_100, "import typer", typer_cpu, 2.0),
        ("collab status ID --json", "import typer", typer_cpu, 2.0),
        ("collab --help", "import typer.rich_utils", rich_cpu, 1.5),
    ):
        xs = samples[name]
        cpu = median(xs)
        res.row(f"CPU time, {name}", cpu * 1000, "ms", None, spread(xs, "ms", 1000))
        if ref is not None and ref_name is not None and limit is not None:
            res.row(
                f"  ratio to {ref_name}",
                cpu / ref,
                "x",
                le(limit),
                f"{cpu * 1000:.0f} ms / {ref * 1000:.0f} ms",
            )
    res.row("load average (1 min), before / after", load_before, "", None,
            f"{load_before:.2f} / {load_after:.2f} on {os.cpu_count()} CPUs")  # fmt: skip
    res.data["samples"] = samples
    res.data["load"] = [load_before, load_after]
    return res
