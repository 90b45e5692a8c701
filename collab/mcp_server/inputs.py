"""What ``debate_start`` and ``debate`` take over MCP: their input schema's properties,
made from the option declarations (collab.options). Plain JSON Schema: no MCP SDK here
(:mod:`.tools` wraps them into the SDK's tool definitions)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from collab.options import MAX_CONTEXT_FILES, OPTIONS, Option, offered

# What a debate takes over MCP: the options that offer the mcp surface (collab.options),
# each with its type, range or choices and its help, "Default X." from the declaration.
# What this server does its own way (its runner, its cost cap, its root for paths):
_MCP_OWN: dict[str, dict[str, Any]] = {
    "runner": {"enum": ["subprocess", "tmux"], "description": "Where turns run: subprocess "
               "(default) or tmux (a pane the user can watch)."},
    "max_cost": {"description": "Stop before a turn once this many USD are spent. Default "
                 "and ceiling: the server's cap (server_info limits.max_cost)."},
    "context": {"maxItems": MAX_CONTEXT_FILES, "description": "Paths of UTF-8 text files "
                "both sides read (a design doc, a diff). Relative paths resolve against the "
                "client's first root, else the server's working directory; every path must "
                "resolve under the client's roots (else that directory) or the user's [mcp] "
                "allow_paths."},
}  # fmt: skip
_JSON_TYPES = {str: "string", int: "integer", float: "number", bool: "boolean"}


def debate_props(options: Mapping[str, Option] = OPTIONS) -> dict[str, dict[str, Any]]:
    """The input schema's properties of ``debate_start`` and ``debate``."""
    props: dict[str, dict[str, Any]] = {}
    for opt in offered("mcp", options):
        prop: dict[str, Any] = (
            {"type": "array", "items": {"type": "string"}}
            if opt.kind is tuple
            else {"type": _JSON_TYPES[opt.kind]}
        )
        if opt.item_chars is not None:
            prop["items"]["maxLength"] = opt.item_chars
        if opt.min_items is not None:
            prop["minItems"] = opt.min_items
        if opt.max_items is not None:
            prop["maxItems"] = opt.max_items
        if opt.choices:
            prop["enum"] = list(opt.choices)
        if opt.minimum is not None:
            prop["minimum"] = opt.minimum
        if opt.maximum is not None:
            prop["maximum"] = opt.maximum
        if opt.positive:
            prop["exclusiveMinimum"] = 0
        default = opt.shown_default
        prop["description"] = opt.help + (f" Default {default}." if default else "")
        props[opt.name] = prop | _MCP_OWN.get(opt.name, {})
    return props


DEBATE_PROPS = debate_props()
