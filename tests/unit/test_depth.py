"""``--depth`` (issue 21): the options together, and quick and auto counting calls on the
real orchestrator and the in-process runner, on the easy, lingering and contested scripts."""

from __future__ import annotations

from typing import Any, NamedTuple

import pytest

from collab.convergence import QUICK_DETAIL
from collab.errors import UsageError
from collab.request import DebateRequest, build_config
from collab.runners.inprocess import SCRIPTED, SCRIPTED_AGENTS
from tests.fakes.depth_scripts import SCRIPTS
from tests.unit.test_orchestrator import Run, debate, home_in_memory, shared

__all__ = ["home_in_memory"]  # the autouse fixture: COLLAB_HOME on tmpfs


@shared  # each (script, options) driven once; each test gets a copy in its own home
def scripted(name: str, **options: Any) -> Run:
    return debate({}, SCRIPTS[name], **options)


def cfg(**options: Any) -> Any:
    req = DebateRequest(
        topic="Tabs or spaces?", agent_a=SCRIPTED, agent_b=SCRIPTED, judge_agent=SCRIPTED,
        **options,
    )  # fmt: skip
    return build_config(req, SCRIPTED_AGENTS.keys())


# -- depth × rounds ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "depth", "rounds"),
    [
        ({}, "standard", 3),
        ({"rounds": 1}, "quick", 1),
        ({"depth": "quick"}, "quick", 1),
        ({"depth": "quick", "rounds": 1}, "quick", 1),
        ({"depth": "standard"}, "standard", 3),
        ({"depth": "deep"}, "deep", 7),
        ({"depth": "auto"}, "auto", 7),
        ({"depth": "auto", "rounds": 4}, "auto", 4),
        ({"depth": "deep", "rounds": 5}, "deep", 5),
        ({"rounds": 5}, "standard", 5),
    ],
)
def test_depth_and_rounds(options: dict[str, Any], depth: str, rounds: int) -> None:
    c = cfg(**options)
    assert (c.depth, c.rounds) == (depth, rounds)


@pytest.mark.parametrize(
    ("options", "names"),
    [
        ({"depth": "quick", "rounds": 3}, ("--depth", "--rounds")),
        ({"depth": "quick", "rounds": 2}, ("--depth", "--rounds")),
        ({"depth": "standard", "rounds": 1}, ("--depth", "--rounds")),
        ({"depth": "deep", "rounds": 1}, ("--depth", "--rounds")),
        ({"depth": "auto", "rounds": 1}, ("--depth", "--rounds")),
        ({"depth": "quick", "opening": "sequential"}, ("--depth", "--opening")),
        ({"rounds": 1, "opening": "sequential"}, ("--depth", "--opening")),
    ],
)
def test_contradicting_options_name_both(options: dict[str, Any], names: tuple[str, str]) -> None:
    with pytest.raises(UsageError) as exc:
        cfg(**options)
    assert exc.value.exit_code == 2
    assert all(n in str(exc.value) for n in names), str(exc.value)


# -- calls, counted ----------------------------------------------------------------------


class Case(NamedTuple):
    script: str
    options: dict[str, Any]
    steps: list[str]
    reason: str
    detail: str


def rounds_of(n: int) -> list[str]:
    return [f"r{r}-{s}-1" for r in range(1, n + 1) for s in "AB"] + ["judge-1"]


QUICK = {"depth": "quick"}
AUTO = {"depth": "auto"}
SETTLED_3 = (
    "auto: round 3 changed nothing that matters (no new point, no contest with new "
    "evidence, no status change)"
)
CASES = [
    Case("easy", QUICK, rounds_of(1), "max-rounds", QUICK_DETAIL),
    Case("lingering", QUICK, rounds_of(1), "max-rounds", QUICK_DETAIL),
    Case("contested", QUICK, rounds_of(1), "max-rounds", QUICK_DETAIL),
    Case("easy", {"rounds": 1}, rounds_of(1), "max-rounds", QUICK_DETAIL),
    # easy: both agree in the cross-check round; nothing is left open.
    Case("easy", AUTO, rounds_of(2), "converged-early", "all 2 issues are resolved or dropped"),
    Case("easy", {}, rounds_of(2), "converged-early", "all 2 issues are resolved or dropped"),
    # lingering: the cross-check contests I1 and resolves I2; round 3 only repeats it.
    Case("lingering", AUTO, rounds_of(3), "settled", SETTLED_3),
    Case("lingering", {"depth": "deep"}, rounds_of(3), "converged-early",
         "no new points in rounds 2 and 3"),
    # contested: every round brings new evidence, so auto goes on to its cap.
    Case("contested", AUTO, rounds_of(7), "max-rounds", "reached 7/7 rounds"),
    Case("contested", {"depth": "auto", "rounds": 4}, rounds_of(4), "max-rounds",
         "reached 4/4 rounds"),
    Case("contested", {"depth": "deep"}, rounds_of(3), "converged-early",
         "no new points in rounds 2 and 3"),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=[f"{c.script}-{c.options}" for c in CASES])
def test_calls_per_depth(case: Case) -> None:
    run = scripted(case.script, **case.options)
    assert sorted(run.steps()) == sorted(case.steps)
    assert (run.state.stop_reason, run.state.stop_detail) == (case.reason, case.detail)
    assert run.state.status == "done"


def test_quick_is_inconclusive_and_keeps_its_open_issues() -> None:
    run = scripted("easy", depth="quick")
    assert run.state.verdict() == "inconclusive"
    assert [i.status for i in run.state.ledger().issues] == ["open", "open"]
    standard = scripted("lingering")
    assert standard.state.verdict() != "inconclusive"


def test_auto_stops_after_the_cross_check_when_nothing_is_contested() -> None:
    def quiet_after_opening(job: Any) -> str:
        from tests.fakes.depth_scripts import JUDGE, reply

        if job.step.startswith("judge"):
            return JUDGE
        return reply(job, ["a point"] if job.step.startswith("r1-A") else [])

    run = debate({}, quiet_after_opening, depth="auto")
    assert sorted(run.steps()) == sorted(rounds_of(2))
    assert run.state.stop_reason == "settled"
    assert run.state.stop_detail == "auto: nothing was contested in the cross-check round"


def test_the_cross_check_round_is_short_and_sees_only_the_others_blind_reply() -> None:
    run = scripted("contested", depth="auto", rounds=3, max_chars=800)
    jobs = {j.step: j for j in run.runner.jobs}
    for side, other in (("A", "B"), ("B", "A")):
        prompt = jobs[f"r2-{side}-1"].prompt
        assert "Keep the prose under 200 characters" in prompt
        assert "Your task: a short cross-check" in prompt
        assert f"role={other}>>>" in prompt and f"role={side}>>>" not in prompt
        assert "round=2" not in prompt  # neither sees the other's cross-check reply
    assert "Keep the prose under 800 characters" in jobs["r3-A-1"].prompt
    assert "Your task: a short cross-check" not in jobs["r3-A-1"].prompt
    assert sorted(run.steps()[2:4]) == ["r2-A-1", "r2-B-1"]


def test_standard_is_unchanged_by_depth() -> None:
    """The default and an explicit --depth standard make the same calls with the same
    debater prompts (the blind round's two turns may start in either order; the Judge's
    order of positions is drawn per run)."""

    def calls(jobs: list[Any]) -> list[tuple[str, str]]:
        return sorted((j.step, "" if j.step.startswith("judge") else j.prompt) for j in jobs)

    for name in SCRIPTS:
        default = scripted(name).runner.jobs
        explicit = scripted(name, depth="standard", rounds=3).runner.jobs
        assert calls(default) == calls(explicit)


def new_point_in(rounds: set[int]) -> Any:
    """Round 1 opens with a point; each round in ``rounds`` A raises one more (and takes
    no stance); every other turn says nothing new."""
    from tests.fakes.depth_scripts import JUDGE, reply

    def handler(job: Any) -> str:
        if job.step.startswith("judge"):
            return JUDGE
        r, side = int(job.step.split("-")[0][1:]), job.step.split("-")[1]
        fresh = (r == 1 or r in rounds) and side == "A"
        return reply(job, [f"point of round {r}"] if fresh else [])

    return handler


@pytest.mark.parametrize(
    ("rounds", "held", "detail"),
    [
        ({2}, 3, "auto: round 3 changed nothing that matters"),  # a new point counts
        ({2, 3}, 4, "auto: round 4 changed nothing that matters"),
        ({2, 3, 4}, 5, "auto: round 5 changed nothing that matters"),
    ],
)
def test_a_new_point_is_a_change_in_the_cross_check_and_after(
    rounds: set[int], held: int, detail: str
) -> None:
    run = debate({}, new_point_in(rounds), depth="auto")
    assert sorted(run.steps()) == sorted(rounds_of(held))
    assert run.state.stop_reason == "settled"
    assert run.state.stop_detail.startswith(detail)


def test_stats_per_depth_count_calls_tokens_and_verdicts() -> None:
    from collab.stats import aggregate, run_stats

    runs = [
        scripted("easy", depth="quick"),
        scripted("lingering", depth="quick"),
        scripted("lingering", depth="auto"),
        scripted("lingering"),
    ]
    by_depth = aggregate([run_stats(r.state) for r in runs]).by_depth
    assert list(by_depth) == ["quick", "standard", "auto"]
    quick, standard, auto = by_depth["quick"], by_depth["standard"], by_depth["auto"]
    assert (quick.runs, quick.calls, quick.verdicts) == (2, 6, {"inconclusive": 2})
    assert (auto.runs, auto.calls, auto.calls_per_run) == (1, 7, 7)
    assert standard.verdicts == {"partial": 1}
    tokens = runs[2].state.tokens()
    assert (auto.input_tokens, auto.output_tokens) == (tokens.input_tokens, tokens.output_tokens)
    assert auto.input_tokens > 0 and quick.cost_usd is None


@pytest.mark.parametrize("depth", ["quick", "auto"])
def test_no_usable_contract_in_round_one_stops_quick_and_auto_as_no_contract(depth: str) -> None:
    from collab.convergence import NO_CONTRACT_STOP
    from tests.fakes.depth_scripts import JUDGE

    def prose_only(job: Any) -> str:
        return JUDGE if job.step.startswith("judge") else "Just prose, no contract block."

    run = debate({}, prose_only, depth=depth)
    assert (run.state.stop_reason, run.state.stop_detail) == ("no-contract", NO_CONTRACT_STOP)
    assert run.state.rounds_done() == 1


def test_a_quick_runs_open_issues_keep_their_severity_for_the_gate() -> None:
    from collab.gate import evaluate
    from collab.report.documents import result_document
    from collab.store import RunDir

    run = scripted("easy", depth="quick")
    doc = result_document(run.state, RunDir(run.state.run_id))
    assert doc["depth"] == "quick" and doc["verdict"] == "inconclusive"
    assert [i["severity"] for i in doc["ledger"]] == ["major", "major"]
    gate = evaluate(doc, "major")
    assert gate.outcome == "fail" and gate.failing == ("I1", "I2")  # not "inconclusive"
    assert "quick depth" in gate.reason
