"""What every bench shares: statistics, result rows, the isolated environment, helpers.

Isolation: a throwaway ``COLLAB_HOME`` (with the bench agent registered in its
``config.toml``), a private tmux server (``COLLAB_TMUX_SOCKET``, killed at the end), and
no inherited ``TMUX``/``TMUX_PANE`` (so no run ever splits the user's own pane).
"""

from __future__ import annotations

import json
import math
import os
import random
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from collab.runners import RunnerFactory
    from collab.runners.base import ProcessResult, Runner, TurnJob
    from collab.runners.turnfiles import TurnDir

REPO = Path(__file__).resolve().parent.parent
BENCH_DIR = Path(__file__).resolve().parent
AGENT_SCRIPT = BENCH_DIR / "agent.sh"
RESULTS_DIR = BENCH_DIR / "results"

# Variables that would leak the caller's tmux / Claude Code session into our runs.
_LEAKY = (
    "TMUX",
    "TMUX_PANE",
    "COLLAB_TMUX_SESSION",
    "CLAUDECODE",
    "CLAUDE_CODE_ENTRYPOINT",
    "PYTHONPATH",
    "PYTHONSTARTUP",
    "PYTHONPROFILEIMPORTTIME",
)

Mode = Literal["quick", "full"]


# ---------------------------------------------------------------------------------------
# Statistics


def percentile(values: Sequence[float], q: float) -> float:
    """Linear interpolation between closest ranks (numpy's default); q in [0, 100]."""
    if not values:
        return math.nan
    xs = sorted(values)
    if len(xs) == 1:
        return xs[0]
    pos = (len(xs) - 1) * q / 100.0
    lo = math.floor(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def median(values: Sequence[float]) -> float:
    return percentile(values, 50.0)


def summary(values: Sequence[float], ndigits: int = 6) -> dict[str, Any]:
    """n, median, p95, min, max, mean (and the samples) of a list of numbers."""
    xs = [float(v) for v in values]
    if not xs:
        return {"n": 0}
    return {
        "n": len(xs),
        "median": round(median(xs), ndigits),
        "p95": round(percentile(xs, 95.0), ndigits),
        "min": round(min(xs), ndigits),
        "max": round(max(xs), ndigits),
        "mean": round(sum(xs) / len(xs), ndigits),
        "samples": [round(x, ndigits) for x in xs],
    }


# ---------------------------------------------------------------------------------------
# Results


@dataclass(frozen=True)
class Target:
    op: Literal["<=", ">="]
    limit: float

    def check(self, value: float) -> bool:
        return value <= self.limit if self.op == "<=" else value >= self.limit


def le(limit: float) -> Target:
    return Target("<=", limit)


def ge(limit: float) -> Target:
    return Target(">=", limit)


Unit = Literal["ms", "s", "MB", "x", "chars", "%", ""]


def fmt_value(value: float | None, unit: Unit) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    if unit == "ms":
        return f"{value:.1f} ms"
    if unit == "s":
        return f"{value:.2f} s"
    if unit == "MB":
        return f"{value:.1f} MB"
    if unit == "x":
        return f"{value:.2f}×"
    if unit == "chars":
        return f"{value:,.0f} chars"
    if unit == "%":
        return f"{value:.0f} %"
    return f"{value:g}"


@dataclass
class Row:
    """One line of the table. ``ok`` None: information only (no target)."""

    bench: str
    metric: str
    value: float | None
    unit: Unit
    target: Target | None = None
    note: str = ""
    skipped: bool = False

    @property
    def ok(self) -> bool | None:
        if self.target is None or self.value is None or self.skipped:
            return None
        if isinstance(self.value, float) and math.isnan(self.value):
            return None
        return self.target.check(self.value)

    def target_text(self) -> str:
        if self.target is None:
            return "—"
        sym = "≤" if self.target.op == "<=" else "≥"
        return f"{sym} {fmt_value(self.target.limit, self.unit)}"

    def result_text(self) -> str:
        if self.skipped:
            return "skip"
        ok = self.ok
        return "info" if ok is None else ("pass" if ok else "MISS")

    def to_dict(self) -> dict[str, Any]:
        return {
            "bench": self.bench,
            "metric": self.metric,
            "value": self.value,
            "unit": self.unit,
            "value_text": "skipped" if self.skipped else fmt_value(self.value, self.unit),
            "target": None
            if self.target is None
            else {"op": self.target.op, "limit": self.target.limit, "text": self.target_text()},
            "result": self.result_text(),
            "note": self.note,
        }


@dataclass
class BenchResult:
    name: str
    rows: list[Row] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0
    error: str | None = None

    def row(
        self,
        metric: str,
        value: float | None,
        unit: Unit,
        target: Target | None = None,
        note: str = "",
    ) -> Row:
        r = Row(self.name, metric, value, unit, target, note)
        self.rows.append(r)
        return r

    def skip(self, metric: str, unit: Unit, target: Target | None, note: str) -> Row:
        r = Row(self.name, metric, None, unit, target, note, skipped=True)
        self.rows.append(r)
        return r


def spread(values: Sequence[float], unit: Unit, scale: float = 1.0) -> str:
    """``n=30 · p95 12.3 ms`` for the notes column."""
    if not values:
        return "n=0"
    return f"n={len(values)} · p95 {fmt_value(percentile(values, 95) * scale, unit)}"


# ---------------------------------------------------------------------------------------
# The isolated environment


def claude_json_doc(text: str) -> str:
    """What ``claude -p --output-format json`` prints for a successful reply."""
    doc = {
        "type": "result",
        "subtype": "success",
        "is_error": False,
        "duration_ms": 1,
        "num_turns": 1,
        "result": text,
        "stop_reason": "end_turn",
        "session_id": "00000000-0000-4000-a000-000000000000",
        "total_cost_usd": 0.00075,
        "usage": {
            "input_tokens": 100,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            "output_tokens": 50,
        },
    }
    return json.dumps(doc, ensure_ascii=False) + "\n"


_WORDS = [
    "latency",
    "throughput",
    "session",
    "token",
    "revocation",
    "cache",
    "invalidation",
    "audit",
    "trail",
    "rollout",
    "migration",
    "operator",
    "incident",
    "budget",
    "storage",
    "replica",
    "consistency",
    "failover",
    "benchmark",
    "evidence",
    "customer",
    "contract",
    "regression",
    "deadline",
    "complexity",
    "review",
    "threat",
    "surface",
    "rotation",
    "signature",
    "expiry",
    "cookie",
    "database",
    "cluster",
    "scaling",
    "observability",
    "alerting",
    "dashboard",
    "runbook",
    "headcount",
    "onboarding",
    "vendor",
    "license",
    "compliance",
    "retention",
]


def prose(chars: int, seed: int) -> str:
    """Plausible-looking English-ish prose of about ``chars`` characters, in sentences."""
    rng = random.Random(seed)
    out: list[str] = []
    size = 0
    while size < chars:
        n = rng.randint(8, 18)
        words = [rng.choice(_WORDS) for _ in range(n)]
        sentence = " ".join(words).capitalize() + "."
        out.append(sentence)
        size += len(sentence) + 1
    text = " ".join(out)
    return text[:chars].rstrip() + "."


def contract_block(
    new: Sequence[tuple[str, str]] = (),
    stances: Sequence[tuple[str, str, str]] = (),
    abstain: str | None = None,
) -> str:
    doc = {
        "new_points": [{"title": t, "evidence": e} for t, e in new],
        "stances": [{"id": i, "stance": s, "evidence": e} for i, s, e in stances],
        "abstain": abstain,
    }
    return "```json\n" + json.dumps(doc, ensure_ascii=False) + "\n```\n"


def debater_reply(seed: int = 1, prose_chars: int = 900) -> str:
    """A reply with ~900 chars of prose and a valid contract raising two new points."""
    new = [
        (f"Point {seed}-{k}: {prose(50, seed * 10 + k)}", prose(250, seed * 100 + k))
        for k in (1, 2)
    ]
    return prose(prose_chars, seed) + "\n\n" + contract_block(new)


def python_exe() -> str:
    return sys.executable


class BenchEnv:
    """Temporary COLLAB_HOME, private tmux socket, the bench agent; undone by ``close``."""

    def __init__(self, keep: bool = False) -> None:
        self.keep = keep
        self.root = Path(tempfile.mkdtemp(prefix="collab-bench-"))
        self.home = self.root / "home"
        self.home.mkdir()
        self.logs = self.root / "logs"
        self.logs.mkdir()
        self.work = self.root / "work"  # a neutral cwd for child processes
        self.work.mkdir()
        self.pycache = self.root / "pycache"
        self.socket = f"collab-bench-{os.getpid()}-{secrets.token_hex(3)}"
        self.reply_path = self.root / "reply.json"
        self.reply_path.write_text(claude_json_doc(debater_reply()), encoding="utf-8")
        self.bash = shutil.which("bash") or "/bin/bash"
        (self.home / "config.toml").write_text(
            "[agents.bench]\n"
            f"argv = [{json.dumps(self.bash)}, {json.dumps(str(AGENT_SCRIPT))}]\n"
            'output = "claude-json"\n',
            encoding="utf-8",
        )
        self._saved: dict[str, str | None] = {}
        self._n = 0

    # -- environments --------------------------------------------------------------------
    def base_env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k not in _LEAKY}
        env.update(
            COLLAB_HOME=str(self.home),
            COLLAB_TMUX_SOCKET=self.socket,
            BENCH_AGENT_REPLY=str(self.reply_path),
            SHELL=self.bash,
        )
        env.pop("BENCH_AGENT_SLEEP", None)
        env.pop("BENCH_AGENT_LOG", None)
        return env

    def child_env(self, pycache: bool = True, **extra: str) -> dict[str, str]:
        """For ``python -m collab`` children.

        ``pycache``: this machine sets PYTHONDONTWRITEBYTECODE=1 and collab is an editable
        install, so every child would recompile collab's modules from source. An installed
        collab has .pyc files; to measure like one, children cache bytecode in a private
        PYTHONPYCACHEPREFIX (never inside collab/).
        """
        env = self.base_env()
        if pycache:
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            env["PYTHONPYCACHEPREFIX"] = str(self.pycache)
        env.update(extra)
        return env

    def activate(self) -> None:
        """Point this process at the isolated home and tmux server (for in-process runs)."""
        wanted: dict[str, str | None] = {k: None for k in _LEAKY}
        wanted.update(
            COLLAB_HOME=str(self.home),
            COLLAB_TMUX_SOCKET=self.socket,
            BENCH_AGENT_REPLY=str(self.reply_path),
            BENCH_AGENT_SLEEP=None,
            BENCH_AGENT_LOG=None,
        )
        for k, v in wanted.items():
            if k not in self._saved:
                self._saved[k] = os.environ.get(k)
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v

    def new_log(self, tag: str) -> Path:
        self._n += 1
        return self.logs / f"{self._n:04d}-{tag}.log"

    def tmux(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["tmux", "-L", self.socket, *args],
            capture_output=True,
            text=True,
            check=False,
            timeout=10,
        )

    def close(self) -> None:
        if shutil.which("tmux"):
            self.tmux("kill-server")
            # tmux 3.3 leaves the socket file of a killed server behind: remove ours.
            tmpdir = os.environ.get("TMUX_TMPDIR") or "/tmp"
            Path(tmpdir, f"tmux-{os.getuid()}", self.socket).unlink(missing_ok=True)
        for k, v in self._saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        self._saved.clear()
        if not self.keep:
            shutil.rmtree(self.root, ignore_errors=True)


@dataclass
class Ctx:
    env: BenchEnv
    mode: Mode
    rng: random.Random
    say: Callable[[str], None]

    @property
    def quick(self) -> bool:
        return self.mode == "quick"

    def n(self, quick: int, full: int) -> int:
        return quick if self.quick else full


# ---------------------------------------------------------------------------------------
# The bench agent's log


@dataclass(frozen=True)
class AgentCall:
    pid: int
    start: float  # CLOCK_REALTIME seconds
    end: float
    stdin: str = ""  # with BENCH_AGENT_TAG=1: the prompt file the agent read

    @property
    def duration(self) -> float:
        return self.end - self.start


def read_agent_log(path: Path) -> list[AgentCall]:
    """Every call the bench agent logged, in start order."""
    if not path.exists():
        return []
    calls: list[AgentCall] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        parts = line.split(maxsplit=3)
        if len(parts) < 3:
            continue
        # $EPOCHREALTIME uses the locale's decimal point.
        start, end = (float(p.replace(",", ".")) for p in parts[1:3])
        calls.append(AgentCall(int(parts[0]), start, end, parts[3] if len(parts) > 3 else ""))
    calls.sort(key=lambda c: c.start)
    return calls


# ---------------------------------------------------------------------------------------
# Timing a runner from the outside


@dataclass(frozen=True)
class RunnerCall:
    step: str
    called: float  # time.time() when runner.run() was entered
    returned: float  # … and when it returned
    result: ProcessResult


class TimedRunner:
    """Wraps a Runner and records when each ``run`` started and returned."""

    def __init__(self, inner: Runner, calls: list[RunnerCall]) -> None:
        self.inner = inner
        self.name = inner.name
        self.calls = calls

    def run(self, job: TurnJob) -> ProcessResult:
        t0 = time.time()
        res = self.inner.run(job)
        self.calls.append(RunnerCall(job.step, t0, time.time(), res))
        return res

    def attach_hint(self) -> str | None:
        return self.inner.attach_hint()

    def close(self) -> None:
        self.inner.close()


def timed_factory(
    base: RunnerFactory,
    calls: list[RunnerCall],
    made: list[tuple[float, float]],
    tmux_calls: list[tuple[str, float]] | None = None,
) -> RunnerFactory:
    """A runner factory whose runners are TimedRunners; ``made`` gets (start, end) of creation.

    ``tmux_calls`` gets (tmux command, seconds) for every tmux client call a TmuxRunner
    makes after its pane exists (its libtmux ``Server.cmd`` is wrapped on the instance).
    """

    def factory(tdir: TurnDir, run_id: str) -> Runner:
        t0 = time.time()
        runner = base(tdir, run_id)
        made.append((t0, time.time()))
        server = getattr(runner, "server", None)
        if tmux_calls is not None and server is not None:
            inner_cmd = server.cmd

            def cmd(*args: Any, **kwargs: Any) -> Any:
                c0 = time.perf_counter()
                try:
                    return inner_cmd(*args, **kwargs)
                finally:
                    tmux_calls.append((str(args[0]), time.perf_counter() - c0))

            setattr(server, "cmd", cmd)  # noqa: B010 - an instance attribute, on purpose
        return TimedRunner(runner, calls)

    return factory


# ---------------------------------------------------------------------------------------
# Running a child process and watching its memory


def _status_kb(pid: int) -> tuple[int, int] | None:
    """(VmRSS, VmHWM) in kB, or None once the process is gone or a zombie."""
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    rss = hwm = -1
    for line in text.splitlines():
        if line.startswith("VmRSS:"):
            rss = int(line.split()[1])
        elif line.startswith("VmHWM:"):
            hwm = int(line.split()[1])
    if rss < 0 or hwm < 0:
        return None
    return rss, hwm


def _children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(p) for p in text.split()]


@dataclass
class Watched:
    argv: list[str]
    returncode: int
    wall: float  # seconds, Popen → exit
    stdout: str
    stderr: str
    hwm_kb: int  # the process's own VmHWM (last sample before it exited)
    maxrss_kb: int  # ru_maxrss from wait4 (the process or its largest reaped descendant)
    tree_peak_kb: int = 0  # peak of VmRSS summed over the process and its direct children
    child_hwm_kb: dict[int, int] = field(default_factory=dict)
    samples: int = 0


def run_watched(
    argv: Sequence[str],
    env: dict[str, str],
    cwd: Path,
    *,
    interval: float = 0.01,
    tree: bool = False,
    timeout: float = 900.0,
) -> Watched:
    """Run ``argv``; sample /proc/PID/status every ``interval`` (and its children's if ``tree``).

    A helper thread blocks in wait4, so the wall time is exact and the rusage is kept.
    """
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        return _run_watched(argv, env, cwd, out, err, interval, tree, timeout)


def _run_watched(
    argv: Sequence[str],
    env: dict[str, str],
    cwd: Path,
    out: IO[bytes],
    err: IO[bytes],
    interval: float,
    tree: bool,
    timeout: float,
) -> Watched:
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        list(argv), stdin=subprocess.DEVNULL, stdout=out, stderr=err, env=env, cwd=cwd
    )
    done: dict[str, Any] = {}

    def reap() -> None:
        _, status, usage = os.wait4(proc.pid, 0)
        done["t"] = time.perf_counter()
        done["status"] = status
        done["maxrss"] = usage.ru_maxrss

    waiter = threading.Thread(target=reap, daemon=True)
    waiter.start()
    hwm = 0
    tree_peak = 0
    child_hwm: dict[int, int] = {}
    samples = 0
    deadline = t0 + timeout
    try:
        while waiter.is_alive():
            st = _status_kb(proc.pid)
            if st is not None:
                hwm = max(hwm, st[1])
                total = st[0]
                if tree:
                    for child in _children(proc.pid):
                        cst = _status_kb(child)
                        if cst is None:
                            continue
                        total += cst[0]
                        child_hwm[child] = max(child_hwm.get(child, 0), cst[1])
                tree_peak = max(tree_peak, total)
                samples += 1
            if time.perf_counter() > deadline:
                os.kill(proc.pid, signal.SIGKILL)
            waiter.join(interval)
    except BaseException:
        if waiter.is_alive():
            os.kill(proc.pid, signal.SIGTERM)
            waiter.join(20)
        raise
    proc.returncode = os.waitstatus_to_exitcode(done["status"])
    out.seek(0)
    err.seek(0)
    w = Watched(
        argv=list(argv),
        returncode=proc.returncode,
        wall=done["t"] - t0,
        stdout=out.read().decode("utf-8", "replace"),
        stderr=err.read().decode("utf-8", "replace"),
        hwm_kb=hwm,
        maxrss_kb=int(done["maxrss"]),
        tree_peak_kb=tree_peak,
        child_hwm_kb=child_hwm,
        samples=samples,
    )
    return w


def time_cmd(argv: Sequence[str], env: dict[str, str], cwd: Path, timeout: float = 60) -> float:
    """Wall seconds of one run (output discarded); raises if it fails."""
    t0 = time.perf_counter()
    res = subprocess.run(
        list(argv),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
        cwd=cwd,
        timeout=timeout,
        check=False,
    )
    wall = time.perf_counter() - t0
    if res.returncode != 0:
        tail = res.stderr.decode("utf-8", "replace").strip().splitlines()[-3:]
        raise RuntimeError(f"{' '.join(argv)} exited {res.returncode}: {' | '.join(tail)}")
    return wall


def interleave(variants: Iterable[str], n: int) -> list[str]:
    """Round-robin order, so noise on a busy machine hits every variant alike."""
    names = list(variants)
    return [v for _ in range(n) for v in names]
