"""The real orchestrator on the in-process runner: every stop rule, the blind round,
re-ask, retries and timeouts (on a fake clock), the Judge's fallback, the budget and cost
stops, and resume from every point a run saves — for two seats and for panels of 3–5.
Milliseconds a debate, no processes."""

from __future__ import annotations

import copy
import functools
import json
import os
import pickle
import shutil
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from collab.errors import Interrupted, PrerequisiteError, RunnerError
from collab.orchestrator import Orchestrator
from collab.request import DebateRequest, build_config
from collab.runners.base import TurnJob
from collab.runners.inprocess import (
    SCRIPTED,
    SCRIPTED_AGENTS,
    Handler,
    InProcessRunner,
    Reply,
    script,
)
from collab.state import RunState
from collab.store import RunDir, make_private_dirs, new_run_id, runs_dir
from tests.helpers import JUDGE_REST

Answer = Reply | str


@pytest.fixture(autouse=True)
def home_in_memory(hermetic_env: Path) -> Iterator[None]:
    """COLLAB_HOME on tmpfs where there is one: tests/unit/conftest.py now does it for
    every unit test (kept for the modules that import it)."""
    yield


def said(
    new: Sequence[str] = (),
    stances: Sequence[tuple[str, str, str]] = (),
    prose: str = "My argument.",
) -> str:
    """A reply: prose, then the contract block (new point titles; (id, stance, evidence))."""
    doc = {
        "new_points": [{"title": t, "evidence": f"evidence for {t}"} for t in new],
        "stances": [{"id": i, "stance": s, "evidence": e} for i, s, e in stances],
        "abstain": None,
    }
    return f"{prose}\n\n```json\n{json.dumps(doc)}\n```\n"


QUIET = said()
NO_BLOCK = "Just prose, no contract block at all."
JUDGE = "## TL;DR\nThe Judge's summary." + JUDGE_REST
REFUSAL = "I'm sorry, but I can't provide a judgement on this debate."


def fresh_point(job: TurnJob) -> str:
    """Every turn a new point of its own; the Judge writes its summary."""
    return JUDGE if job.step.startswith("judge") else said([f"point of {job.step}"])


def circling(job: TurnJob) -> str:
    """Each side contests I1 with the same words every round; A adds a point each round
    and drops its last one (so no round is quiet): only the circularity rule can stop it."""
    if job.step.startswith("judge"):
        return JUDGE
    r, side = int(job.step.split("-")[0][1:]), job.step.split("-")[1]
    if r == 1:
        return said(["the crux"]) if side == "A" else QUIET
    if side == "B":
        return said([], [("I1", "contest", "B holds its ground")])
    drop = [(f"I{r - 1}", "drop", "said enough")] if r > 2 else []
    return said([f"point of round {r}"], [("I1", "contest", "A holds its ground"), *drop])


@dataclass
class Run:
    state: RunState
    runner: InProcessRunner
    events: list[dict[str, object]]
    # Each document saved, as handed to the save (its top level copied then; what it
    # holds is never changed after), made JSON on first reading (few tests read them).
    saved: list[dict[str, object]] = field(default_factory=list)
    error: BaseException | None = None
    _saves: list[dict[str, Any]] | None = field(default=None, init=False, repr=False)

    @property
    def saves(self) -> list[dict[str, Any]]:
        """Each state.json document the run saved, in order, as JSON reads it back."""
        if self._saves is None:
            self._saves = [json.loads(json.dumps(doc)) for doc in self.saved]
        return self._saves

    def steps(self) -> list[str]:
        return self.runner.steps()

    def kinds(self) -> list[object]:
        return [e["event"] for e in self.events]


def config(**options: Any) -> Any:
    return _config(tuple(sorted(options.items())))


@functools.lru_cache
def _config(options: tuple[tuple[str, Any], ...]) -> Any:
    """A frozen DebateConfig, built (presets read, topic scanned) once per set of options."""
    req = DebateRequest(
        topic="Tabs or spaces?", agent_a=SCRIPTED, agent_b=SCRIPTED, judge_agent=SCRIPTED,
        runner="subprocess", **dict(options),
    )  # fmt: skip
    return build_config(req, SCRIPTED_AGENTS.keys())


def debate(
    replies: Mapping[str, Sequence[Answer]] | Handler,
    default: Answer | Handler = fresh_point,
    *,
    state: RunState | None = None,
    **options: Any,
) -> Run:
    """Drive one run (or resume ``state``) to its end with scripted replies."""
    if not callable(replies) and not callable(default) and "judge" not in replies:
        # A constant answer is a debater's: the Judge still writes its sections.
        replies = {**replies, "judge": [JUDGE]}
    handler = replies if callable(replies) else script(replies, default)
    runner = InProcessRunner(handler)
    if state is None:
        run_dir = RunDir(new_run_id())
        run_dir.create()
        state = RunState(run_id=run_dir.run_id, config=config(**options), status="pending")
        resumed = False
    else:  # resumed from ``state``, as a crash left it on disk (a drive reads it again)
        run_dir = RunDir(state.run_id)
        run_dir.save(state.to_dict())
        resumed = True
    events: list[dict[str, object]] = []
    saved: list[dict[str, object]] = []
    save = run_dir.save

    def keep(doc: dict[str, object]) -> None:
        saved.append(dict(doc))  # before the save adds its version and time
        save(doc)

    run_dir.save = keep  # type: ignore[method-assign,assignment]
    orch = Orchestrator(
        state, run_dir, agents=SCRIPTED_AGENTS, runner_factory=runner.factory,
        event_sinks=[lambda logged: events.append(logged.to_json())], resumed=resumed,
        clock=runner.clock,
    )  # fmt: skip
    run = Run(state, runner, events, saved)
    try:
        orch.run()
    except (Interrupted, PrerequisiteError) as exc:
        run.error = exc
    return run


def shared(make: Callable[..., Run]) -> Callable[..., Run]:
    """``make(*args)``'s run, driven once per session and per ``args`` (in a COLLAB_HOME
    of its own, the environment otherwise the test's), for tests that read a finished run:
    each call copies its run directory into the test's COLLAB_HOME and hands back a copy
    of the Run (state, events and saves; the runner is only read), so whatever a test
    changes no other test sees, in any order. A second call in one home (a test that
    wants two such runs) drives a new run, as ``make`` would. Only for a ``make`` whose
    run depends on its arguments alone (no monkeypatch, no stateful handler) and for tests
    that do not read its plan (made from the past runs of an empty home)."""
    made: dict[object, tuple[Path, Run]] = {}

    @functools.wraps(make)
    def copied(*args: Any, **kwargs: Any) -> Run:
        key = (args, tuple(sorted(kwargs.items())))
        if key not in made or not made[key][0].is_dir():  # (its session's scratch is gone)
            # beside the test's own home (hermetic_env's), in the session's scratch folder
            # (tests/unit/conftest.py), removed at the end whichever process made this
            here = os.environ["COLLAB_HOME"]
            home = Path(tempfile.mkdtemp(prefix="shared-", dir=Path(here).parent))
            os.environ["COLLAB_HOME"] = str(home)
            try:
                made[key] = (home, make(*args, **kwargs))
            finally:
                os.environ["COLLAB_HOME"] = here
        home, run = made[key]
        rid = run.state.run_id
        if (runs_dir() / rid).exists():
            return make(*args, **kwargs)
        make_private_dirs(runs_dir())
        shutil.copytree(home / "runs" / rid, runs_dir() / rid)
        state, events = _copy_of((run.state, run.events))
        return Run(state, run.runner, events, list(run.saved), run.error)

    return copied


def _copy_of(obj: Any) -> Any:
    """A deep copy of ``obj`` (a run's state and events): pickle's round trip, ~4x cheaper
    than ``copy.deepcopy`` on a run's state (0.5 ms, not 2–4, per test reading a shared run),
    the same copy for plain data and dataclasses (objects shared within it stay shared);
    ``copy.deepcopy`` for whatever pickle cannot take."""
    try:
        return pickle.loads(pickle.dumps(obj, pickle.HIGHEST_PROTOCOL))
    except (pickle.PicklingError, TypeError, AttributeError):
        return copy.deepcopy(obj)


@shared  # the plain run of fresh points: read in several files (steering, favours, resume)
def fresh_run(**options: Any) -> Run:
    """``debate({}, fresh_point, **options)``: every turn a new point of its own."""
    return debate({}, fresh_point, **options)


@shared
def _quiet_run(**options: Any) -> Run:
    return debate({}, QUIET, **options)


def quiet_run(**options: Any) -> Run:
    """``debate({}, QUIET, **options)``, driven once per set of options (files that read
    the same quiet run share it); ``lang="en"`` is the default's config, so the same run."""
    if options.get("lang") == "en":
        assert config(**options) == config(**{k: v for k, v in options.items() if k != "lang"})
        options = {k: v for k, v in options.items() if k != "lang"}
    return _quiet_run(**options)


def test_a_shared_run_is_driven_again_once_its_scratch_folder_is_gone() -> None:
    """A process running pytest more than once (mutmut does) keeps a shared run's record
    after the session that removed its folder: it is driven again, not copied from nowhere."""
    made: list[Run] = []

    @shared
    def one_round() -> Run:
        made.append(debate({}, rounds=1))
        return made[-1]

    first = one_round()
    rid = first.state.run_id
    (folder,) = [h for h in Path(os.environ["COLLAB_HOME"]).parent.glob("shared-*")
                 if (h / "runs" / rid).is_dir()]  # fmt: skip
    shutil.rmtree(folder)  # as the scratch folder's removal at the end of a session
    shutil.rmtree(runs_dir() / rid)  # and this test's home as a new test's, empty
    again = one_round()
    assert len(made) == 2 and again.state.run_id == made[1].state.run_id != rid
    assert (runs_dir() / again.state.run_id / "state.json").is_file()


def by_round(steps: Sequence[str]) -> list[str]:
    """Steps in a stable order (the blind round's two sides run at once)."""
    return sorted(steps, key=lambda s: (s.startswith("judge"), s))


# -- every stop rule ---------------------------------------------------------------------


class Stop(NamedTuple):
    test_id: str
    replies: Mapping[str, Sequence[Answer]]
    default: Answer | Handler
    options: dict[str, Any]
    reason: str
    detail: str
    steps: list[str]
    status: str = "done"


STOPS = [
    Stop("max-rounds", {}, fresh_point, {}, "max-rounds", "reached 3/3 rounds",
         ["r1-A-1", "r1-B-1", "r2-A-1", "r2-B-1", "r3-A-1", "r3-B-1", "judge-1"]),
    Stop("all-resolved", {"r1-A": [said(["tabs"])], "r2-B": [said([], [("I1", "agree", "fair")])]},
         QUIET, {"rounds": 5}, "converged-early", "the only issue is resolved or dropped",
         ["r1-A-1", "r1-B-1", "r2-A-1", "r2-B-1", "judge-1"]),
    Stop("all-dropped", {"r1-A": [said(["tabs"])], "r2-A": [said([], [("I1", "drop", "moot")])]},
         QUIET, {"rounds": 5}, "converged-early", "the only issue is resolved or dropped",
         ["r1-A-1", "r1-B-1", "r2-A-1", "r2-B-1", "judge-1"]),
    Stop("two-quiet-rounds", {"r1-A": [said(["tabs"])], "judge": [JUDGE]}, QUIET,
         {"rounds": 5}, "converged-early", "no new points in rounds 2 and 3",
         ["r1-A-1", "r1-B-1", "r2-A-1", "r2-B-1", "r3-A-1", "r3-B-1", "judge-1"]),
    Stop("circular-break", {}, circling, {"rounds": 7}, "circular-break",
         "I1 went round in circles for 3 rounds after a new angle",
         [f"r{r}-{s}-1" for r in range(1, 6) for s in "AB"] + ["judge-1"]),
    Stop("circular-on-last-round-is-max-rounds", {}, circling, {"rounds": 4}, "max-rounds",
         "reached 4/4 rounds", [f"r{r}-{s}-1" for r in range(1, 5) for s in "AB"] + ["judge-1"]),
    Stop("budget-spent-mid-round", {"r1-A": [Reply(seconds=60)] * 2}, fresh_point,
         {"budget": 50, "opening": "sequential"}, "timeout", "time budget of 50s spent",
         ["r1-A-1", "r1-A-2", "judge-1"], "failed"),
    Stop("budget-spent-after-round", {}, Reply(said(["x"]), seconds=30), {"budget": 100,
         "opening": "sequential"}, "timeout", "time budget spent after round 2",
         ["r1-A-1", "r1-B-1", "r2-B-1", "r2-A-1", "r2-A-2", "judge-1"]),  # round 2 ends with A
    Stop("cost-cap", {}, Reply(said(["x"]), cost_usd=0.03), {"max_cost": 0.05,
         "opening": "sequential"}, "budget", "cost $0.0600 reached the --max-cost cap of $0.05",
         ["r1-A-1", "r1-B-1"]),
    Stop("cost-cap-blind-checked-once", {}, Reply(said(["x"]), cost_usd=0.03),
         {"max_cost": 0.01}, "budget", "cost $0.0600 reached the --max-cost cap of $0.01",
         ["r1-A-1", "r1-B-1"]),
]  # fmt: skip


@shared  # each case driven once: the tests below read some of the same runs
def stopped(test_id: str) -> Run:
    """The run of the stop rule case ``test_id``."""
    case = next(c for c in STOPS if c.test_id == test_id)
    return debate(case.replies, case.default, **case.options)


@pytest.mark.parametrize("case", STOPS, ids=[c.test_id for c in STOPS])
def test_stop_rules(case: Stop) -> None:
    run = stopped(case.test_id)
    assert run.error is None
    assert (run.state.stop_reason, run.state.stop_detail) == (case.reason, case.detail)
    assert by_round(run.steps()) == by_round(case.steps)
    assert run.state.status == case.status
    assert run.state.judge is not None
    stops = [e for e in run.events if e["event"] == "stop"]
    assert [(e["reason"], e["detail"]) for e in stops] == [(case.reason, case.detail)]


def test_a_new_angle_is_injected_once_before_the_circular_break() -> None:
    run = stopped("circular-break")  # debate({}, circling, rounds=7)
    angle = run.state.angle
    assert angle is not None and (angle.round_no, angle.issue_ids[0]) == (5, "I1")
    r5 = [job.prompt for job in run.runner.jobs if job.step.startswith("r5-")]
    r4 = [job.prompt for job in run.runner.jobs if job.step.startswith("r4-")]
    assert all(angle.text in p for p in r5) and not any(angle.text in p for p in r4)
    assert [e["round"] for e in run.events if e["event"] == "angle"] == [5]


def test_the_budget_bounds_each_turns_timeout_on_the_clock() -> None:
    # debate({}, Reply(said(["x"]), seconds=30), budget=100, opening="sequential")
    run = stopped("budget-spent-after-round")
    timeouts = {job.step: job.timeout for job in run.runner.jobs}
    # 90 s spent before r2-A (round 2 ends with A): it gets the 10 left, and both
    # attempts time out.
    assert (timeouts["r1-A-1"], timeouts["r2-B-1"], timeouts["r2-A-1"]) == (100, 40, 10)
    b2 = run.state.turn(2, "A")
    assert b2 is not None and (b2.status, b2.meta.attempts) == ("timeout", 2)


def test_the_cost_cap_skips_the_judge_for_the_ledger_summary() -> None:
    # debate({}, Reply(said(["x"]), cost_usd=0.03), max_cost=0.05, opening="sequential")
    run = stopped("cost-cap")
    judge = run.state.judge
    assert judge is not None and judge.fallback and judge.meta is None
    why = "the cost cap was reached before the Judge was asked."
    assert judge.text.splitlines()[0].endswith(why)
    assert "judge" not in " ".join(run.steps())
    assert any("cost cap reached" in str(e.get("text")) for e in run.events)


# -- the blind round -------------------------------------------------------------------


@shared  # driven once; each test gets a copy in its own home
def secrets() -> Run:
    """Each side's round 1 holds a secret of its own."""
    return debate({"r1-A": [said(["secret of A"])], "r1-B": [said(["secret of B"])]})


def test_the_blind_round_hides_each_sides_reply_from_the_other() -> None:
    run = secrets()
    prompts = {job.step: job.prompt for job in run.runner.jobs}
    assert "secret of A" not in prompts["r1-B-1"] and "secret of B" not in prompts["r1-A-1"]
    assert "secret of A" in prompts["r2-B-1"] and "secret of B" in prompts["r2-A-1"]
    assert len(run.runner.companions) == 1 and run.runner.companions[0].closed


def test_a_blind_side_resumed_alone_sees_nothing_of_the_saved_side() -> None:
    whole = secrets()
    one = next(s for s in whole.saves if len(s["turns"]) == 1)
    saved = one["turns"][0]["side"]
    other = "B" if saved == "A" else "A"
    again = debate({}, state=RunState.from_dict(one))
    prompts = {job.step: job.prompt for job in again.runner.jobs}
    assert f"r1-{saved}-1" not in prompts
    assert f"secret of {saved}" not in prompts[f"r1-{other}-1"]
    assert f"secret of {saved}" in prompts[f"r2-{other}-1"]


def test_sequential_opening_shows_b_what_a_wrote_in_round_one() -> None:
    run = debate({"r1-A": [said(["secret of A"])]}, opening="sequential")
    prompts = {job.step: job.prompt for job in run.runner.jobs}
    assert "secret of A" in prompts["r1-B-1"]
    assert run.runner.companions == []


def test_a_failing_side_cancels_the_other_through_the_flag() -> None:
    lost = Reply(exit_code=1, stderr="not logged in")
    run = debate({"r1-A": [Reply(wait_cancel=True)], "r1-B": [lost]})
    assert isinstance(run.error, PrerequisiteError)
    assert "login failed" in str(run.error) and f"collab resume {run.state.run_id}" in str(
        run.error
    )
    assert (run.state.status, run.state.turns) == ("failed", [])
    assert run.kinds()[-1] == "run_finished"


def test_an_error_that_ends_the_run_is_not_rewritten_in_flight() -> None:
    """The run says how to go on in a new error of the same kind; the one raised below
    keeps its message (nothing above patches what a lower layer raised)."""
    lost = RunnerError("the pane is gone", hint="check tmux")
    with pytest.raises(RunnerError) as caught:
        debate({"r1-A": [Reply(error=lost)]}, opening="sequential")
    raised = caught.value
    assert raised is not lost and raised.__cause__ is lost
    assert (lost.message, lost.hint) == ("the pane is gone", "check tmux")
    assert raised.message.startswith("the pane is gone; state saved — fix it, then: collab resume ")
    assert raised.hint == "check tmux" and raised.exit_code == lost.exit_code


def test_ctrl_c_mid_run_saves_and_says_how_to_resume() -> None:
    run = debate({"r2-B": [Reply(error=KeyboardInterrupt())]})  # round 2's first speaker
    assert isinstance(run.error, Interrupted)
    assert run.state.status == "interrupted" and len(run.state.turns) == 2
    assert run.saves[-1]["status"] == "interrupted"
    assert run.events[-1]["exit_code"] == 130


# -- re-ask, retries, timeouts ---------------------------------------------------------


class TurnCase(NamedTuple):
    test_id: str
    attempts: dict[str, list[Answer]]  # r1-A's steps (r1-A, r1-A-fix) and their attempts
    status: str
    steps: list[str]  # of r1-A, in order
    issues: int  # in the ledger after round 1 (r1-B raises none)
    retried: list[str]  # turn_retry reasons


TURN_CASES = [
    TurnCase("ok", {"r1-A": [said(["p"])]}, "ok", ["r1-A-1"], 1, []),
    TurnCase("reask-mends", {"r1-A": [NO_BLOCK], "r1-A-fix": [said(["p"])]}, "ok",
             ["r1-A-1", "r1-A-fix-1"], 1, []),
    TurnCase("reask-fails-too", {"r1-A": [NO_BLOCK], "r1-A-fix": [NO_BLOCK]}, "ok",
             ["r1-A-1", "r1-A-fix-1"], 0, []),
    TurnCase("reask-errors", {"r1-A": [NO_BLOCK], "r1-A-fix": [Reply(exit_code=1,
             stderr="boom")]}, "ok", ["r1-A-1", "r1-A-fix-1"], 0, []),
    TurnCase("error-then-ok", {"r1-A": [Reply(exit_code=1, stderr="boom"), said(["p"])]},
             "ok", ["r1-A-1", "r1-A-2"], 1, ["error"]),
    TurnCase("empty-twice", {"r1-A": ["", ""]}, "no-response", ["r1-A-1", "r1-A-2"], 0,
             ["no-response"]),
    TurnCase("timeout-twice", {"r1-A": [Reply(hang=True)] * 2}, "timeout",
             ["r1-A-1", "r1-A-2"], 0, ["timeout"]),
    TurnCase("timeout-then-ok", {"r1-A": [Reply(hang=True), said(["p"])]}, "ok",
             ["r1-A-1", "r1-A-2"], 1, ["timeout"]),
    TurnCase("abstain", {"r1-A": ["Nothing to add.\n\n```json\n" + json.dumps(
             {"new_points": [], "stances": [], "abstain": "agree with all"}) + "\n```"]},
             "abstain", ["r1-A-1"], 0, []),
]  # fmt: skip


@shared  # each case driven once: test_an_unusable_contract_twice... reads one of them too
def turned(test_id: str) -> Run:
    """The two-round run of the turn case ``test_id`` (r1-A's attempts; all else quiet)."""
    case = next(c for c in TURN_CASES if c.test_id == test_id)
    return debate({**case.attempts, "r1-B": [QUIET]}, QUIET, rounds=2)


@pytest.mark.parametrize("case", TURN_CASES, ids=[c.test_id for c in TURN_CASES])
def test_one_turn(case: TurnCase) -> None:
    run = turned(case.test_id)
    a1 = run.state.turn(1, "A")
    assert a1 is not None and a1.status == case.status
    assert [s for s in run.steps() if s.startswith("r1-A")] == case.steps
    assert len(run.state.ledger(1).issues) == case.issues
    assert [e["reason"] for e in run.events if e["event"] == "turn_retry"] == case.retried
    assert (a1.reask is not None) == any("fix" in s for s in case.steps)
    assert a1.meta.attempts == len([s for s in case.steps if "fix" not in s])


def test_an_unusable_contract_twice_is_a_warning_and_no_ledger_change() -> None:
    # debate({"r1-A": [NO_BLOCK], "r1-A-fix": [NO_BLOCK], "r1-B": [QUIET]}, QUIET, rounds=2)
    run = turned("reask-fails-too")
    a1 = run.state.turn(1, "A")
    assert a1 is not None and a1.contract is None and a1.contract_error
    assert any("unusable twice" in w for w in a1.warnings)
    fix = next(job for job in run.runner.jobs if job.step == "r1-A-fix-1")
    assert NO_BLOCK[:20] in fix.prompt


def test_every_turn_failing_fails_the_run() -> None:
    run = debate({}, Reply(exit_code=1, stderr="boom"), rounds=2)
    assert run.state.status == "failed"
    assert run.state.error == "every turn failed (last: boom)"
    assert run.events[-1]["exit_code"] == 1


def test_the_whole_reply_is_kept_once_in_the_run_dir() -> None:
    long = said(["p"], prose="x" * 20_000)
    run = debate({"r1-A": [long]}, QUIET, rounds=2)
    a1 = run.state.turn(1, "A")
    assert a1 is not None and a1.raw_file == "replies/r1-A.txt"
    assert (RunDir(run.state.run_id).path / a1.raw_file).read_text() == long.strip()
    assert len(a1.reply) < len(long)


# -- the Judge -------------------------------------------------------------------------


class JudgeCase(NamedTuple):
    test_id: str
    attempts: list[Answer]
    fallback: bool
    steps: list[str]
    fixes: list[Answer] | None = None  # the retry that names the missing sections
    why: str = ""  # the fallback summary's first line ends so: it says what happened


NO_ANSWER = "the Judge did not answer."
NO_SECTIONS = "the Judge answered without the required sections."
JUDGES = [
    JudgeCase("answers", [JUDGE], False, ["judge-1"]),
    JudgeCase("fails-then-answers", [Reply(exit_code=1, stderr="x"), JUDGE], False,
              ["judge-1", "judge-2"]),
    JudgeCase("fails-twice", [Reply(exit_code=1, stderr="x")] * 2, True, ["judge-1", "judge-2"],
              why=NO_ANSWER),
    JudgeCase("times-out-twice", [Reply(hang=True)] * 2, True, ["judge-1", "judge-2"],
              why=NO_ANSWER),
    JudgeCase("no-sections-then-mended", ["## TL;DR\nonly this"], False,
              ["judge-1", "judge-fix-1"], [JUDGE]),
    JudgeCase("refuses-twice", [REFUSAL], True, ["judge-1", "judge-fix-1"], [REFUSAL],
              why=NO_SECTIONS),
    JudgeCase("refuses-then-fails", [REFUSAL], True, ["judge-1", "judge-fix-1", "judge-fix-2"],
              [Reply(exit_code=1, stderr="x")] * 2, why=NO_SECTIONS),
]  # fmt: skip


@pytest.mark.parametrize("case", JUDGES, ids=[j.test_id for j in JUDGES])
def test_the_judge(case: JudgeCase) -> None:
    script: dict[str, list[Answer]] = {"judge": case.attempts, "r1-A": [said(["tabs"])]}
    if case.fixes is not None:
        script["judge-fix"] = case.fixes
    run = debate(script, QUIET, rounds=2)
    judge = run.state.judge
    assert judge is not None and judge.fallback == case.fallback
    assert [s for s in run.steps() if s.startswith("judge")] == case.steps
    if case.fallback:
        assert "I1" in judge.text and "tabs" in judge.text  # the ledger, summarised
        assert judge.text.splitlines()[0].endswith(case.why)
    else:
        assert "The Judge's summary." in judge.text
    assert [e["fallback"] for e in run.events if e["event"] == "judge_finished"] == [case.fallback]
    assert run.state.status == "done"


# -- resume from every saved point ------------------------------------------------------


def _resume_cases() -> list[tuple[str, dict[str, Any]]]:
    """(where, options) of runs whose every save is a point to resume from."""
    return [
        ("blind-max-rounds", {"rounds": 2}),
        ("sequential", {"rounds": 2, "opening": "sequential"}),
        ("converged", {"rounds": 4}),
    ]


def _replies(where: str) -> Mapping[str, Sequence[Answer]]:
    if where == "converged":
        return {"r1-A": [said(["tabs"])], "r2-B": [said([], [("I1", "agree", "ok")])]}
    return {}


def _default(where: str) -> Answer | Handler:
    return QUIET if where == "converged" else fresh_point


@pytest.mark.parametrize(("where", "options"), _resume_cases(), ids=lambda v: str(v)[:20])
def test_resume_from_every_saved_point(where: str, options: dict[str, Any]) -> None:
    if where == "blind-max-rounds":  # debate({}, fresh_point, rounds=2), as other files read
        whole = fresh_run(**options)
    else:
        whole = debate(_replies(where), _default(where), **options)
    assert whole.error is None and len(whole.saves) >= 5
    resumes_from_every_save(whole, lambda st: debate(_replies(where), _default(where), state=st))


def resumes_from_every_save(whole: Run, resume: Callable[[RunState], Run]) -> None:
    """Each state ``whole`` saved, resumed: nothing done twice, nothing missed, and the
    same debate in the end (its turns, Judge and each round's order)."""
    done_steps = by_round(whole.steps())
    for n, saved in enumerate(whole.saves):
        state = RunState.from_dict(saved)
        held = {f"r{t.round_no}-{t.side}-1" for t in state.turns}
        if state.judge is not None:
            held.add("judge-1")
        again = resume(state)
        assert again.error is None, n
        assert by_round(again.steps()) == [s for s in done_steps if s not in held], n
        assert _outcome(again.state) == _outcome(whole.state), n
        assert [o.order for o in again.state.round_orders] == [
            o.order for o in whole.state.round_orders
        ], n


def _outcome(st: RunState) -> tuple[object, ...]:
    turns = [(t.round_no, t.side, t.status, t.prose) for t in st.turns]
    judge = None if st.judge is None else (st.judge.text, st.judge.fallback)
    return (st.status, st.stop_reason, st.stop_detail, turns, judge, st.checked_rounds)


def test_resume_after_ctrl_c_finishes_the_run() -> None:
    broken = debate({"r2-A": [Reply(error=KeyboardInterrupt())]}, rounds=2)  # the last speaker
    assert isinstance(broken.error, Interrupted)
    again = debate({}, state=RunState.from_dict(broken.saves[-1]))
    assert by_round(again.steps()) == ["r2-A-1", "judge-1"]
    assert again.state.status == "done" and again.state.stop_reason == "max-rounds"
    assert again.kinds()[0] == "run_started" and again.events[0]["resumed"] is True


# -- what the listeners hear ------------------------------------------------------------


def test_events_in_order_with_the_live_text() -> None:
    run = debate(
        {"r1-A": [said(["tabs"], prose="Tabs are wider.")], "judge": [JUDGE]}, QUIET, rounds=2
    )
    kinds = run.kinds()
    assert kinds[0] == "run_started" and kinds[-1] == "run_finished"
    order = ["round_started", "turn_started", "turn_finished", "ledger", "stop",
             "judge_started", "judge_finished"]  # fmt: skip
    firsts = [kinds.index(k) for k in order]
    assert firsts == sorted(firsts)
    texts = "".join(str(e["text"]) for e in run.events if e["event"] == "text")
    assert "Tabs are wider." in texts and "The Judge's summary." in texts
    seqs = [int(str(e["seq"])) for e in run.events]
    assert seqs == sorted(set(seqs))


def test_turn_context_hands_down_where_a_call_ends() -> None:
    """The Judge is not bounded by the run's budget; a turn is, by the clock it is given."""
    seen: list[tuple[str, float]] = []

    def timing(job: TurnJob) -> Answer:
        seen.append((job.step, job.timeout))
        return JUDGE if job.step.startswith("judge") else Reply(said(["p"]), seconds=5)

    debate(timing, rounds=2, budget=8, timeout=6, judge_timeout=70, opening="sequential")
    assert dict(seen)["judge-1"] == 70
    assert (dict(seen)["r1-A-1"], dict(seen)["r1-B-1"]) == (6, 3)


# -- the same tables for panels of 3–5 seats ---------------------------------------------

PANEL_ROLES = (
    "Skeptic: doubts every claim",
    "Builder: wants it shipped",
    "Operator: runs it at 3 a.m.",
    "Security: guards the data",
    "Finance: counts the cost",
)


def seats_of(n: int) -> str:
    return "ABCDE"[:n]


def every_seat(n: int, rounds: Sequence[int], judge: Sequence[str] = ("judge-1",)) -> list[str]:
    return [f"r{r}-{s}-1" for r in rounds for s in seats_of(n)] + list(judge)


def raise_then(stance: str) -> Handler:
    """A raises the crux in round 1; in round 2 every other seat (``agree``) or A itself
    (``drop``) settles it with a reason; every other turn is quiet."""

    def handler(job: TurnJob) -> Answer:
        if job.step.startswith("judge"):
            return JUDGE
        r, seat = int(job.step.split("-")[0][1:]), job.step.split("-")[1]
        if r == 1:
            return said(["the crux"]) if seat == "A" else QUIET
        if r == 2 and (seat == "A") == (stance == "drop"):
            return said([], [("I1", stance, f"{seat} has a reason")])
        return QUIET

    return handler


def circling_panel(job: TurnJob) -> Answer:
    """``circling`` for any seat count: every seat but A contests I1 with its same words."""
    seat = job.step.split("-")[1] if not job.step.startswith("judge") else ""
    if seat in "CDE" and seat and not job.step.startswith("r1-"):
        return said([], [("I1", "contest", f"{seat} holds its ground")])
    if seat in "CDE" and seat:
        return QUIET
    return circling(job)


class PanelStop(NamedTuple):
    test_id: str
    replies: Mapping[str, Sequence[Answer]]
    default: Answer | Handler
    options: dict[str, Any]
    reason: str
    detail: Any  # str, or the seat count → str
    steps: Any  # the seat count → the steps
    status: str = "done"


NO_CONTRACT_DETAIL = (
    "no usable contract block from any side in round 1, even after the re-asks: the agents "
    "are not following the contract; check the model (a small or local model may not)"
)
PANEL_STOPS = [
    PanelStop("max-rounds", {}, fresh_point, {}, "max-rounds", "reached 3/3 rounds",
              lambda n: every_seat(n, (1, 2, 3))),
    PanelStop("every-other-seat-agrees", {}, raise_then("agree"), {"rounds": 5},
              "converged-early", "the only issue is resolved or dropped",
              lambda n: every_seat(n, (1, 2))),
    PanelStop("the-raiser-drops", {}, raise_then("drop"), {"rounds": 5}, "converged-early",
              "the only issue is resolved or dropped", lambda n: every_seat(n, (1, 2))),
    PanelStop("two-quiet-rounds", {"r1-A": [said(["tabs"])]}, QUIET, {"rounds": 5},
              "converged-early", "no new points in rounds 2 and 3",
              lambda n: every_seat(n, (1, 2, 3))),
    PanelStop("circular-break", {}, circling_panel, {"rounds": 7}, "circular-break",
              "I1 went round in circles for 3 rounds after a new angle",
              lambda n: every_seat(n, range(1, 6))),
    PanelStop("no-contract", {}, NO_BLOCK, {"rounds": 3}, "no-contract", NO_CONTRACT_DETAIL,
              lambda n: [f"r1-{s}-{k}" for s in seats_of(n) for k in ("1", "fix-1")]
              + ["judge-1"]),
    PanelStop("one-seat-follows-the-contract-goes-on", {"r1-C": [said(["only C"])]}, NO_BLOCK,
              {"rounds": 2}, "max-rounds", "reached 2/2 rounds",
              lambda n: [f"r{r}-{s}-{k}" for r in (1, 2) for s in seats_of(n)
                         for k in ("1", "fix-1") if not (r == 1 and s == "C" and k != "1")]
              + ["judge-1"]),
    PanelStop("budget-spent-mid-round", {"r1-A": [Reply(seconds=60)] * 2}, fresh_point,
              {"budget": 50, "opening": "sequential"}, "timeout", "time budget of 50s spent",
              lambda n: ["r1-A-1", "r1-A-2", "judge-1"], "failed"),
    PanelStop("cost-cap", {}, Reply(said(["x"]), cost_usd=0.03), {"max_cost": 0.05,
              "opening": "sequential"}, "budget",
              "cost $0.0600 reached the --max-cost cap of $0.05", lambda n: ["r1-A-1", "r1-B-1"]),
    PanelStop("cost-cap-blind-checked-once", {}, Reply(said(["x"]), cost_usd=0.03),
              {"max_cost": 0.01}, "budget",
              lambda n: f"cost ${0.03 * n:.4f} reached the --max-cost cap of $0.01",
              lambda n: every_seat(n, (1,), ())),
]  # fmt: skip
# Every row with three seats; with five where the seat count shows in the outcome.
FIVE = ("every-other-seat-agrees", "no-contract", "one-seat-follows-the-contract-goes-on",
        "cost-cap-blind-checked-once")  # fmt: skip
PANEL_STOP_CASES = [(c, n) for c in PANEL_STOPS for n in (3, 5) if n == 3 or c.test_id in FIVE]


def panel(n: int, replies: Any, default: Any = QUIET, **options: Any) -> Run:
    return debate(replies, default, role=PANEL_ROLES[:n], agents=(SCRIPTED,), **options)


@pytest.mark.parametrize(
    ("case", "n"), PANEL_STOP_CASES, ids=[f"{c.test_id}-{n}-seats" for c, n in PANEL_STOP_CASES]
)
def test_stop_rules_of_a_panel(case: PanelStop, n: int) -> None:
    run = panel(n, case.replies, case.default, **case.options)
    detail = case.detail(n) if callable(case.detail) else case.detail
    assert run.error is None
    assert (run.state.stop_reason, run.state.stop_detail) == (case.reason, detail)
    assert by_round(run.steps()) == by_round(case.steps(n))
    assert run.state.status == case.status
    assert run.state.judge is not None
    stops = [e for e in run.events if e["event"] == "stop"]
    assert [(e["reason"], e["detail"]) for e in stops] == [(case.reason, detail)]


@pytest.mark.parametrize("case", TURN_CASES, ids=[c.test_id for c in TURN_CASES])
def test_one_turn_of_a_panel(case: TurnCase) -> None:
    run = panel(3, {**case.attempts, "r1-B": [QUIET], "r1-C": [QUIET]}, QUIET, rounds=2)
    a1 = run.state.turn(1, "A")
    assert a1 is not None and a1.status == case.status
    assert [s for s in run.steps() if s.startswith("r1-A")] == case.steps
    assert len(run.state.ledger(1).issues) == case.issues
    assert [e["reason"] for e in run.events if e["event"] == "turn_retry"] == case.retried
    assert a1.meta.attempts == len([s for s in case.steps if "fix" not in s])


@pytest.mark.parametrize("case", JUDGES, ids=[j.test_id for j in JUDGES])
def test_the_judge_of_a_panel(case: JudgeCase) -> None:
    replies: dict[str, list[Answer]] = {"judge": case.attempts, "r1-A": [said(["tabs"])]}
    if case.fixes is not None:
        replies["judge-fix"] = case.fixes
    run = panel(3, replies, QUIET, rounds=2)
    judge = run.state.judge
    assert judge is not None and judge.fallback == case.fallback
    assert [s for s in run.steps() if s.startswith("judge")] == case.steps
    if case.fallback:
        assert "I1" in judge.text and "tabs" in judge.text
        assert judge.text.splitlines()[0].endswith(case.why)
    assert [e["fallback"] for e in run.events if e["event"] == "judge_finished"] == [case.fallback]


def test_a_panel_resumes_from_every_saved_point() -> None:
    """Sequential, so the last speaker rotates (the blind round's resume: test_panels)."""
    whole = panel(3, {}, fresh_point, rounds=2, opening="sequential")
    assert whole.error is None and len(whole.saves) >= 7
    resumes_from_every_save(whole, lambda st: debate({}, fresh_point, state=st))
