"""JSON Schemas (draft 2020-12) of every ``--json`` document, versioned by ``schema``.

A document's ``schema`` value names its shape and version (``collab.result/1``); a
breaking change bumps the number. ``collab schema NAME`` prints one of these. The
documents that start and follow a detached run (``collab debate --detach``, ``status``,
``cancel``) and the MCP server's ``server_info`` are here too. Every enum is taken from
the type that defines the values (``typing.get_args`` of its ``Literal``), never typed
again.
"""

from __future__ import annotations

import copy
from typing import Any, get_args

from collab.convergence import STOP_REASONS
from collab.decision import DECISION_KINDS
from collab.doctor import Level
from collab.errors import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_PREREQ, EXIT_USAGE, Refusal
from collab.gate import GATE_PROPERTIES, GATE_REQUIRED, GATE_SCHEMA
from collab.ledger import ISSUE_JSON_SCHEMA
from collab.options import DEPTHS, RunnerKind
from collab.panel import SEAT_JSON_SCHEMA, TALLY_JSON_SCHEMA
from collab.plan import PLAN_JSON_SCHEMA
from collab.presets import PRESET_ROLE_SCHEMA, PRESET_SEAT_NAMES_SCHEMA, PRESET_SEATS_SCHEMA
from collab.report.decision_input import DECISION_INPUT_PROPERTIES
from collab.seats import SIDES
from collab.skill import InstallAction
from collab.state import RunStatus
from collab.stats import DEPTH_STATS_JSON_SCHEMA
from collab.turns import TurnStatus
from collab.verdict import VERDICT_TEXT, VERDICTS, with_verdict

_NUM_OR_NULL: dict[str, Any] = {"type": ["number", "null"]}
_STR_OR_NULL: dict[str, Any] = {"type": ["string", "null"]}
_STATUS = {"enum": [*get_args(RunStatus), "unreadable", "damaged"]}


def _doc(name: str, props: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"collab:{name}",
        "title": name,
        "type": "object",
        "properties": {"schema": {"const": name}, **props},
        "required": ["schema", *required],
    }


_ISSUE = ISSUE_JSON_SCHEMA
_SEAT = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "agent": {"type": "string"}, "model": _STR_OR_NULL},
    "required": ["agent", "model"],
}
_COUNTS = {
    "type": "object",
    "properties": {k: {"type": "integer", "minimum": 0} for k in ("open", "resolved", "dropped")},
    "required": ["open", "resolved", "dropped"],
}

_DECISION = {
    "type": "object",
    "properties": {
        "kind": {"enum": list(DECISION_KINDS)},
        "text": {"type": "string"},
        "option": {"type": ["string", "null"], "pattern": "^O[1-9][0-9]*$"},
        "why": _STR_OR_NULL,
        "by": {"type": "string"},
        "when": {"type": "string"},
    },
    "required": ["kind", "text", "option", "why", "by", "when"],
}

RESULT = _doc(
    "collab.result/1",
    {
        "run_id": {"type": "string"},
        "status": _STATUS,
        "stop_reason": {"enum": [*STOP_REASONS, None]},
        "stop_detail": {"type": "string"},
        "verdict": {"enum": list(VERDICTS), "description": VERDICT_TEXT},
        "open_blocking": {"type": "integer", "minimum": 0},
        "depth": {"enum": list(DEPTHS), "description": "Absent before --depth: standard."},
        "plan": PLAN_JSON_SCHEMA,
        "error": _STR_OR_NULL,
        "topic": {"type": "string"},
        "preset": {"type": "string"},
        "roles": {
            "type": "object",
            "properties": {"A": _SEAT, "B": _SEAT, "judge": _SEAT},
            "required": ["A", "B", "judge"],
        },
        "rounds": {
            "type": "object",
            "properties": {"done": {"type": "integer"}, "planned": {"type": "integer"}},
            "required": ["done", "planned"],
        },
        "ledger": {"type": "array", "items": _ISSUE},
        "counts": _COUNTS,
        "turns": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "round": {"type": "integer", "minimum": 1},
                    "side": {"enum": list(SIDES)},
                    "status": {"enum": list(get_args(TurnStatus))},
                    "prose": {"type": "string"},
                    "cost_usd": _NUM_OR_NULL,
                    "duration_s": {"type": "number"},
                    "warnings": {"type": "array", "items": {"type": "string"}},
                },
                "required": ["round", "side", "status", "prose", "cost_usd"],
            },
        },
        "judge": {
            "type": ["object", "null"],
            "properties": {"markdown": {"type": "string"}, "fallback": {"type": "boolean"}},
            "required": ["markdown", "fallback"],
        },
        "cost_usd": _NUM_OR_NULL,
        "cost_estimated": {"type": "boolean"},
        "cost_usd_by_role": {
            "type": "object",
            "properties": {"A": _NUM_OR_NULL, "B": _NUM_OR_NULL, "judge": _NUM_OR_NULL},
            "required": ["A", "B"],
        },
        "tokens": {
            "type": "object",
            "properties": {
                k: {"type": "integer", "minimum": 0}
                for k in ("input", "output", "cache_read", "cache_write")
            },
            "required": ["input", "output", "cache_read", "cache_write"],
        },
        "paths": {
            "type": "object",
            "properties": {"run_dir": {"type": "string"}, "state": {"type": "string"}},
            "additionalProperties": {"type": "string"},
            "required": ["run_dir", "state"],
        },
        "resume": _STR_OR_NULL,
        **DECISION_INPUT_PROPERTIES,
        "decisions": {
            "type": "array",
            "description": "collab decide, oldest first; the last choice is in force",
            "items": _DECISION,
        },
        "followups": {
            "type": "array",
            "description": "collab ask: follow-up questions and answers; the ledger is unchanged",
            "items": {
                "type": "object",
                "properties": {
                    "seat": {"enum": [*SIDES, "judge"]},
                    "question": {"type": "string"},
                    "answer": {"type": "string"},
                    "status": {"type": "string"},
                    "error": {
                        **_STR_OR_NULL,
                        "description": "why it has no answer (status and the call's error); "
                        "null when it answered",
                    },
                    "after_round": {"type": "integer", "minimum": 0},
                    "when": {"type": "string"},
                    "cost_usd": _NUM_OR_NULL,
                },
                "required": ["seat", "question", "answer", "status", "after_round"],
            },
        },
        "continues": {
            "type": "array",
            "description": "collab continue: rounds added after the debate first ended",
            "items": {
                "type": "object",
                "properties": {
                    "after_round": {"type": "integer", "minimum": 0},
                    "rounds": {"type": "integer", "minimum": 1},
                    "note": _STR_OR_NULL,
                    "when": {"type": "string"},
                },
                "required": ["after_round", "rounds", "note"],
            },
        },
        "superseded_judges": {
            "type": "array",
            "description": "Judge summaries a continue replaced, oldest first",
            "items": {
                "type": "object",
                "properties": {"markdown": {"type": "string"}, "fallback": {"type": "boolean"}},
                "required": ["markdown", "fallback"],
            },
        },
    },
    ["run_id", "status", "stop_reason", "topic", "rounds", "ledger", "counts", "turns",
     "judge", "cost_usd", "paths", "resume"],
)  # fmt: skip

ERROR = _doc(
    "collab.error/1",
    {
        "error": {
            "type": "object",
            "properties": {
                "kind": {"type": "string"},
                "message": {"type": "string"},
                "refused": {
                    "enum": list(get_args(Refusal)),
                    "description": "Only when an input was refused before anything was sent: "
                    "context over the budget, or a possible secret",
                },
            },
            "required": ["kind", "message"],
        },
        "exit_code": {"enum": [EXIT_FAILED, EXIT_USAGE, EXIT_PREREQ, EXIT_INTERRUPTED]},
    },
    ["error", "exit_code"],
)

# A damaged run (status "damaged") says why in "reason" and has null wherever its
# state.json could not be read; every other row has its values and a null reason.
_LISTED = {
    "created": {"type": "string"},
    "topic": {"type": "string"},
    "preset": {"type": "string"},
    "rounds_done": {"type": "integer"},
    "rounds": {"type": "integer"},
}
LIST = _doc(
    "collab.list/1",
    {
        "runs": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "run_id": {"type": "string"},
                    **{k: {"type": [v["type"], "null"]} for k, v in _LISTED.items()},
                    "status": _STATUS,
                    "stop_reason": _STR_OR_NULL,
                    "cost_usd": _NUM_OR_NULL,
                    "reason": _STR_OR_NULL,
                },
                "required": ["run_id", "topic", "status", "stop_reason", "reason"],
                "if": {"properties": {"status": {"const": "damaged"}}},
                "then": {"properties": {"reason": {"type": "string"}}},
                "else": {"properties": {**_LISTED, "reason": {"type": "null"}}},
            },
        }
    },
    ["runs"],
)

PRESETS = _doc(
    "collab.presets/1",
    {
        "presets": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "key": {"type": "string"},
                    "title": {"type": "string"},
                    "summary": {"type": "string"},
                    "role_a": {"type": "string"},
                    "role_b": {"type": "string"},
                    "source": {"type": "string"},
                    "seats": PRESET_SEAT_NAMES_SCHEMA,
                },
                "required": ["key", "title", "summary", "role_a", "role_b"],
            },
        }
    },
    ["presets"],
)
PRESET = _doc(
    "collab.preset/1",
    {
        "key": {"type": "string"},
        "title": {"type": "string"},
        "summary": {"type": "string"},
        "role_a": PRESET_ROLE_SCHEMA,
        "role_b": PRESET_ROLE_SCHEMA,
        "source": {"type": "string"},
        "seats": PRESET_SEATS_SCHEMA,
    },
    ["key", "title", "role_a", "role_b"],
)
DOCTOR = _doc(
    "collab.doctor/1",
    {
        "ok": {"type": "boolean"},
        "checks": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "level": {"enum": list(get_args(Level))},
                    "detail": {"type": "string"},
                    "fix": {"type": "string"},
                },
                "required": ["name", "level", "detail", "fix"],
            },
        },
    },
    ["ok", "checks"],
)
BATCH = _doc(
    "collab.batch/1",
    {
        "batch_id": {"type": "string", "pattern": "^batch-"},
        "status": _STATUS,
        "source": {"type": "string"},
        "parallel": {"type": "integer", "minimum": 1},
        "runs": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "run_id": {"type": "string"},
                    "line": {"type": "integer", "minimum": 1},
                    "topic": {"type": "string"},
                    "status": _STATUS,
                    "stop_reason": _STR_OR_NULL,
                    "rounds_done": {"type": "integer"},
                    "rounds": {"type": "integer"},
                    "resolved": {"type": "integer"},
                    "open": {"type": "integer"},
                    "dropped": {"type": "integer"},
                    "cost_usd": _NUM_OR_NULL,
                    "path": {"type": "string"},
                },
                "required": ["run_id", "line", "topic", "status", "stop_reason", "cost_usd"],
            },
        },
        "cost_usd": _NUM_OR_NULL,
        "paths": {"type": "object", "additionalProperties": {"type": "string"}},
        "resume": _STR_OR_NULL,
    },
    ["batch_id", "status", "runs", "cost_usd", "resume"],
)
SKILL = _doc(
    "collab.skill/1",
    {"action": {"enum": list(get_args(InstallAction))}, "path": {"type": "string"}},
    ["action", "path"],
)

VERSION = _doc("collab.version/1", {"version": {"type": "string", "minLength": 1}}, ["version"])

_WHERE = {
    "round": {"type": "integer", "minimum": 1},
    "side": {"enum": [*SIDES, "judge"]},
}
# One line of runs/<id>/events.jsonl and of `collab debate --events ndjson`.
EVENT = _doc(
    "collab.event/1",
    {
        "seq": {"type": "integer", "minimum": 1},
        "ts": {"type": "number"},
        "event": {
            "enum": [
                "run_started",
                "plan",
                "round_started",
                "turn_started",
                "text",
                "heartbeat",
                "turn_retry",
                "turn_finished",
                "warning",
                "ledger",
                "angle",
                "stop",
                "judge_started",
                "judge_finished",
                "run_finished",
                "decided",
                "followup_started",
                "followup",
                "continued",
                "favours_flip",
            ]
        },
        **_WHERE,
        "text": {"type": "string"},
        "elapsed_s": {"type": "number", "minimum": 0},
        "turn_left_s": {"type": "number", "minimum": 0},
        "run_left_s": {"type": "number", "minimum": 0},
        "status": {"type": "string"},
        "exit_code": {"type": "integer"},
        "issues": {"type": "array", "items": _ISSUE},
        "counts": _COUNTS,
        "plan": PLAN_JSON_SCHEMA,
        "labels": {"type": "object", "additionalProperties": {"type": "string"}},
        "favours": {"type": "string", "description": "turn_finished with --option: the id named"},
    },
    ["seq", "ts", "event"],
)
EVENT["allOf"] = [
    {"if": {"properties": {"event": {"enum": ["turn_started", "turn_finished", "turn_retry"]}}},
     "then": {"required": ["round", "side"]}},
    {"if": {"properties": {"event": {"const": "text"}}}, "then": {"required": ["side", "text"]}},
    {"if": {"properties": {"event": {"const": "heartbeat"}}},
     "then": {"required": ["side", "elapsed_s", "turn_left_s", "run_left_s"]}},
    {"if": {"properties": {"event": {"const": "ledger"}}},
     "then": {"required": ["round", "issues", "counts"]}},
    {"if": {"properties": {"event": {"const": "run_finished"}}},
     "then": {"required": ["status", "exit_code"]}},
    {"if": {"properties": {"event": {"const": "favours_flip"}}},
     "then": {"required": ["round", "side", "from", "to"]}},
]  # fmt: skip

_RATE = {"type": ["number", "null"], "minimum": 0, "maximum": 1}
_COUNT_0 = {"type": "integer", "minimum": 0}
STATS = _doc(
    "collab.stats/1",
    {
        "runs": {"type": "integer", "minimum": 0},
        "turns": {"type": "integer", "minimum": 0},
        "concession_rate": _RATE,
        "resolved_by_evidence": {"type": "integer", "minimum": 0},
        "dropped": {"type": "integer", "minimum": 0},
        "open": {"type": "integer", "minimum": 0},
        "rounds_to_converge": _NUM_OR_NULL,
        "verdicts": {"type": "object", "additionalProperties": {"type": "integer"}},
        "salvage_rate": _RATE,
        "conceded": {"type": "integer", "minimum": 0},
        "contract_turns": {"type": "integer", "minimum": 0},
        "contract_rate": _RATE,
        "judge_fallback_rate": _RATE,
        "cost_usd": _NUM_OR_NULL,
        "cost_per_resolved_usd": _NUM_OR_NULL,
        "open_blocking": {"type": "integer", "minimum": 0},
        "cites": {"type": "integer", "minimum": 0},
        "evidence_verified_rate": _RATE,
        "decided_runs": _COUNT_0,
        "decided_with_options": _COUNT_0,
        "choice_matched": _COUNT_0,
        "choice_matched_rate": _RATE,
        "by_depth": {"type": "object", "additionalProperties": DEPTH_STATS_JSON_SCHEMA},
        "verdicts_by_seats": {"type": "object", "additionalProperties": {"type": "object"}},
        "per_run": {"type": "array", "items": {"type": "object"}},
    },
    ["runs", "turns", "concession_rate", "verdicts", "salvage_rate", "per_run"],
)

# The documents that start and follow a detached run, and the MCP server's own.
_RUN_STATUS = {"enum": list(get_args(RunStatus))}
_COUNT = {"type": "integer", "minimum": 0}


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
        "runner": {"enum": list(get_args(RunnerKind))},
        "max_cost": _NUM_OR_NULL,
        "depth": {"enum": list(DEPTHS)},
        "plan": PLAN_JSON_SCHEMA,
        "warnings": {"type": "array", "items": {"type": "string"}},
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
            "properties": {s: {"type": "string"} for s in "ABCDE"},  # C–E: a panel's
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
                "side": {"enum": list(SIDES)},
                "role": {"type": "string"},
                "status": {"type": "string"},
                "summary": {"type": "string", "description": "its first paragraph, one line"},
            },
            "required": ["round", "side", "role", "status", "summary"],
        },
        "stop_reason": _STR_OR_NULL,
        "stop_detail": {"type": "string"},
        "elapsed_s": {"type": "number", "minimum": 0},
        "remaining_s": {**_NUM_OR_NULL, "description": "null: idle, or no turn ended"},
        "cost_usd": _NUM_OR_NULL,
        "cost_estimated": {"type": "boolean"},
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
                "max_calls": {"type": "integer", "minimum": 1},
                "all_runs": {"type": "boolean"},
                "allow_paths": {"type": "array", "items": {"type": "string"}},
                "allow_read_tools": {"type": "boolean"},
                "allow_inherit_setup": {"type": "boolean"},
            },
            "required": ["max_cost", "max_concurrent"],
        },
        "runner": {"enum": [k for k in get_args(RunnerKind) if k != "auto"]},
        "active_runs": {"type": "array", "items": {"type": "string"}},
        "workdir": {"type": "string"},
        "config": {"type": "string"},
    },
    ["version", "limits", "active_runs"],
)

GATE = _doc(GATE_SCHEMA, dict(GATE_PROPERTIES), GATE_REQUIRED)  # `collab gate ID --json`
RESULT["properties"]["gate"] = GATE
with_verdict(LIST["properties"]["runs"]["items"], BATCH["properties"]["runs"]["items"], STATUS)
# collab.result/2 (panels): /1 with ``seats``, ``family_note`` and each ledger item's tally.
RESULT_V2 = {**copy.deepcopy(RESULT), "$id": "collab:collab.result/2", "title": "collab.result/2"}
_V2 = RESULT_V2["properties"]
_V2 |= {
    "schema": {"const": "collab.result/2"},
    "family_note": _STR_OR_NULL,
    "seats_answered": {"type": "array", "items": {"type": "array", "items": {"enum": list(SIDES)}}},
    "seats": {"type": "array", "items": SEAT_JSON_SCHEMA, "minItems": 2, "maxItems": 5},
    # optional: over MCP, what failed after a follow-up or a decision was saved
    "warnings": {"type": "array", "items": {"type": "string"}},
}
_V2["ledger"]["items"]["properties"]["tally"] = TALLY_JSON_SCHEMA
_V2["roles"]["properties"] |= dict.fromkeys(SIDES[2:], _SEAT)
RESULT_V2["required"] = [*RESULT["required"], "seats"]

SCHEMAS: dict[str, dict[str, Any]] = {
    s["title"]: s
    for s in (
        *(
            RESULT,
            RESULT_V2,
            ERROR,
            LIST,
            PRESETS,
            PRESET,
            DOCTOR,
            BATCH,
            SKILL,
            VERSION,
            EVENT,
            STATS,
        ),
        *(STARTED, STATUS, SERVER),
        GATE,
    )
}
