"""Panels (issue 20 item 11): what a third seat costs in wall time and in prompt size.

The three-seat panel is a user preset written into the bench's ``COLLAB_HOME``
(``[[seats]]``, three seats) and started as ``--preset bench-panel`` starts it, so the
bench goes through the same door as a user. A collab that seats only two refuses that
preset; the bench then reports every row as skipped and says why.

- **round 1**: the bench agent sleeps 2 s a turn (``BENCH_AGENT_SLEEP=2``). Three-seat
  debates (``--opening blind``) run in this process through the Orchestrator, stopped
  once round 1 is over, as ``bench.blind`` does; round-1 wall = ``round_started(1)`` →
  the third ``turn_finished`` of round 1. Against it, one seat alone: a two-seat debate
  with ``--opening sequential``, ``round_started(1)`` → its first ``turn_finished`` (one
  agent running, nothing beside it); each run is stopped at round 1's ``ledger`` event.
  Interleaved, medians; the 1-minute load average is recorded before each sample.
  Ideal 1.0× (three agents of 2 s at once take 2 s); goal ≤ 1.15×. Subprocess and tmux
  runners.
- **prompt growth**: a seven-round three-seat debate on the in-process runner
  (``collab.runners.inprocess``), ``--depth deep``. Each turn writes ~900 characters of
  prose, two new points in rounds 1–3 and one after (evidence 150–400 characters) and
  stances on the other seats' points: the two newest open ones (contest, agree about a
  third of the time), up to two older ones nobody answered last round (contest, with new
  evidence), and a drop of each of one's own points untouched for two rounds (so no
  issue goes in circles) — the ledger of ``bench.prompts``, with three seats. Prompt
  size = the characters of each seat's prompt (the job's text). Reported: round 7 /
  round 2 (mean of the seats; goal ≤ 1.6×) and the same figure with two seats beside it.
- **prompt sizes**: each seat's prompt at rounds 2 and 5 (seed 0).
- **real claude**: the round-1 ratio again with the real ``claude`` binary against
  FakeAnthropic (instant replies, subprocess runner): three CLIs starting at once against
  one alone. Report only; skipped when the binary is missing.
"""

from __future__ import annotations

import json
import os
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bench.agent import prose
from bench.env import Ctx
from bench.inproc import RunnerCall, new_run, timed_factory
from bench.results import BenchResult, le, spread
from bench.stats import interleave, median, summary

if TYPE_CHECKING:
    from collab.config import DebateConfig
    from collab.orchestrator import Orchestrator
    from collab.runners.base import TurnJob

NAME = "panels"
TOPIC = "Should our public API replace server-side sessions with stateless JWTs?"
PRESET = "bench-panel"
SEATS = 3
SLEEP = 2.0
RUNNERS = ("subprocess", "tmux")
VARIANTS = tuple(f"{kind}-{r}" for r in RUNNERS for kind in ("panel", "alone"))
ROUND1_TARGET = 1.15
REAL_METRIC = "real claude: round 1 wall, 3-seat blind round / one seat alone"
ROUNDS = 7
GROWTH_TARGET = 1.6
SIZE_ROUNDS = (2, 5)

# Three seats that disagree, as a user would write them (``$COLLAB_HOME/presets``).
PANEL_SEATS = (
    ("Security Engineer", "You ask who can abuse this. You cite threat models and incidents. "
     "You must always name the exploit."),
    ("Reliability Engineer", "You ask what breaks at night. You cite SLOs and failure modes. "
     "You must always name the failure."),
    ("Product Manager", "You ask what users gain and when. You cite usage data and deadlines. "
     "You must always name the user."),
)  # fmt: skip
PANEL_TOML = 'title = "Bench panel"\nsummary = "Three seats for the panels bench."\n' + "".join(
    f"\n[[seats]]\nname = {json.dumps(n)}\ndescription = {json.dumps(d)}\n" for n, d in PANEL_SEATS
)


class Unsupported(Exception):
    """This collab cannot seat the panel: every row is skipped with the reason."""


def run(ctx: Ctx) -> BenchResult:
    res = BenchResult(NAME)
    ctx.env.activate()
    write_panel_preset()
    try:
        check_panel()
    except Unsupported as exc:
        note = f"not measured: {exc}"
        res.skip("round 1 wall, 3-seat blind round / one seat alone", "x", le(ROUND1_TARGET), note)
        res.skip("prompt growth, round 7 / round 2 (3 seats)", "x", le(GROWTH_TARGET), note)
        res.skip("prompt size per seat, rounds 2 and 5", "chars", None, note)
        res.skip(REAL_METRIC, "x", None, note)
        res.data = {"skipped": str(exc)}
        ctx.say(f"panels: skipped: {exc}")
        return res
    growth(ctx, res)
    round_one(ctx, res)
    real_claude_round_one(ctx, res)
    return res


# -- the panel -------------------------------------------------------------------------------


def write_panel_preset() -> None:
    from collab.paths import user_dir

    d = user_dir("presets")
    d.mkdir(parents=True, exist_ok=True)
    (d / f"{PRESET}.toml").write_text(PANEL_TOML, encoding="utf-8")


def seats_of(cfg: DebateConfig) -> tuple[str, ...]:
    """The seat labels of a config: A, B (and C … on a collab that seats panels)."""
    seats = getattr(cfg, "seats", None)
    return tuple(seats) if seats else ("A", "B")


def panel_config(given: dict[str, Any], agents: Any) -> DebateConfig:
    """``collab debate`` with ``given`` options and ``--preset bench-panel``; Unsupported
    when this collab cannot seat three."""
    from collab.errors import UsageError
    from collab.request import build_config, request_from
    from collab.settings import user_defaults

    req = request_from({**given, "preset": PRESET}, "cli", user_defaults())
    try:
        cfg = build_config(_with_topic(req), agents)
    except UsageError as exc:
        raise Unsupported(f"this collab refuses a {SEATS}-seat preset ({exc})") from None
    if len(seats_of(cfg)) != SEATS:
        raise Unsupported(f"the {SEATS}-seat preset gave seats {', '.join(seats_of(cfg))}")
    agents_used = {a.agent for a in getattr(cfg, "agents", (cfg.agent_a, cfg.agent_b))}
    if agents_used != {given["agent"]}:
        raise RuntimeError(f"the panel's seats run {sorted(agents_used)}, not {given['agent']}")
    return cfg


def _with_topic(req: Any) -> Any:
    from dataclasses import replace

    return replace(req, topic=TOPIC)


def check_panel() -> None:
    from collab.runners.inprocess import SCRIPTED_AGENTS

    panel_config(_scripted_options(), SCRIPTED_AGENTS.keys())


def _scripted_options() -> dict[str, Any]:
    from collab.runners.inprocess import SCRIPTED

    return {"agent": SCRIPTED, "judge_agent": SCRIPTED, "rounds": ROUNDS, "depth": "deep",
            "runner": "subprocess"}  # fmt: skip


# -- prompt growth (in-process) --------------------------------------------------------------


@dataclass
class Table:
    """A scripted seat's view of the ledger: who raised each issue, which are open. The
    ids follow the order the turns are applied (round 1 in seat order, then in turn)."""

    seats: tuple[str, ...]
    seed: int
    raised: dict[str, str] = field(default_factory=dict)
    touched: dict[str, int] = field(default_factory=dict)
    closed: set[str] = field(default_factory=set)
    round1: list[str] = field(default_factory=list)

    def reply(self, seat: str, r: int) -> str:
        from bench.agent import contract_block

        rng = random.Random(f"{self.seed}-{r}-{seat}")
        n = self.seed * 1000 + r * 10 + self.seats.index(seat)
        open_ids = [i for i in self.raised if i not in self.closed]
        others = [i for i in open_ids if self.raised[i] != seat]
        stances: list[tuple[str, str, str]] = []

        def evidence() -> str:  # new each time: the same words again would go in circles
            return f"Finding {n}-{len(stances)}: " + prose(rng.randint(150, 400), n + len(stances))

        for issue in others[-2:]:
            kind = "agree" if rng.random() < 0.33 else "contest"
            stances.append((issue, kind, evidence()))
        # An older point nobody answered last round is taken up again, with new evidence.
        for issue in [i for i in others[:-2] if self.touched[i] < r - 1][:2]:
            stances.append((issue, "contest", evidence()))
        # One's own point nobody took up for two rounds is dropped, before it goes in circles.
        for issue in [i for i in open_ids if self.raised[i] == seat and self.touched[i] <= r - 2]:
            stances.append((issue, "drop", "Answered well enough: " + evidence()))
            self.closed.add(issue)
        for issue, _, _ in stances:
            self.touched[issue] = r
        count = 2 if r <= 3 else 1
        new = [
            (prose(rng.randint(40, 80), n * 3 + k), prose(rng.randint(150, 400), n * 5 + k))
            for k in range(1, count + 1)
        ]
        if r == 1:  # the blind round's ids are given in seat order once every seat answered
            self.round1.append(seat)
        else:
            self._number(seat, r, count)
        return prose(rng.randint(850, 950), n) + "\n\n" + contract_block(new, stances)

    def number_round1(self) -> None:
        for seat in sorted(self.round1, key=self.seats.index):
            self._number(seat, 1, 2)
        self.round1.clear()

    def _number(self, seat: str, r: int, count: int) -> None:
        for _ in range(count):
            issue = f"I{len(self.raised) + 1}"
            self.raised[issue] = seat
            self.touched[issue] = r


JUDGE = (
    "## TL;DR\nThe Judge's summary.\n\n## Crux\nWhat the question turns on.\n\n"
    "## Open disagreements\n- none left unsaid\n\n## Minority report\nThe other case."
)


def scripted_debate(cfg: DebateConfig, seed: int) -> list[dict[str, Any]]:
    """Drive ``cfg`` to its end on the in-process runner; one row per seat turn."""
    from collab.orchestrator import Orchestrator
    from collab.runners.inprocess import SCRIPTED_AGENTS, InProcessRunner

    seats = seats_of(cfg)
    table = Table(seats, seed)

    def handler(job: TurnJob) -> str:
        if job.step.startswith("judge"):
            return JUDGE
        step = job.step.split("-")
        r, seat = int(step[0][1:]), step[1]
        if r >= 2 and table.round1:
            table.number_round1()
        return table.reply(seat, r)

    runner = InProcessRunner(handler)
    state, run_dir = new_run(cfg, "pending")
    Orchestrator(state, run_dir, agents=SCRIPTED_AGENTS, runner_factory=runner.factory,
                 clock=runner.clock).run()  # fmt: skip
    rows: list[dict[str, Any]] = []
    for job in runner.jobs:  # in the order they ran: a round's position is its order
        step = job.step.split("-")
        if step[0].startswith("r") and len(step) == 3 and step[2] == "1":
            r = int(step[0][1:])
            position = 1 + sum(1 for x in rows if x["round"] == r)
            rows.append({"round": r, "seat": step[1], "chars": len(job.prompt),
                         "position": position})  # fmt: skip
    rounds = {row["round"] for row in rows}
    if max(rounds, default=0) < ROUNDS:
        raise RuntimeError(
            f"the scripted debate stopped after round {max(rounds, default=0)}: "
            f"{state.stop_reason} {state.stop_detail or ''} {state.error or ''}"
        )
    return rows


def per_round(rows: list[dict[str, Any]]) -> dict[int, float]:
    out: dict[int, float] = {}
    for r in sorted({row["round"] for row in rows}):
        xs = [row["chars"] for row in rows if row["round"] == r]
        out[r] = sum(xs) / len(xs)
    return out


def growth(ctx: Ctx, res: BenchResult) -> None:
    from collab.runners.inprocess import SCRIPTED_AGENTS

    panel = panel_config(_scripted_options(), SCRIPTED_AGENTS.keys())
    pair = _pair_config()
    seeds = list(range(ctx.n(3, 10)))
    ratios: dict[str, list[float]] = {"3 seats": [], "2 seats": []}
    first: dict[str, list[dict[str, Any]]] = {}
    for seed in seeds:
        for label, cfg in (("3 seats", panel), ("2 seats", pair)):
            rows = scripted_debate(cfg, seed)
            first.setdefault(label, rows)
            per = per_round(rows)
            ratios[label].append(per[ROUNDS] / per[2])
    ctx.say(f"panels: {len(seeds)} seeded 7-round debates of 3 and of 2 seats")
    per3, per2 = per_round(first["3 seats"]), per_round(first["2 seats"])
    for r in range(1, ROUNDS + 1):
        res.row(f"prompt size, round {r} (mean of 3 seats)", per3[r], "chars", None,
                f"2 seats: {per2[r]:,.0f} chars (seed 0)")  # fmt: skip
    res.row("prompt growth, round 7 / round 2 (3 seats)", median(ratios["3 seats"]), "x",
            le(GROWTH_TARGET), f"median over {len(seeds)} seeded debates · max "
            f"{max(ratios['3 seats']):.2f}× · 2 seats: "
            f"{median(ratios['2 seats']):.2f}×")  # fmt: skip
    for r in SIZE_ROUNDS:
        for seat in seats_of(panel):
            row = next(x for x in first["3 seats"] if x["round"] == r and x["seat"] == seat)
            res.row(f"prompt size, round {r}, seat {seat}", row["chars"], "chars", None,
                    f"speaks {row['position']} of {SEATS} · seed 0")  # fmt: skip
    res.data["growth"] = {
        "ratio_r7_r2": {k: summary(v) for k, v in ratios.items()},
        "per_round_chars_seed0": {k: per_round(v) for k, v in first.items()},
        "per_seat_seed0": first["3 seats"],
    }


def _pair_config() -> DebateConfig:
    from collab.request import build_config, request_from
    from collab.runners.inprocess import SCRIPTED_AGENTS
    from collab.settings import user_defaults

    req = request_from(_scripted_options(), "cli", user_defaults())
    return build_config(_with_topic(req), SCRIPTED_AGENTS.keys())


# -- round 1 wall time -----------------------------------------------------------------------


class _RoundOneOver(Exception):
    pass


def round_one(ctx: Ctx, res: BenchResult) -> None:
    n = ctx.n(3, 8)
    samples: dict[str, list[float]] = {v: [] for v in VARIANTS}
    loads: dict[str, list[float]] = {v: [] for v in VARIANTS}
    os.environ["BENCH_AGENT_SLEEP"] = f"{SLEEP:g}"
    try:
        for v in ctx.interleaved("panels", VARIANTS, n, one):
            loads[v].append(os.getloadavg()[0])
            samples[v].append(one(v))
    finally:
        os.environ.pop("BENCH_AGENT_SLEEP", None)
    ratio: dict[str, float] = {}
    for runner in RUNNERS:
        p, a = samples[f"panel-{runner}"], samples[f"alone-{runner}"]
        ratio[runner] = median(p) / median(a)
        load = median(loads[f"panel-{runner}"] + loads[f"alone-{runner}"])
        res.row(
            f"round 1 wall, 3-seat blind round / one seat alone ({runner} runner)",
            ratio[runner],
            "x",
            le(ROUND1_TARGET),
            f"panel {median(p):.2f} s ({spread(p, 's')}) · alone {median(a):.2f} s · agent "
            f"{SLEEP:g} s/turn · load {load:.2f} (1-min, median)",
        )
    res.data["round1"] = {
        "agent_sleep_s": SLEEP,
        "round1_s": {v: summary(xs) for v, xs in samples.items()},
        "load_1min": {v: summary(xs) for v, xs in loads.items()},
        "ratio": ratio,
    }


def one(variant: str, agent: str = "bench", env: dict[str, str] | None = None) -> float:
    """Round 1's wall time: every seat of the panel at once, or the first seat alone."""
    from collab.events import LedgerUpdated, Logged, RoundStarted, TurnFinished

    kind, runner = variant.split("-", 1)
    wanted = SEATS if kind == "panel" else 1
    started = 0.0
    done: list[float] = []

    def sink(logged: Logged) -> None:
        nonlocal started
        ev = logged.event
        if isinstance(ev, RoundStarted) and ev.round == 1:
            started = time.time()
        elif isinstance(ev, TurnFinished):
            if ev.status != "ok":
                raise RuntimeError(f"panels bench turn failed: {ev.status} {ev.warnings}")
            if ev.round == 1:
                done.append(time.time())
        elif isinstance(ev, LedgerUpdated):
            raise _RoundOneOver

    calls: list[RunnerCall] = []
    orch = _timed(kind, runner, sink, calls, agent, env)
    try:
        orch.run()
    except _RoundOneOver:
        pass
    else:
        raise RuntimeError(f"{variant}: the debate went on past round 1")
    if len(done) < wanted:
        raise RuntimeError(f"{variant}: {len(done)} round-1 turns, error {orch.state.error}")
    return done[wanted - 1] - started


def _timed(
    kind: str,
    runner: str,
    sink: Callable[[Any], None],
    calls: list[RunnerCall],
    agent: str,
    env: dict[str, str] | None,
) -> Orchestrator:
    from collab.agents import load_agents
    from collab.orchestrator import Orchestrator
    from collab.request import build_config, request_from
    from collab.runners import runner_factory
    from collab.settings import user_defaults

    agents = load_agents()
    given: dict[str, Any] = {"agent": agent, "rounds": 2, "runner": runner}
    if kind == "panel":
        cfg = panel_config({**given, "opening": "blind"}, agents.keys())
    else:
        req = request_from({**given, "opening": "sequential"}, "cli", user_defaults())
        cfg = build_config(_with_topic(req), agents.keys())
    state, run_dir = new_run(cfg)
    made: list[tuple[float, float]] = []
    return Orchestrator(
        state, run_dir, agents=agents, runner_factory=timed_factory(
            runner_factory(cfg.runner), calls, made), event_sinks=(sink,), env=env,
    )  # fmt: skip


def real_claude_round_one(ctx: Ctx, res: BenchResult) -> None:
    """The same ratio with the real ``claude`` binary against FakeAnthropic (instant
    replies, subprocess runner): what three CLIs starting at once cost. Report only."""
    from bench.agent import debater_reply
    from bench.fakeclaude import real_claude, unavailable

    why = unavailable()
    if why is not None:
        res.skip(REAL_METRIC, "x", None, why)
        return
    from tests.fakes import Reply

    n = ctx.n(2, 5)
    variants = ("panel-subprocess", "alone-subprocess")
    samples: dict[str, list[float]] = {v: [] for v in variants}
    loads: list[float] = []
    with real_claude(ctx, "panels") as rc:
        rc.server.default(Reply(text=debater_reply(seed=7)))
        for v in variants:  # warm-up
            one(v, "claude", rc.env)
        for v in interleave(variants, n):
            loads.append(os.getloadavg()[0])
            samples[v].append(one(v, "claude", rc.env))
    p, a = samples["panel-subprocess"], samples["alone-subprocess"]
    res.row(REAL_METRIC, median(p) / median(a), "x", None,
            f"panel {median(p):.2f} s ({spread(p, 's')}) · alone {median(a):.2f} s · "
            f"claude {rc.version or '?'} · load {median(loads):.2f} (1-min, median)")  # fmt: skip
    ctx.say(f"panels: real claude, {n} samples of each")
    res.data["real_claude_round1"] = {
        "round1_s": {v: summary(xs) for v, xs in samples.items()},
        "load_1min": summary(loads),
        "version": rc.version,
    }
