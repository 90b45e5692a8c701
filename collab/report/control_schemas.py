"""JSON Schemas of the documents that start and follow a detached run (``collab debate
--detach``, ``status``, ``cancel``) and of the MCP server's ``server_info``; part of
``SCHEMAS`` like the others."""

from __future__ import annotations

from typing import Any

_NUM_OR_NULL: dict[str, Any] = {"type": ["number", "null"]}
_STR_OR_NULL: dict[str, Any] = {"type": ["string", "null"]}
_RUN_STATUS = {"enum": ["pending", "running", "done", "interrupted", "failed"]}
_COUNT = {"type": "integer", "minimum": 0}


def _doc(name: str, props: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"collab:{name}",
        "title": name,
        "type": "object",
        "properties": {"schema": {"const": name}, **props},
        "required": ["schema", *required],
    }


def _done_of(key: str) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {"done": _COUNT, "planned": _COUNT},
        "required": ["done", "planned"],
        "description": f"{key} finished and planned",
    }


STARTED = _doc(
    "collab.started/1",
    {
        "run_id": {"type": "string"},
        "status": {"const": "pending"},
        "topic": {"type": "string"},
        "preset": {"type": "string"},
        "rounds": {"type": "integer", "minimum": 1},
        "runner": {"enum": ["auto", "tmux", "subprocess"]},
        "max_cost": _NUM_OR_NULL,
        "watch": {"type": "string", "description": "the command that shows the run live"},
        "status_command": {"type": "string"},
        "result_command": {"type": "string"},
        "cancel_command": {"type": "string"},
        "run_dir": {"type": "string"},
    },
    ["run_id", "status", "topic", "watch", "run_dir"],
)

STATUS = _doc(
    "collab.status/1",
    {
        "run_id": {"type": "string"},
        "status": _RUN_STATUS,
        "active": {"type": "boolean", "description": "a process is driving the run now"},
        "phase": {"enum": ["starting", "debating", "judging", "finishing", "finished", "stopped"]},
        "topic": {"type": "string"},
        "preset": {"type": "string"},
        "roles": {
            "type": "object",
            "properties": {"A": {"type": "string"}, "B": {"type": "string"}},
            "required": ["A", "B"],
        },
        "round": {"type": "integer", "minimum": 1, "description": "the round in progress"},
        "rounds": _done_of("rounds"),
        "turns": _done_of("turns"),
        "counts": {
            "type": "object",
            "properties": {k: _COUNT for k in ("open", "resolved", "dropped")},
            "required": ["open", "resolved", "dropped"],
        },
        "last_turn": {
            "type": ["object", "null"],
            "properties": {
                "round": {"type": "integer", "minimum": 1},
                "side": {"enum": ["A", "B"]},
                "role": {"type": "string"},
                "status": {"type": "string"},
                "summary": {"type": "string", "description": "its first paragraph, one line"},
            },
            "required": ["round", "side", "role", "status", "summary"],
        },
        "stop_reason": _STR_OR_NULL,
        "stop_detail": {"type": "string"},
        "elapsed_s": {"type": "number", "minimum": 0},
        "remaining_s": {**_NUM_OR_NULL, "description": "estimated; null when not running"},
        "cost_usd": _NUM_OR_NULL,
        "max_cost": _NUM_OR_NULL,
        "error": _STR_OR_NULL,
        "attach": _STR_OR_NULL,
        "watch": {"type": "string"},
        "result": {"type": "string"},
        "resume": _STR_OR_NULL,
    },
    ["run_id", "status", "active", "phase", "topic", "round", "rounds", "turns", "counts",
     "last_turn", "stop_reason", "elapsed_s", "remaining_s", "cost_usd", "error", "watch",
     "resume"],
)  # fmt: skip

SERVER = _doc(
    "collab.server/1",
    {
        "name": {"const": "collab"},
        "version": {"type": "string"},
        "limits": {
            "type": "object",
            "properties": {
                "max_cost": {"type": "number", "exclusiveMinimum": 0},
                "max_concurrent": {"type": "integer", "minimum": 1},
            },
            "required": ["max_cost", "max_concurrent"],
        },
        "runner": {"enum": ["tmux", "subprocess"]},
        "active_runs": {"type": "array", "items": {"type": "string"}},
        "workdir": {"type": "string"},
        "config": {"type": "string"},
    },
    ["version", "limits", "active_runs"],
)

CONTROL_SCHEMAS: tuple[dict[str, Any], ...] = (STARTED, STATUS, SERVER)
