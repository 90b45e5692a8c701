"""The unit suite's own cost: ``python -m pytest tests/unit`` ≤ 10 s on this machine.

Runs the command as a developer does (from the checkout, ``-q -p no:cacheprovider`` so no
run leaves a cache behind), ``n`` times, and reports the median wall time, the median CPU
time (user + sys of pytest and anything it waited for, from ``wait4``: on a shared
2-core machine the load moves wall time, not the work done), the number of tests and how
long collection alone takes (``--collect-only``). The machine's load is recorded before
and after. The bytecode cache is left as the environment sets it
(``PYTHONDONTWRITEBYTECODE``): pytest rewrites every test file's asserts on each run
where it cannot write ``__pycache__``, and that cost is part of what a developer waits for.
The command runs on every core (tests/conftest.py: ``unit_on_every_core``); the same suite
one test at a time (``-p no:every_core``) is timed beside it, interleaved, for the ratio.

The machines this runs on differ in speed by up to ~2× from one day to the next, so beside
the times a yardstick of the machine's speed is taken in the same minutes: the CPU time of
``python -c "import typer"`` (the yardstick bench/cpu.py's targets are ratios to), five
samples before each run of the suite, and the suite's wall time scaled to a machine where
that import costs 100 ms of CPU (info only: the target stays 10 s on the machine at hand).

Beside it, the cost of the unit of most of the heavy tests: one in-process 3-round debate
(``tests/unit/test_orchestrator.py``'s ``debate({}, rounds=3)``, each in a fresh
COLLAB_HOME on /dev/shm where there is one), median CPU time of 40 after 5 unmeasured.
"""

from __future__ import annotations

import os
import re
import subprocess
import time

from bench.cpu import cpu_seconds
from bench.env import REPO, Ctx, python_exe
from bench.results import BenchResult, le, spread
from bench.stats import median

NAME = "unitsuite"

_YARDSTICK = [python_exe(), "-c", "import typer"]
_PASSED = re.compile(r"(\d+) passed")
_COLLECTED = re.compile(r"(\d+) tests? collected")


def _child_env() -> dict[str, str]:
    """This environment without a tmux or Claude Code session the tests must not see."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TMUX", "CLAUDE"))}
    env["PYTHONPATH"] = str(REPO)
    return env


def timed_pytest(args: list[str]) -> tuple[float, float, str]:
    """Wall seconds, CPU seconds and stdout of ``python -m pytest ARGS`` in the checkout."""
    argv = [python_exe(), "-m", "pytest", *args, "-q", "-p", "no:cacheprovider"]
    start = time.perf_counter()
    proc = subprocess.Popen(
        argv, cwd=REPO, env=_child_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    assert proc.stdout is not None
    out = proc.stdout.read().decode("utf-8", "replace")
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    proc.returncode = code
    if code != 0:
        tail = out.strip().splitlines()[-1:] or ["(no output)"]
        raise RuntimeError(f"python -m pytest {' '.join(args)} exited {code}: {tail[0]}")
    return wall, usage.ru_utime + usage.ru_stime, out


# Run in a child (the bench's own imports and state stay out of it): prints the CPU
# seconds of each measured debate, one a line.
_DEBATE_CPU = """
import os, shutil, sys, tempfile, time
from tests.unit.test_orchestrator import debate
shm = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
for i in range(5 + int(sys.argv[1])):
    home = tempfile.mkdtemp(dir=shm, prefix="collab-bench-")
    os.environ["COLLAB_HOME"] = home
    start = time.process_time()
    debate({}, rounds=3)
    took = time.process_time() - start
    shutil.rmtree(home)
    if i >= 5:
        print(took)
"""


def debate_cpu(n: int) -> list[float]:
    """CPU seconds of each of ``n`` in-process 3-round debates (after 5 unmeasured)."""
    out = subprocess.run(
        [python_exe(), "-c", _DEBATE_CPU, str(n)],
        cwd=REPO, env=_child_env(), capture_output=True, text=True, check=True,
    )  # fmt: skip
    return [float(line) for line in out.stdout.split()]


def run(ctx: Ctx) -> BenchResult:
    res = BenchResult(NAME)
    n = ctx.n(1, 3)
    load_before = os.getloadavg()[0]
    walls: list[float] = []
    cpus: list[float] = []
    collect_walls: list[float] = []
    serial_walls: list[float] = []
    serial_cpus: list[float] = []
    yardstick: list[float] = []  # CPU seconds of _YARDSTICK
    passed = collected = 0
    for i in range(n):
        for _ in range(5):
            yardstick.append(cpu_seconds(_YARDSTICK, _child_env(), str(REPO)))
        c_wall, _, c_out = timed_pytest(["tests/unit", "--collect-only"])
        collect_walls.append(c_wall)
        if m := _COLLECTED.search(c_out):
            collected = int(m.group(1))
        wall, cpu, out = timed_pytest(["tests/unit"])
        walls.append(wall)
        cpus.append(cpu)
        if m := _PASSED.search(out):
            passed = int(m.group(1))
        s_wall, s_cpu, _ = timed_pytest(["tests/unit", "-p", "no:every_core"])
        serial_walls.append(s_wall)
        serial_cpus.append(s_cpu)
        ctx.say(
            f"  unitsuite: {i + 1}/{n} ({wall:.1f} s wall, {cpu:.1f} s CPU; one test at a time"
            f" {s_wall:.1f} s wall, {s_cpu:.1f} s CPU)"
        )
    debates = debate_cpu(40)
    load_after = os.getloadavg()[0]
    res.row("python -m pytest tests/unit, wall", median(walls), "s", le(10.0), spread(walls, "s"))
    res.row("  CPU time (user + sys)", median(cpus), "s", None, spread(cpus, "s"))
    res.row(
        "  collection alone (--collect-only), wall",
        median(collect_walls),
        "s",
        None,
        spread(collect_walls, "s"),
    )
    res.row(
        "  one test at a time (-p no:every_core), wall",
        median(serial_walls),
        "s",
        None,
        spread(serial_walls, "s"),
    )
    res.row(
        "  one test at a time, CPU time", median(serial_cpus), "s", None, spread(serial_cpus, "s")
    )
    res.row("  tests passed / collected", passed, "", None, f"{passed} / {collected}")
    res.row("one in-process 3-round debate (tests/unit), CPU", median(debates) * 1000, "ms",
            None, spread([d * 1000 for d in debates], "ms"))  # fmt: skip
    typer_cpu = median(yardstick)
    res.row("machine yardstick: python -c \"import typer\", CPU", typer_cpu * 1000, "ms", None,
            spread([y * 1000 for y in yardstick], "ms"))  # fmt: skip
    scaled = median(walls) * 0.1 / typer_cpu
    res.row("  suite wall on a machine where that takes 100 ms (scaled)", scaled, "s", None,
            "info: the target is this machine's")  # fmt: skip
    res.row("load average (1 min), before / after", load_before, "", None,
            f"{load_before:.2f} / {load_after:.2f} on {os.cpu_count()} CPUs")  # fmt: skip
    res.data.update(
        walls=walls,
        cpus=cpus,
        collect=collect_walls,
        serial_walls=serial_walls,
        serial_cpus=serial_cpus,
        debate_cpus=debates,
        yardstick_cpus=yardstick,
        load=[load_before, load_after],
    )
    return res
