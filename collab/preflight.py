"""Before a run starts: is everything it needs installed? (exit 3 and how to fix it if not)."""

from __future__ import annotations

from collab.agents import load_agents, resolve_binary, spec_for
from collab.config import DebateConfig
from collab.runners import check_runner


def check_prerequisites(cfg: DebateConfig) -> None:
    """Fail before anything starts when tmux or an agent CLI is missing."""
    agents = load_agents()
    for choice in (cfg.agent_a, cfg.agent_b, cfg.judge):
        resolve_binary(spec_for(choice.agent, choice.command, agents))
    check_runner(cfg.runner)
