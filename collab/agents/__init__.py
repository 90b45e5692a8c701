"""Agents: how to call an agent CLI and what its output means.

One module per built-in family — ``claude``, ``codex``, ``gemini``, ``ollama``, ``llm``
— holds its argv and isolation flags, the decoder of its output (live text as it
streams, the final reply with tokens, cost and errors), its login check and the family
of models behind it. ``decoding`` (the decoder interface, the reply, the plain-text
decoder), ``spec`` (an agent and a family as data), ``command`` (agents the user
defines: config.toml and ``--agent-command``), ``catalogue`` (names → families and
decoders, binaries, logins), ``argv`` (a turn's argv and environment).
Nothing here runs a process: the runners do.
"""

from __future__ import annotations

from collab.agents.argv import build_argv, build_env
from collab.agents.catalogue import (
    BUILTIN,
    DECODERS,
    FAMILIES,
    decoder_for,
    get_agent,
    interpret,
    load_agents,
    resolve_binary,
    spec_for,
    stored_login,
)
from collab.agents.claude import (
    CLAUDE_LOGIN_HINT,
    CLAUDE_MAX_RETRIES,
    CLAUDE_SYSTEM_PROMPT,
    claude_settings,
)
from collab.agents.codex import codex_mcp_overrides
from collab.agents.command import command_spec
from collab.agents.decoding import AgentReply, Decoder, Usage, sum_usage
from collab.agents.spec import AGENT_SETUPS, TOOL_SETS, AgentSetup, AgentSpec, Family, ToolSet

__all__ = [
    "AGENT_SETUPS",
    "BUILTIN",
    "CLAUDE_LOGIN_HINT",
    "CLAUDE_MAX_RETRIES",
    "CLAUDE_SYSTEM_PROMPT",
    "DECODERS",
    "FAMILIES",
    "TOOL_SETS",
    "AgentReply",
    "AgentSetup",
    "AgentSpec",
    "Decoder",
    "Family",
    "ToolSet",
    "Usage",
    "build_argv",
    "build_env",
    "claude_settings",
    "codex_mcp_overrides",
    "command_spec",
    "decoder_for",
    "get_agent",
    "interpret",
    "load_agents",
    "resolve_binary",
    "spec_for",
    "stored_login",
    "sum_usage",
]
