"""6. The real ``claude`` binary against FakeAnthropic (instant replies).

Side by side, interleaved: bare ``claude -p --output-format json --no-session-persistence
< prompt`` calls timed directly (same env, same working directory), and 3-round debates
(+ judge, sequential opening) driven in-process by the Orchestrator with the tmux runner
and the built-in ``claude`` agent. A turn's wall time in collab is ``turn_started`` →
``turn_finished`` (``judge_started`` → ``judge_finished``) from its events: the runner,
the CLI, contract parsing, the ledger and the state save. Our overhead per turn = median
collab turn − median bare call. Skipped, with the reason, when the binary is missing.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from bench.agent import any_seat_reply, debater_reply
from bench.env import Ctx
from bench.inproc import RunnerCall, how_it_ended, timed_debate
from bench.procs import run_cmd
from bench.results import BenchResult, le, spread
from bench.stats import median, percentile, summary

if TYPE_CHECKING:
    pass

NAME = "claude"
ROUNDS = 3
TOPIC = "Should our public API replace server-side sessions with stateless JWTs?"
ARGV_TAIL = ("-p", "--output-format", "json", "--no-session-persistence")


def run(ctx: Ctx) -> BenchResult:
    res = BenchResult(NAME)
    ctx.env.activate()
    try:
        from tests.fakes import FakeAnthropic, Reply, claude_binary, claude_full_env
        from tests.fakes.claude_env import claude_version
    except ImportError as exc:
        res.skip("claude: per-turn overhead", "ms", None, f"tests.fakes not importable: {exc}")
        return res
    binary = claude_binary()
    if binary is None:
        res.skip("claude: per-turn overhead", "ms", None, "claude binary not found (skipped)")
        res.notes.append("claude CLI not installed: npm install @anthropic-ai/claude-code")
        return res
    n_debates = ctx.n(1, 3)
    work = ctx.env.root / "claude-work"
    work.mkdir(exist_ok=True)
    home = ctx.env.root / "claude-home"
    bare: list[float] = []
    pairs: list[Pair] = []
    old_cwd = Path.cwd()
    with FakeAnthropic() as server:
        # Every seat, the Judge too, takes the same instant reply: it carries the Judge's
        # required sections (without them the Judge is asked again, then falls back).
        server.default(Reply(text=any_seat_reply(seed=7)))
        env = claude_full_env(server.url, home, ctx.env.base_env())
        env["PATH"] = f"{Path(binary).parent}{os.pathsep}{env.get('PATH', '')}"
        prompt = work / "prompt.txt"
        prompt.write_text(_sample_prompt(), encoding="utf-8")
        os.environ["COLLAB_CLAUDE_BIN"] = binary
        os.chdir(work)  # the pane and the bare calls start in the same neutral directory
        try:
            _bare(binary, prompt, env, work)  # warm-up: creates ~/.claude.json

            def between() -> float:
                bare.append(_bare(binary, prompt, env, work))
                return bare[-1]

            for d in range(n_debates):
                pairs += _debate(env, between)
                ctx.say(f"  claude: debate {d + 1}/{n_debates}, {len(bare)} bare calls")
        finally:
            os.chdir(old_cwd)
            os.environ.pop("COLLAB_CLAUDE_BIN", None)
    ms = 1000.0
    turns = [p.turn for p in pairs if p.kind == "turn"]
    judge = [p.turn for p in pairs if p.kind == "judge"]
    res.row(
        "claude: bare `claude -p` call (CLI start-up + 1 request)",
        median(bare) * ms,
        "ms",
        None,
        spread(bare, "ms", ms),
    )
    res.row(
        "claude: debater turn in collab (tmux)",
        median(turns) * ms,
        "ms",
        None,
        spread(turns, "ms", ms) + f" · judge {median(judge) * ms:.0f} ms",
    )
    # Each collab turn is paired with the bare call made right after it, between turns.
    paired = [p.turn - p.bare for p in pairs if p.kind == "turn"]
    paired_run = [p.runner - p.bare for p in pairs if p.kind == "turn"]
    res.row(
        "claude: our overhead per turn (turn − bare call)",
        median(paired) * ms,
        "ms",
        le(1500 / 7),
        f"median of {len(paired)} paired differences · p95 {percentile(paired, 95) * ms:.0f} ms"
        " · target derived: 1.5 s / 7 turns",
    )
    res.row(
        "  of which inside runner.run() (turn files → reply)",
        median(paired_run) * ms,
        "ms",
        None,
        "runner.run() − bare call, paired",
    )
    res.data = {
        "binary": binary,
        "version": claude_version(binary),
        "bare_s": summary(bare),
        "turn_s": summary(turns),
        "judge_s": summary(judge),
        "runner_run_s": summary([p.runner for p in pairs if p.kind == "turn"]),
        "overhead_per_turn_s": summary(paired),
        "runner_run_minus_bare_s": summary(paired_run),
        "debates": n_debates,
    }
    return res


def _bare(binary: str, prompt: Path, env: dict[str, str], cwd: Path) -> float:
    with prompt.open("rb") as stdin:
        wall, proc = run_cmd([binary, *ARGV_TAIL], env, cwd, timeout=120, stdin=stdin)
    if proc.returncode != 0 or b'"is_error":false' not in proc.stdout.replace(b" ", b""):
        raise RuntimeError(f"bare claude call failed: {proc.stdout[-300:]!r}")
    return wall


def _sample_prompt() -> str:
    """A round-2 role prompt, as collab would send it."""
    from collab.agents import BUILTIN
    from collab.contract_parse import parse
    from collab.ledger import Ledger, apply
    from collab.options import DebateRequest
    from collab.prompts import Prompts, TurnView
    from collab.request import build_config

    cfg = build_config(DebateRequest(topic=TOPIC, rounds=ROUNDS, lang="en"), BUILTIN.keys())
    p = Prompts(cfg.lang)
    ledger = Ledger()
    history: list[TurnView] = []
    for side in ("A", "B"):
        parsed = parse(debater_reply(seed=3 if side == "A" else 4), [])
        assert parsed.contract is not None
        ledger = apply(ledger, side, 1, parsed.contract)
        history.append(TurnView(1, side, cfg.role(side).name, parsed.prose, "ok"))
    return p.role(cfg, "A", 2, ledger, history, None)


@dataclass(frozen=True)
class Pair:
    kind: str  # "turn" | "judge"
    turn: float  # wall of the turn in collab (its events)
    runner: float  # wall of runner.run() for it
    bare: float  # the bare claude call made right after it


def _debate(env: dict[str, str], between: Callable[[], float]) -> list[Pair]:
    """One debate; ``between`` (a bare call) runs after every turn, outside the timed spans."""
    from collab.events import JudgeFinished, JudgeStarted, Logged, TurnFinished, TurnStarted

    class Timer:
        def __init__(self) -> None:
            self.started = 0.0
            self.done: list[tuple[str, float, float]] = []

        def _finish(self, kind: str) -> None:
            wall = time.time() - self.started
            self.done.append((kind, wall, between()))

        def __call__(self, logged: Logged) -> None:
            ev = logged.event
            if isinstance(ev, TurnStarted | JudgeStarted):
                self.started = time.time()
            elif isinstance(ev, TurnFinished):
                if ev.status != "ok":
                    raise RuntimeError(f"claude turn failed: {ev.status} {ev.warnings}")
                self._finish("turn")
            elif isinstance(ev, JudgeFinished):
                self._finish("judge")

    calls: list[RunnerCall] = []
    made: list[tuple[float, float]] = []
    timer = Timer()
    # Sequential: one turn at a time, so each is timed alone and the bare call made after
    # it overlaps nothing (a blind round 1 would run both sides at once).
    debate = timed_debate(
        TOPIC, "claude", ROUNDS, "tmux", timer, calls, made, env=env, opening="sequential"
    )
    outcome = debate.run()
    st = outcome.state
    if st.status != "done" or st.judge is None or st.judge.fallback:
        raise RuntimeError(f"claude debate: {how_it_ended(st)}")
    if any(t.reask is not None for t in st.turns):
        raise RuntimeError("claude debate: a turn was re-asked")
    if len(calls) != len(timer.done):
        raise RuntimeError(f"{len(calls)} runner calls for {len(timer.done)} turns")
    return [
        Pair(kind, wall, c.returned - c.called, bare)
        for (kind, wall, bare), c in zip(timer.done, calls, strict=True)
    ]
