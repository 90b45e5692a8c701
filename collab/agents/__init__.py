"""Agents: how to call an agent CLI and what its output means.

``spec`` (an agent as data), ``builtin`` (claude, codex, gemini, ollama, llm and what
each can isolate), ``catalogue`` (the built-ins plus the user's, the command agent,
binaries), ``argv`` (a turn's argv and environment), ``replies`` (output → reply text,
tokens, cost, errors), ``streams`` (the reply as it is written, for the live views).
Nothing here runs a process: the runners do.
"""

from __future__ import annotations

from collab.agents.argv import build_argv, build_env, claude_settings, codex_mcp_overrides
from collab.agents.builtin import (
    BUILTIN,
    CLAUDE_LOGIN_HINT,
    CLAUDE_MAX_RETRIES,
    CLAUDE_SYSTEM_PROMPT,
)
from collab.agents.catalogue import command_spec, get_agent, load_agents, resolve_binary, spec_for
from collab.agents.spec import AGENT_SETUPS, TOOL_SETS, AgentSetup, AgentSpec, ToolSet

__all__ = [
    "AGENT_SETUPS",
    "BUILTIN",
    "CLAUDE_LOGIN_HINT",
    "CLAUDE_MAX_RETRIES",
    "CLAUDE_SYSTEM_PROMPT",
    "TOOL_SETS",
    "AgentSetup",
    "AgentSpec",
    "ToolSet",
    "build_argv",
    "build_env",
    "claude_settings",
    "codex_mcp_overrides",
    "command_spec",
    "get_agent",
    "load_agents",
    "resolve_binary",
    "spec_for",
]
