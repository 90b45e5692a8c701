"""A tool call's arguments turned into what ``collab debate`` would have been given, and
the server's limits (``[mcp]`` in config.toml): a debate a model starts is capped in
cost and in number by default.

The arguments go through ``settings.merge`` and then the same ``request.build_config``
as the CLI's options, so a bad value gets the CLI's message; only the JSON types are
checked here."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from collab.errors import UsageError
from collab.mcp_server.tools import DEBATE_PROPS
from collab.paths import config_table
from collab.request import DebateRequest
from collab.settings import merge, user_defaults

DEFAULT_MAX_COST = 2.0  # USD per debate
DEFAULT_MAX_CONCURRENT = 2
# Tool argument → the keyword ``settings.merge`` takes (the CLI's option names).
_RENAMED = {"timeout": "turn_timeout"}
_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "array": (list,),
}


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
    given: dict[str, object] = {}
    for key, value in arguments.items():
        prop = DEBATE_PROPS.get(key)
        if prop is None:
            valid = ", ".join(DEBATE_PROPS)
            raise UsageError(f"unknown argument {key!r}; valid arguments: {valid}")
        if value is None:
            continue
        _check_type(key, value, prop)
        given[_RENAMED.get(key, key)] = value
    if not isinstance(given.get("topic"), str):
        raise UsageError('the topic is required: say what to debate, e.g. "JWT vs sessions"')
    for seat in ("agent", "agent_a", "agent_b", "judge_agent"):
        if given.get(seat) == "command":
            raise UsageError(
                "the command agent runs a user-given command line; it is not offered over "
                "MCP (configure an [agents.NAME] in config.toml)"
            )
    paths = given.pop("context", None)
    if isinstance(paths, list):
        given["context"] = tuple(_resolve(str(p), root) for p in paths)
    given.setdefault("runner", "subprocess")
    asked = given.get("max_cost")
    cap = limits.max_cost
    if isinstance(asked, int | float) and asked > cap:
        raise UsageError(
            f"max_cost {asked:g} is over this server's cap of ${cap:g} per debate "
            "(the user can raise it: max_cost in [mcp] of config.toml)"
        )
    req = merge(user_defaults(), **given)
    cost = cap if req.max_cost is None else min(req.max_cost, cap)
    return replace(req, max_cost=cost)


def _check_type(key: str, value: object, prop: Mapping[str, object]) -> None:
    kind = str(prop["type"])
    ok = isinstance(value, _JSON_TYPES[kind]) and not isinstance(value, bool)
    if ok and kind == "array":
        ok = isinstance(value, list) and all(isinstance(v, str) for v in value)
    if not ok:
        want = "a list of paths" if kind == "array" else f"a {kind}"
        raise UsageError(f"{key!r} must be {want}, got {type(value).__name__}")


def _resolve(path: str, root: Path) -> str:
    p = Path(path).expanduser()
    return str(p if p.is_absolute() else root / p)
