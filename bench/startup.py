"""5a. Start-up: ``collab --help`` wall time, and what the imports cost.

Measured, interleaved, from a neutral working directory:

- this environment: the ``collab`` console script in the interpreter's scripts dir, the
  ``collab`` found on PATH (a pyenv shim here: a bash wrapper that adds its own time),
  ``python -m collab --help``, and the bare interpreter (``python -c pass``). This machine
  puts a ``.pth`` in site-packages that imports certifi at every start, and sets
  PYTHONDONTWRITEBYTECODE=1 so the editable collab is recompiled on every start: both are
  environment-specific, so ``python -m collab --help`` is also shown with a bytecode cache
  (PYTHONPYCACHEPREFIX).
- a clean venv (``python -m venv`` + ``pip install /work/main``, kept in
  bench/results/venv-clean and refreshed every run): no .pth, compiled bytecode.

``python -X importtime`` (median self/cumulative µs over several runs) names what
dominates, for ``--help`` and for a whole ``debate --json`` with the instant agent.
"""

from __future__ import annotations

import os
import re
import shutil
import statistics
import subprocess
import sys
import sysconfig
from collections import defaultdict
from pathlib import Path
from typing import Any

from bench.env import REPO, RESULTS_DIR, Ctx, python_exe
from bench.procs import output_tail, run_cmd, time_cmd
from bench.results import BenchResult, le, spread
from bench.stats import interleave, median, summary

NAME = "startup"
VENV = RESULTS_DIR / "venv-clean"
DEBATE_OPTS = ("--agent", "bench", "--rounds", "2", "--runner", "tmux", "--json")
_LINE = re.compile(r"^import time:\s+(\d+)\s+\|\s+(\d+)\s+\|(\s+)(\S+)\s*$")


def run(ctx: Ctx) -> BenchResult:
    res = BenchResult(NAME)
    env = ctx.env
    env.activate()
    base = env.base_env()
    cached = env.child_env(pycache=True)
    py = python_exe()
    scripts = Path(sysconfig.get_path("scripts")) / "collab"
    on_path = shutil.which("collab")
    cmds: dict[str, tuple[list[str], dict[str, str]]] = {}
    if scripts.exists():
        cmds["script"] = ([str(scripts), "--help"], base)
    # `pyenv exec` puts the real scripts dir first on our PATH; a user's shell finds the shim.
    shim = Path(os.environ.get("PYENV_ROOT", "~/.pyenv")).expanduser() / "shims" / "collab"
    if shim.exists() and _is_pyenv_shim(shim):
        on_path = str(shim)
    if on_path and Path(on_path).resolve() != scripts.resolve():
        cmds["path"] = ([on_path, "--help"], base)
    cmds["module"] = ([py, "-m", "collab", "--help"], base)
    cmds["module-cached"] = ([py, "-m", "collab", "--help"], cached)
    cmds["python"] = ([py, "-c", "pass"], base)
    cmds["python-S"] = ([py, "-S", "-c", "pass"], base)
    venv_note = ""
    try:
        vpy = clean_venv(ctx)
        cmds["venv-script"] = ([str(VENV / "bin" / "collab"), "--help"], base)
        cmds["venv-module"] = ([str(vpy), "-m", "collab", "--help"], base)
        cmds["venv-python"] = ([str(vpy), "-c", "pass"], base)
    except Exception as exc:
        venv_note = f"clean venv unavailable: {exc}"
        res.notes.append(venv_note)
    for key, (argv, e) in list(cmds.items()):  # warm-up (page cache, bytecode cache)
        try:
            time_cmd(argv, e, env.work)
        except RuntimeError as exc:
            if key != "path":
                raise
            del cmds[key]  # another install's `collab` first on PATH: not this tree
            res.notes.append(f"`collab` on PATH left out ({argv[0]} fails): {exc}"[:300])
    n = ctx.n(10, 30)
    times: dict[str, list[float]] = {k: [] for k in cmds}
    for key in interleave(cmds, n):
        argv, e = cmds[key]
        times[key].append(time_cmd(argv, e, env.work))
    ms = 1000.0

    def row(key: str, label: str, target: bool, extra: str = "") -> None:
        if key not in times:
            res.skip(label, "ms", le(300) if target else None, venv_note or "not found")
            return
        xs = times[key]
        note = spread(xs, "ms", ms) + (f" · {extra}" if extra else "")
        res.row(label, median(xs) * ms, "ms", le(300) if target else None, note)

    row("script", "`collab --help`, console script (this env)", True, str(scripts))
    if "path" in times:
        is_shim = _is_pyenv_shim(Path(on_path)) if on_path else False
        row(
            "path",
            "`collab --help` via PATH" + (" (pyenv shim)" if is_shim else ""),
            False,
            on_path or "",
        )
    row("module", "`python -m collab --help` (this env)", True)
    row("module-cached", "`python -m collab --help` (this env, bytecode cached)", False)
    row("python", "`python -c pass` (this env: .pth imports certifi)", False)
    row("python-S", "`python -S -c pass` (no site)", False)
    row("venv-script", "`collab --help`, console script (clean venv)", True)
    row("venv-module", "`python -m collab --help` (clean venv)", True)
    row("venv-python", "`python -c pass` (clean venv)", False)

    # What the imports cost.
    k = ctx.n(5, 10)
    imports: dict[str, Any] = {}
    profiles = {
        "help-this-env": ([py, "-X", "importtime", "-m", "collab", "--help"], cached),
        "debate-this-env": (
            [py, "-X", "importtime", "-m", "collab", "debate", "JWT vs sessions?", *DEBATE_OPTS],
            cached,
        ),
    }
    if "venv-module" in cmds:
        profiles["help-clean-venv"] = (
            [str(VENV / "bin" / "python"), "-X", "importtime", "-m", "collab", "--help"],
            base,
        )
    for label, (argv, e) in profiles.items():
        imports[label] = import_profile(argv, e, env.work, k)
    for label, prof in imports.items():
        top = ", ".join(f"{name} {us / 1000:.0f}" for name, us in prof["top_level"][:6])
        res.row(
            f"import time, {label} (Σ top-level, median)",
            prof["total_us"] / 1000,
            "ms",
            None,
            f"n={prof['n']} · top-level imports, cumulative ms: {top}",
        )
        res.notes.append(
            f"importtime {label}: top-level imports (cumulative ms): "
            + ", ".join(f"{n} {us / 1000:.1f}" for n, us in prof["top_level"][:10])
            + " | self time by package (ms): "
            + ", ".join(f"{n} {us / 1000:.1f}" for n, us in prof["top_groups"][:8])
        )
    res.data = {
        "commands": {
            key: {"argv": argv, "wall_s": summary(times[key])} for key, (argv, _) in cmds.items()
        },
        "imports": imports,
        "pyenv_shim": bool(on_path and _is_pyenv_shim(Path(on_path))),
        "venv": str(VENV),
    }
    return res


def _is_pyenv_shim(path: Path) -> bool:
    try:
        head = path.read_bytes()[:400]
    except OSError:
        return False
    return head.startswith(b"#!") and b"pyenv" in head


def clean_venv(ctx: Ctx) -> Path:
    """A venv without system site-packages, with the current collab installed; its python."""
    vpy = VENV / "bin" / "python"
    pip_env = ctx.env.base_env()
    pip_env.pop("PYTHONDONTWRITEBYTECODE", None)  # let pip compile bytecode, as usual
    if not vpy.exists():
        ctx.say(f"  startup: creating {VENV} (python -m venv + pip install {REPO})")
        subprocess.run([python_exe(), "-m", "venv", str(VENV)], check=True, timeout=300)
        _pip(vpy, ["install", "-q", str(REPO)], pip_env)
    else:
        ctx.say("  startup: refreshing collab in the clean venv")
        _pip(vpy, ["install", "-q", str(REPO)], pip_env)  # any new dependency
    _pip(vpy, ["install", "-q", "--no-deps", "--force-reinstall", str(REPO)], pip_env)
    return vpy


def _pip(vpy: Path, args: list[str], env: dict[str, str]) -> None:
    _, res = run_cmd([str(vpy), "-m", "pip", *args], env, RESULTS_DIR, timeout=900)
    if res.returncode != 0:
        raise RuntimeError(f"pip {' '.join(args[:2])} failed: {output_tail(res)}")


def import_profile(argv: list[str], env: dict[str, str], cwd: Path, n: int) -> dict[str, Any]:
    """Median ``-X importtime`` figures over ``n`` runs."""
    cum_top: dict[str, list[int]] = defaultdict(list)
    self_by_group: dict[str, list[int]] = defaultdict(list)
    totals: list[int] = []
    subprocess.run(argv, env=env, cwd=cwd, capture_output=True, check=False, timeout=120)
    for _ in range(n):
        proc = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True, timeout=120)
        if proc.returncode != 0:
            raise RuntimeError(f"{argv[-1]}: exit {proc.returncode}: {proc.stderr[-300:]}")
        groups: dict[str, int] = defaultdict(int)
        total = 0
        for line in proc.stderr.splitlines():
            m = _LINE.match(line)
            if not m:
                continue
            self_us, cum_us, indent, name = int(m[1]), int(m[2]), m[3], m[4]
            groups[_group(name)] += self_us
            if len(indent) == 1:  # a top-level import
                cum_top[name].append(cum_us)
                total += cum_us
        totals.append(total)
        for g, us in groups.items():
            self_by_group[g].append(us)
    runs = len(totals)

    def med(xs: list[int]) -> float:
        # a module imported in only some runs counts as 0 in the others
        return float(statistics.median(xs + [0] * (runs - len(xs))))

    top_level = sorted(((k, med(v)) for k, v in cum_top.items()), key=lambda kv: -kv[1])
    top_groups = sorted(((k, med(v)) for k, v in self_by_group.items()), key=lambda kv: -kv[1])
    return {
        "argv": argv,
        "n": runs,
        "total_us": float(statistics.median(totals)) if totals else 0.0,
        "top_level": top_level[:25],
        "top_groups": top_groups[:25],
    }


_STDLIB = set(getattr(sys, "stdlib_module_names", ()))


def _group(name: str) -> str:
    """Bucket a module: its top package, with the stdlib lumped together."""
    root = name.split(".")[0]
    if root.startswith("_") and root.lstrip("_") in _STDLIB | {"frozen_importlib_external"}:
        return "stdlib"
    if root in _STDLIB or root in {"encodings", "_frozen_importlib_external"}:
        return "stdlib"
    return root
