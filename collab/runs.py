"""Start or continue one run, shared by the CLI and a batch's child processes."""

from __future__ import annotations

from collab.config import DebateConfig
from collab.events import Listener
from collab.orchestrator import Orchestrator, RunnerFactory
from collab.state import RunState
from collab.store import RunDir


def runner_factory(cfg: DebateConfig) -> RunnerFactory:
    from collab.runners.base import Runner
    from collab.runners.subprocess import SubprocessRunner
    from collab.runners.tmux import TmuxRunner, tmux_available
    from collab.runners.turnfiles import TurnDir

    use_tmux = cfg.runner == "tmux" or (cfg.runner == "auto" and tmux_available())

    def factory(tdir: TurnDir, run_id: str) -> Runner:
        if use_tmux:
            return TmuxRunner(tdir, run_id)
        return SubprocessRunner(tdir)

    return factory


def check_prerequisites(cfg: DebateConfig) -> None:
    """Fail before anything starts when tmux or an agent CLI is missing (exit 3)."""
    from collab.agents import load_agents, resolve_binary, spec_for
    from collab.errors import PrerequisiteError
    from collab.runners.tmux import tmux_available
    from collab.runners.turnfiles import find_bash

    agents = load_agents()
    for choice in (cfg.agent_a, cfg.agent_b, cfg.judge):
        resolve_binary(spec_for(choice.agent, choice.command, agents))
    find_bash()
    if cfg.runner == "tmux" and not tmux_available():
        raise PrerequisiteError(
            "tmux not found on PATH", hint="install tmux, or use --runner subprocess"
        )


def drive(state: RunState, run_dir: RunDir, listener: Listener, *, resumed: bool) -> RunState:
    from collab.agents import load_agents

    orch = Orchestrator(
        state,
        run_dir,
        agents=load_agents(),
        runner_factory=runner_factory(state.config),
        listener=listener,
        resumed=resumed,
    )
    return orch.run().state
