"""Debates driven in this process, as ``collab debate`` starts them, with timed runners.

``TimedRunner`` wraps a runner and records when each ``run()`` was entered and returned;
``timed_factory`` makes such runners (and can time every tmux client call of a tmux one).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collab.agents import AgentSpec
    from collab.config import DebateConfig
    from collab.eventlog import Sink
    from collab.orchestrator import Orchestrator
    from collab.runners import RunnerFactory
    from collab.runners.base import ProcessResult, Runner, TurnJob
    from collab.runners.turnfiles import TurnDir
    from collab.state import RunState, RunStatus
    from collab.store import RunDir


def debate_config(
    topic: str,
    agent: str,
    rounds: int,
    runner: str,
    *,
    opening: str | None = None,
    extra_agents: Mapping[str, AgentSpec] | None = None,
) -> tuple[dict[str, AgentSpec], DebateConfig]:
    """The known agents and a debate's config, with the user's defaults applied.

    ``opening``: ``blind`` or ``sequential`` (None: the default); ``extra_agents`` are
    added to the catalogue (specs built in Python, e.g. a built-in with other flags)."""
    from collab.agents import load_agents
    from collab.request import build_config, request_from
    from collab.settings import user_defaults

    agents = load_agents()
    agents.update(extra_agents or {})
    given = {"agent": agent, "rounds": rounds, "runner": runner, "opening": opening}
    req = request_from({k: v for k, v in given.items() if v is not None}, "cli", user_defaults())
    req = replace(req, topic=topic)
    return agents, build_config(req, agents.keys())


def new_run(cfg: DebateConfig, status: RunStatus = "running") -> tuple[RunState, RunDir]:
    """A fresh run directory holding the run's first state."""
    from collab.state import RunState
    from collab.store import RunDir, new_run_id

    run_dir = RunDir(new_run_id())
    while run_dir.path.exists():
        run_dir = RunDir(new_run_id())
    run_dir.create()
    state = RunState(run_id=run_dir.run_id, config=cfg, status=status)
    run_dir.save(state.to_dict())
    return state, run_dir


def how_it_ended(st: RunState) -> str:
    """How a debate a bench will not time ended: its status, its error (if any), and the
    Judge (answered, fell back to the ledger summary, or missing)."""
    judge = "missing" if st.judge is None else "fell back" if st.judge.fallback else "answered"
    error = f"error {st.error}, " if st.error else ""
    return f"status {st.status}, {error}judge {judge}"


def timed_debate(
    topic: str,
    agent: str,
    rounds: int,
    runner: str,
    sink: Sink | None,
    calls: list[RunnerCall],
    made: list[tuple[float, float]],
    tmux_calls: list[tuple[str, float]] | None = None,
    env: dict[str, str] | None = None,
    *,
    opening: str | None = None,
    extra_agents: Mapping[str, AgentSpec] | None = None,
) -> Orchestrator:
    """A new debate, ready to ``run()``, whose runners are TimedRunners (see timed_factory)."""
    from collab.orchestrator import Orchestrator
    from collab.runners import runner_factory

    agents, cfg = debate_config(
        topic, agent, rounds, runner, opening=opening, extra_agents=extra_agents
    )
    state, run_dir = new_run(cfg)
    return Orchestrator(
        state,
        run_dir,
        agents=agents,
        runner_factory=timed_factory(runner_factory(cfg.runner), calls, made, tmux_calls),
        event_sinks=() if sink is None else (sink,),
        env=env,
    )


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

    def companion(self, at_once: int | None = None) -> TimedRunner:
        """The blind round's second runner, timed into the same list (calls from two
        threads: appended as each returns); ``at_once`` as ``Runner.companion``."""
        return TimedRunner(self.inner.companion(at_once), self.calls)

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
