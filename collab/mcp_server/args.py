"""A tool call's arguments turned into what ``collab debate`` would have been given, and
the server's limits (``[mcp]`` in config.toml): a debate a model starts is capped in
cost and in number by default.

The arguments go through the same ``request.request_from`` and ``request.build_config``
as the CLI's options, so a bad value gets the CLI's message, naming the argument as MCP
spells it (``rounds``, not ``--rounds``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from collab.errors import UsageError
from collab.options import DebateRequest
from collab.paths import config_table
from collab.request import request_from
from collab.settings import user_defaults

DEFAULT_MAX_COST = 2.0  # USD per debate
DEFAULT_MAX_CONCURRENT = 2


@dataclass(frozen=True)
class McpLimits:
    max_cost: float = DEFAULT_MAX_COST
    max_concurrent: int = DEFAULT_MAX_CONCURRENT


def load_limits(path: Path | None = None) -> McpLimits:
    """``[mcp]`` of config.toml: ``max_cost`` (USD, the default and the ceiling of a
    debate's max_cost) and ``max_concurrent`` (debates this server runs at once)."""
    path, table = config_table("mcp", path)
    limits = McpLimits()
    for key, value in table.items():
        number = value if isinstance(value, int | float) and not isinstance(value, bool) else 0
        if key == "max_cost" and number > 0:
            limits = replace(limits, max_cost=float(number))
        elif key == "max_concurrent" and isinstance(number, int) and number >= 1:
            limits = replace(limits, max_concurrent=number)
        elif key in ("max_cost", "max_concurrent"):
            raise UsageError(f"{path}: [mcp] {key} must be a positive number, got {value!r}")
        else:
            raise UsageError(
                f"{path}: unknown key {key!r} in [mcp]; valid keys: max_concurrent, max_cost"
            )
    return limits


def debate_request(arguments: Mapping[str, object], limits: McpLimits, root: Path) -> DebateRequest:
    """The request ``collab debate`` would build from the same options, with the MCP
    defaults: the subprocess runner, the server's max_cost."""
    given = {key: value for key, value in arguments.items() if value is not None}
    req = request_from(given, "mcp", user_defaults(), folder=root)
    if "topic" not in given:
        raise UsageError('the topic is required: say what to debate, e.g. "JWT vs sessions"')
    if "command" in (given.get(seat) for seat in ("agent", "agent_a", "agent_b", "judge_agent")):
        raise UsageError(
            "the command agent runs a user-given command line; it is not offered over "
            "MCP (configure an [agents.NAME] in config.toml)"
        )
    if "runner" not in given:
        req = replace(req, runner="subprocess")
    cap = limits.max_cost
    if "max_cost" in given and req.max_cost is not None and req.max_cost > cap:
        raise UsageError(
            f"max_cost {req.max_cost:g} is over this server's cap of ${cap:g} per debate "
            "(the user can raise it: max_cost in [mcp] of config.toml)"
        )
    cost = cap if req.max_cost is None else min(req.max_cost, cap)
    return replace(req, max_cost=cost)
