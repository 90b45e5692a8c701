"""Run collab's benchmarks, print a table and write ``bench/results/latest.json``.

    python -m bench                 # full mode (several minutes)
    python -m bench --quick         # fewer samples, 2-round batches
    python -m bench --only detect   # one bench (repeat or comma-separate for more)
    python -m bench --list

Benches (see each module's docstring for exactly what is measured):

  detect    turn-completion detection latency, tmux runner vs a 2 s polling loop
  overhead  orchestration overhead of a 3-round debate + judge (tmux and subprocess,
            in-process and end to end via ``python -m collab debate --json``), peak RSS
  prompts   rendered prompt size per round of a 7-round debate with a realistic ledger
  batch     batch scaling at --parallel 1/2/4/8 (agent sleeps 1 s per turn), peak RSS
  startup   ``collab --help`` wall time (this environment and a clean venv), import costs
  cpu       CPU time of --version, list --json (and over 100 saved runs), status --json, --help:
            ratios to typer's import
  claude    the real ``claude`` binary against FakeAnthropic: CLI start-up vs our overhead
  tokens    real ``claude``: input tokens per call beyond our prompt and a debate's cost,
            the first release's argv vs the built-in one
  stream    real ``claude`` streaming: first token at the API → visible in the tmux pane
            and in the main view; per-turn overhead of stream-json vs json
  blind     round-1 wall time, blind opening vs sequential (agent sleeps 1 s), both runners
  salvage   contract salvage over bench/data/contracts.jsonl, first release's parser vs
            collab.contract_parse (and the offline SmolLM2 model, when installed)
  quality   decision quality over bench/cases: single call vs debates (own options:
            python -m bench --only quality --help; see bench.quality)
  depth     calls and tokens per --depth on the easy, lingering and contested scripts
  panels    3 seats: round-1 wall of the blind round against one seat alone (agent
            sleeps 2 s), prompt growth over 7 rounds, each seat's prompt at rounds 2, 5
  unitsuite ``python -m pytest tests/unit``: wall and CPU time, collection alone, tests;
            one in-process 3-round debate's CPU time

Every run uses a temporary COLLAB_HOME and a private tmux server that is killed at the
end. Comparisons are measured side by side (interleaved) in one run; each figure is a
median over several runs with n and p95 noted.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import re
import shutil
import subprocess
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench import (
    batch,
    blind,
    claude,
    cpu,
    depth,
    detect,
    overhead,
    panels,
    prompts,
    quality,
    salvage,
    startup,
    stream,
    tokens,
    unitsuite,
)
from bench.env import REPO, RESULTS_DIR, BenchEnv, Ctx, Mode
from bench.results import BenchResult, Row

BENCHES: dict[str, Callable[[Ctx], BenchResult]] = {
    "detect": detect.run,
    "overhead": overhead.run,
    "prompts": prompts.run,
    "batch": batch.run,
    "startup": startup.run,
    "cpu": cpu.run,
    "claude": claude.run,
    "tokens": tokens.run,
    "stream": stream.run,
    "blind": blind.run,
    "salvage": salvage.run,
    "depth": depth.run,
    "panels": panels.run,
    "unitsuite": unitsuite.run,
}


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python -m bench",
        description="collab benchmarks: prints a table, writes bench/results/latest.json",
    )
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="fewer samples; 2-round batches")
    mode.add_argument("--full", action="store_true", help="the full bench (the default)")
    p.add_argument(
        "--only",
        action="append",
        metavar="NAME",
        help=f"run only these benches (repeatable or comma-separated): {', '.join(BENCHES)}",
    )
    p.add_argument("--list", action="store_true", help="list the benches and exit")
    p.add_argument(
        "--plain",
        action="store_true",
        help="plain-text table even on a terminal (it is always plain when piped)",
    )
    p.add_argument("--seed", type=int, default=20261130, help="random seed (jitter, phases)")
    p.add_argument("--keep", action="store_true", help="keep the temporary COLLAB_HOME etc.")
    p.add_argument(
        "--out", type=Path, default=RESULTS_DIR / "latest.json", help="where to write the JSON"
    )
    p.add_argument("-q", "--quiet", action="store_true", help="no progress lines on stderr")
    p.add_argument(
        "--wait-load",
        type=float,
        metavar="LOAD",
        help="before each bench, wait (up to --wait-max s) for the 1-min load average to drop "
        "below LOAD: other work on a small machine skews every wall-clock figure",
    )
    p.add_argument("--wait-max", type=float, default=600.0, metavar="S", help="see --wait-load")
    p.add_argument("--strict", action="store_true", help="exit 2 when a target is missed")
    return p.parse_args(argv)


def selected(only: list[str] | None) -> list[str]:
    if not only:
        return list(BENCHES)
    names: list[str] = []
    for item in only:
        for name in item.split(","):
            name = name.strip()
            if not name:
                continue
            if name not in BENCHES:
                raise SystemExit(f"unknown bench {name!r}; choose from: {', '.join(BENCHES)}")
            if name not in names:
                names.append(name)
    return names


def machine_info() -> dict[str, Any]:
    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    info: dict[str, Any] = {
        "nproc": os.cpu_count(),
        "affinity": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
        "cpu_model": model,
        "python": sys.version.split()[0],
        "python_executable": sys.executable,
        "platform": platform.platform(),
        "tmux": _version(["tmux", "-V"]),
        "bash": _version(["bash", "--version"]),
        "loadavg_start": os.getloadavg(),
        "collab_version": _collab_version(),
        "git": _git(),
        "env_notes": {
            "PYTHONDONTWRITEBYTECODE": os.environ.get("PYTHONDONTWRITEBYTECODE"),
        },
    }
    try:
        mem = Path("/proc/meminfo").read_text().splitlines()[0].split()
        info["mem_total_mb"] = round(int(mem[1]) / 1024)
    except (OSError, IndexError, ValueError):
        pass
    return info


def _version(argv: list[str]) -> str | None:
    if not shutil.which(argv[0]):
        return None
    try:
        out = subprocess.run(argv, capture_output=True, text=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    first = (out.stdout or out.stderr).strip().splitlines()
    return first[0] if first else None


def _collab_version() -> str | None:
    try:
        from collab import __version__

        return str(__version__)
    except Exception:
        return None


def _git() -> dict[str, Any] | None:
    try:
        rev = subprocess.run(
            ["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(REPO), "status", "--porcelain", "--", "collab"],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return {"rev": rev, "collab_dirty": bool(dirty)}


# ---------------------------------------------------------------------------------------
# Output


def print_table(rows: list[Row], info: dict[str, Any], mode: Mode, plain: bool) -> None:
    head = (
        f"collab bench ({mode}) · {info['cpu_model']} · nproc {info['nproc']} · "
        f"Python {info['python']} · {info['tmux']} · "
        f"load {info['loadavg_start'][0]:.2f}→{info['loadavg_end'][0]:.2f}"
    )
    cols = ("metric", "value", "target", "result", "notes")
    table = [
        (
            r.metric,
            r.to_dict()["value_text"],
            r.target_text(),
            r.result_text(),
            r.note,
        )
        for r in rows
    ]
    if not plain and not sys.stdout.isatty():
        plain = True  # rich would wrap the table to a guessed width in a file or pipe
    if not plain:
        try:
            from rich.console import Console
            from rich.table import Table
        except ImportError:
            plain = True
    if not plain:
        t = Table(title=head, title_justify="left")
        for c in cols:
            t.add_column(c, overflow="fold", no_wrap=c in ("value", "target", "result"))
        styles = {"pass": "green", "MISS": "bold red", "info": "dim", "skip": "yellow"}
        for (metric, value, target, result, note), r in zip(table, rows, strict=True):
            del r
            t.add_row(metric, value, target, f"[{styles[result]}]{result}[/]", note)
        Console(width=max(140, shutil.get_terminal_size().columns)).print(t)
        return
    widths = [max(len(c), *(len(row[i]) for row in table)) for i, c in enumerate(cols)]
    print(head)
    print("  ".join(c.ljust(w) for c, w in zip(cols, widths, strict=True)).rstrip())
    print("  ".join("-" * w for w in widths))
    for row in table:
        print("  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)).rstrip())


def main(argv: list[str] | None = None) -> int:
    given = sys.argv[1:] if argv is None else argv
    if quality.wanted(given):
        return quality.main(given)
    args = parse_args(argv)
    if args.list:
        for line in (__doc__ or "").split("Benches")[1].split("Every run")[0].splitlines()[2:]:
            if line.strip():
                print(line)
        return 0
    names = selected(args.only)
    mode: Mode = "quick" if args.quick else "full"
    quiet = bool(args.quiet)

    def say(text: str) -> None:
        if not quiet:
            print(f"[bench {time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)

    if Path.cwd().resolve() != REPO:
        os.chdir(REPO)  # `python -m collab` children and `tests.fakes` resolve from here
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    info = machine_info()
    started = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    env = BenchEnv(keep=args.keep)
    results: list[BenchResult] = []
    t_all = time.perf_counter()
    try:
        for name in names:
            if args.wait_load is not None:
                wait_for_load(args.wait_load, args.wait_max, say)
            ctx = Ctx(env=env, mode=mode, rng=random.Random(f"{args.seed}-{name}"), say=say)
            say(f"{name}: start (load {os.getloadavg()[0]:.2f})")
            t0 = time.perf_counter()
            load0 = os.getloadavg()
            try:
                res = BENCHES[name](ctx)
            except KeyboardInterrupt:
                raise
            except Exception as exc:
                res = BenchResult(name, error=f"{type(exc).__name__}: {exc}")
                res.data["traceback"] = traceback.format_exc()
                res.skip(f"{name}: failed", "", None, _short(res.error or "", 120))
                say(f"{name}: FAILED\n{res.data['traceback']}")
            res.seconds = time.perf_counter() - t0
            res.data.setdefault("loadavg", {"start": load0, "end": os.getloadavg()})
            results.append(res)
            say(f"{name}: done in {res.seconds:.1f} s")
    finally:
        env.close()
    info["loadavg_end"] = os.getloadavg()
    info["bench_seconds"] = round(time.perf_counter() - t_all, 1)
    rows = [r for res in results for r in res.rows]
    print_table(rows, info, mode, args.plain)
    for res in results:
        for note in res.notes:
            print(f"- {res.name}: {note}")
    doc = {
        "schema": "collab.bench/1",
        "started": started,
        "mode": mode,
        "only": names,
        "seed": args.seed,
        "machine": info,
        "table": [r.to_dict() for r in rows],
        "benches": {
            res.name: {
                "seconds": round(res.seconds, 2),
                "error": res.error,
                "notes": res.notes,
                "data": res.data,
            }
            for res in results
        },
    }
    out: Path = args.out
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_text(json.dumps(doc, indent=1, ensure_ascii=False, default=_jsonable) + "\n")
    tmp.replace(out)
    print(f"results: {_display(out)}")
    missed = [r for r in rows if r.ok is False]
    failed = [res for res in results if res.error]
    if failed:
        return 1
    return 2 if missed and args.strict else 0


def wait_for_load(limit: float, max_wait: float, say: Callable[[str], None]) -> None:
    end = time.monotonic() + max_wait
    load = os.getloadavg()[0]
    if load < limit:
        return
    say(f"waiting for the load average ({load:.2f}) to drop below {limit:g} …")
    while time.monotonic() < end:
        time.sleep(5)
        load = os.getloadavg()[0]
        if load < limit:
            say(f"load {load:.2f}: go")
            return
    say(f"load still {load:.2f} after {max_wait:.0f} s: going ahead anyway")


def _jsonable(obj: object) -> object:
    if isinstance(obj, Path):
        return str(obj)
    if isinstance(obj, set | frozenset | tuple):
        return list(obj)
    return repr(obj)


def _display(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(REPO))
    except ValueError:
        return str(path)


def _short(text: str, n: int) -> str:
    text = re.sub(r"\s+", " ", text)
    return text if len(text) <= n else text[: n - 1] + "…"
