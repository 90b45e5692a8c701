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

from typing import TYPE_CHECKING

from collab.lazy import exports

if TYPE_CHECKING:
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

# Each name from its module when first asked for: the CLI is built with the option
# declarations, which need the setup and tool-set names (.spec), not every family's
# decoder and login check (~30 ms of CPU on every command).
__getattr__ = exports(
    __name__,
    {
        "build_argv": "collab.agents.argv",
        "build_env": "collab.agents.argv",
        "BUILTIN": "collab.agents.catalogue",
        "DECODERS": "collab.agents.catalogue",
        "FAMILIES": "collab.agents.catalogue",
        "decoder_for": "collab.agents.catalogue",
        "get_agent": "collab.agents.catalogue",
        "interpret": "collab.agents.catalogue",
        "load_agents": "collab.agents.catalogue",
        "resolve_binary": "collab.agents.catalogue",
        "spec_for": "collab.agents.catalogue",
        "stored_login": "collab.agents.catalogue",
        "CLAUDE_LOGIN_HINT": "collab.agents.claude",
        "CLAUDE_MAX_RETRIES": "collab.agents.claude",
        "CLAUDE_SYSTEM_PROMPT": "collab.agents.claude",
        "claude_settings": "collab.agents.claude",
        "codex_mcp_overrides": "collab.agents.codex",
        "command_spec": "collab.agents.command",
        "AgentReply": "collab.agents.decoding",
        "Decoder": "collab.agents.decoding",
        "Usage": "collab.agents.decoding",
        "sum_usage": "collab.agents.decoding",
        "AGENT_SETUPS": "collab.agents.spec",
        "TOOL_SETS": "collab.agents.spec",
        "AgentSetup": "collab.agents.spec",
        "AgentSpec": "collab.agents.spec",
        "Family": "collab.agents.spec",
        "ToolSet": "collab.agents.spec",
    },
)

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
