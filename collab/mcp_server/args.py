"""A tool call's arguments turned into what ``collab debate`` would have been given, and
the server's limits (``[mcp]`` in config.toml): a debate a model starts is capped in
cost and in number by default, and reaches only what the user lets it reach.

The arguments go through the same ``request.request_from`` and ``request.build_config``
as the CLI's options, so a bad value gets the CLI's message, naming the argument as MCP
spells it (``rounds``, not ``--rounds``)."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from collab.agents import load_agents
from collab.errors import UsageError
from collab.judge.pick import AUTO, pick_judge
from collab.lang import resolve_lang
from collab.options import DebateRequest
from collab.paths import config_table
from collab.request import depth_and_rounds, request_from, seat_agents, seat_roles, unpriced
from collab.settings import user_defaults
from collab.suggest import did_you_mean

DEFAULT_MAX_COST = 2.0  # USD per debate
DEFAULT_MAX_CONCURRENT = 2
DEFAULT_MAX_CALLS = 20  # agent calls per debate when no cost can be capped


@dataclass(frozen=True)
class McpLimits:
    max_cost: float = DEFAULT_MAX_COST
    max_concurrent: int = DEFAULT_MAX_CONCURRENT
    # A model sees, cancels and lists only the runs started over MCP unless the user says.
    all_runs: bool = False
    # Where context files may come from besides the client's roots (or our working dir).
    allow_paths: tuple[str, ...] = ()
    # What a model may not choose unless the user says: debaters that read files (no
    # secret scan on what they read); the user's own MCP servers, hooks and settings.
    allow_read_tools: bool = False
    allow_inherit_setup: bool = False
    # Agent calls per debate (seats x rounds + the Judge) for an agent with no cost to cap.
    max_calls: int = DEFAULT_MAX_CALLS


_NUMBERS = ("max_cost", "max_concurrent", "max_calls")
_FLAGS = ("all_runs", "allow_read_tools", "allow_inherit_setup")
_KEYS = (*_NUMBERS, *_FLAGS, "allow_paths")


def load_limits(path: Path | None = None) -> McpLimits:
    """``[mcp]`` of config.toml: ``max_cost`` (USD, the default and the ceiling of a
    debate's max_cost), ``max_concurrent`` (MCP debates at once, across every server),
    ``all_runs``, ``allow_paths``, ``allow_read_tools``, ``allow_inherit_setup``."""
    path, table = config_table("mcp", path)
    limits = McpLimits()
    for key, value in table.items():
        number = value if isinstance(value, int | float) and not isinstance(value, bool) else 0
        if key == "max_cost" and number > 0:
            limits = replace(limits, max_cost=float(number))
        elif key == "max_concurrent" and isinstance(number, int) and number >= 1:
            limits = replace(limits, max_concurrent=number)
        elif key == "max_calls" and isinstance(number, int) and number >= 1:
            limits = replace(limits, max_calls=number)
        elif key in _NUMBERS:
            raise UsageError(f"{path}: [mcp] {key} must be a positive number, got {value!r}")
        elif key in _FLAGS:
            if not isinstance(value, bool):
                raise UsageError(f"{path}: [mcp] {key} must be true or false, got {value!r}")
            flags = {k: getattr(limits, k) for k in _FLAGS} | {key: value}
            limits = replace(limits, **flags)
        elif key == "allow_paths":
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise UsageError(f"{path}: [mcp] allow_paths must be a list of folders")
            limits = replace(limits, allow_paths=tuple(value))
        else:
            hint = did_you_mean(key, _KEYS, f"valid keys: {', '.join(_KEYS)}")
            raise UsageError(f"{path}: unknown key {key!r} in [mcp]; {hint}")
    return limits


def debate_request(
    arguments: Mapping[str, object],
    limits: McpLimits,
    root: Path,
    roots: Sequence[Path] = (),
) -> DebateRequest:
    """The request ``collab debate`` would build from the same options, with the MCP
    defaults: the subprocess runner, the server's max_cost. Relative context paths are
    taken from ``root``; every one must resolve under ``roots`` (the client's, else
    ``root``) or ``[mcp] allow_paths``."""
    given = {key: value for key, value in arguments.items() if value is not None}
    req = request_from(given, "mcp", user_defaults(), folder=root)
    if "topic" not in given:
        raise UsageError('the topic is required: say what to debate, e.g. "JWT vs sessions"')
    chosen = [given.get(seat) for seat in ("agent", "agent_a", "agent_b", "judge_agent")]
    if "command" in chosen or ("agents" in given and "command" in req.agents):
        raise UsageError(
            "the command agent runs a user-given command line; it is not offered over "
            "MCP (configure an [agents.NAME] in config.toml)"
        )
    if "context" in given:
        shown = given["context"]
        named = [shown] if isinstance(shown, str) else list(req.context)
        if isinstance(shown, list) and len(shown) == len(req.context):
            named = [str(p) for p in shown]
        _check_paths(named, req.context, [*(roots or [root]), *limits.allow_paths])
    if "runner" not in given:
        req = replace(req, runner="subprocess")
    if req.tools == "read" and not limits.allow_read_tools:
        raise UsageError(
            "tools 'read' lets the debaters read files on this machine, unscanned; it is not "
            "offered over MCP unless the user sets allow_read_tools = true in [mcp] of "
            "config.toml"
        )
    if req.agent_setup == "inherit" and not limits.allow_inherit_setup:
        raise UsageError(
            "agent_setup 'inherit' runs the user's own MCP servers, hooks and settings in "
            "each turn; it is not offered over MCP unless the user sets "
            "allow_inherit_setup = true in [mcp] of config.toml"
        )
    cap = limits.max_cost
    if "max_cost" in given and req.max_cost is not None and req.max_cost > cap:
        raise UsageError(
            f"max_cost {req.max_cost:g} is over this server's cap of ${cap:g} per debate "
            "(the user can raise it: max_cost in [mcp] of config.toml)"
        )
    # Every seat's (agent, model), A–E: a panel's third seat costs like the first two.
    seats = seat_agents(req, len(seat_roles(req, resolve_lang(req.lang, req.topic), "mcp")), "mcp")
    judge = req.judge_agent
    if judge == AUTO:
        judge = pick_judge(tuple(agent for agent, _ in seats), load_agents().keys())
    missing = unpriced((*seats, (judge, req.judge_model)))
    if missing:
        # No cost to cap: the debate is bounded by its number of agent calls instead.
        _, rounds = depth_and_rounds(req, "mcp")
        calls = len(seats) * rounds + 1
        if calls > limits.max_calls:
            raise UsageError(
                f"{', '.join(missing)} reports no cost and has no price, so this debate is "
                f"bounded by calls: {rounds} rounds take {calls} agent calls, over this "
                f"server's max_calls of {limits.max_calls} (ask for fewer rounds; the user can "
                "raise max_calls in [mcp], or price the model in [prices] of config.toml)"
            )
        return replace(req, max_cost=None)
    cost = cap if req.max_cost is None else min(req.max_cost, cap)
    return replace(req, max_cost=cost)


def _check_paths(named: Sequence[str], paths: Sequence[str], allowed: Sequence[Path | str]) -> None:
    """Each context path, symlinks followed, inside one of the ``allowed`` folders;
    ``named``: the paths as the caller gave them, for the message."""
    folders = [os.path.realpath(Path(a).expanduser()) for a in allowed]
    for shown, path in zip(named, paths, strict=True):
        real = os.path.realpath(Path(path).expanduser())
        if not any(os.path.commonpath([f, real]) == f for f in folders):
            raise UsageError(
                f"context {shown} resolves to {real}, outside the client's roots "
                f"({', '.join(folders)}); the user can allow a folder with allow_paths in "
                "[mcp] of config.toml"
            )
