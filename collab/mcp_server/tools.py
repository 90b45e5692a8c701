"""The MCP tools collab serves: names, descriptions, JSON input schemas, output schemas
(the same JSON Schemas as the ``--json`` documents) and their behaviour hints."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import mcp_types as types

from collab.control.steer import MAX_ROUNDS_PER_CONTINUE
from collab.decision import MAX_DECISION_CHARS
from collab.mcp_server.inputs import DEBATE_PROPS
from collab.prompts import MAX_NOTE_CHARS, MAX_QUESTION_CHARS
from collab.report import SCHEMAS
from collab.seats import SEATS
from collab.suggest import did_you_mean

_RUN_ID: dict[str, Any] = {
    "type": "string",
    "pattern": "^(@last|[A-Za-z0-9_-]{1,64})$",
    "description": "The run id debate_start returned (or one from runs_list), a unique "
    "prefix of it, a unique suffix of at least 4 characters, or @last (the newest run).",
}


def _input(props: dict[str, dict[str, Any]], required: tuple[str, ...] = ()) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": props,
        "required": list(required),
        "additionalProperties": False,
    }


def _output(name: str, **extra: dict[str, Any]) -> dict[str, Any]:
    """A document's schema as an MCP outputSchema: no ``$schema``/``$id`` (two tools
    share a document, and validators key compiled schemas by ``$id``)."""
    schema = {k: v for k, v in SCHEMAS[name].items() if k not in ("$schema", "$id")}
    if extra:
        schema["properties"] = {**schema["properties"], **extra}
    return schema


def _hints(*, read_only: bool, destructive: bool = False, idempotent: bool = False,
           open_world: bool = False, title: str) -> types.ToolAnnotations:  # fmt: skip
    return types.ToolAnnotations(
        title=title,
        read_only_hint=read_only,
        destructive_hint=destructive,
        idempotent_hint=idempotent,
        open_world_hint=open_world,
    )


MAX_WAIT_S = 50  # under the 60 s that MCP clients commonly allow a call
_WAIT = {
    "type": "number",
    "minimum": 0,
    "maximum": MAX_WAIT_S,
    "description": "Seconds to wait for the next step before answering. Default 0.",
}
_LIMIT = {
    "type": "integer",
    "minimum": 1,
    "maximum": 200,
    "description": "At most this many runs. Default 20.",
}
_FOLLOW = (
    "The debate runs on in its own process, whatever happens to this connection; "
    "a user can watch it live with `collab watch RUN_ID`."
)

_ASK: dict[str, dict[str, Any]] = {
    "question": {"type": "string", "minLength": 1, "maxLength": MAX_QUESTION_CHARS,
                 "description": "The follow-up question (checked like the topic)."},
    "seat": {"enum": [*SEATS, "judge"], "description": "Whom to ask: a seat of the run "
             "(A, B, … E) or the Judge. Default: every debater at once, none seeing another's "
             "answer."},
}  # fmt: skip
_CONTINUE: dict[str, dict[str, Any]] = {
    "rounds": {"type": "integer", "minimum": 1, "maximum": MAX_ROUNDS_PER_CONTINUE,
               "description": "More rounds (a debate totals at most 14). Default 1."},
    "note": {"type": "string", "maxLength": MAX_NOTE_CHARS, "description": "A note from the "
             "person who decides, put into every prompt of the added rounds."},
}  # fmt: skip
_DECIDE: dict[str, dict[str, Any]] = {
    "choice": {"type": "string", "maxLength": MAX_DECISION_CHARS, "description": "What the "
               "user decided: an option id (O2) or an option's exact text when the debate "
               "had options, free text otherwise. Record only what the user said."},
    "why": {"type": "string", "maxLength": MAX_DECISION_CHARS, "description": "Why (with choice)."},
    "outcome": {"type": "string", "maxLength": MAX_DECISION_CHARS,
                "description": "Later: how the decision turned out (instead of choice)."},
}  # fmt: skip

TOOLS: tuple[types.Tool, ...] = (
    types.Tool(
        name="debate_start",
        title="Start a debate",
        description="Start a structured debate between two AI agents holding opposed expert "
        "roles, ended by a neutral Judge's summary, and return at once with its run_id. A "
        "debate takes minutes: follow it with debate_status (every 20-60 s), then read it "
        "with debate_result. Inputs are checked before anything starts (a bad preset, "
        "path or option is an error and starts nothing). " + _FOLLOW,
        input_schema=_input(DEBATE_PROPS, ("topic",)),
        output_schema=_output("collab.started/1", next={"type": "string"}),
        annotations=_hints(read_only=False, open_world=True, title="Start a debate"),
    ),
    types.Tool(
        name="debate_status",
        title="Debate status",
        description="Where a debate is: status, phase (starting, debating, judging, "
        "finishing, finished, stopped), round, turns done, issue-ledger counts, the last turn "
        "in one line, elapsed and estimated remaining seconds, cost so far. With wait_s it "
        "first waits (up to 50 s) until a turn or the Judge ends or the run stops, so one "
        "call per step is enough.",
        input_schema=_input({"run_id": _RUN_ID, "wait_s": _WAIT}, ("run_id",)),
        output_schema=_output("collab.status/1"),
        annotations=_hints(read_only=True, idempotent=True, title="Debate status"),
    ),
    types.Tool(
        name="debate_result",
        title="Debate result",
        description="The result of a debate that has ended: the Judge's Markdown summary "
        "(judge.markdown), the issue ledger, the verdict, cost and file paths "
        "(collab.result/2). An error while the debate still runs: poll debate_status first.",
        input_schema=_input({"run_id": _RUN_ID}, ("run_id",)),
        output_schema=_output("collab.result/2"),
        annotations=_hints(read_only=True, idempotent=True, title="Debate result"),
    ),
    types.Tool(
        name="debate_cancel",
        title="Cancel a debate",
        description="Stop a running debate like Ctrl-C: the turn in flight is abandoned, "
        "everything before it is saved, and `collab resume RUN_ID` continues it later. "
        "Returns the status after it stopped.",
        input_schema=_input({"run_id": _RUN_ID}, ("run_id",)),
        output_schema=_output("collab.status/1"),
        annotations=_hints(
            read_only=False, destructive=True, idempotent=True, title="Cancel a debate"
        ),
    ),
    types.Tool(
        name="debate",
        title="Run a debate to the end",
        description="Run a debate and wait for its end, with a progress notification per "
        "turn and a heartbeat in between; returns the result (collab.result/2). Takes "
        "minutes: use it only where tool calls may run that long, else debate_start. "
        "Same inputs as debate_start. " + _FOLLOW,
        input_schema=_input(DEBATE_PROPS, ("topic",)),
        output_schema=_output("collab.result/2"),
        annotations=_hints(read_only=False, open_world=True, title="Run a debate to the end"),
    ),
    types.Tool(
        name="debate_ask",
        title="Ask a debater or the Judge",
        description="After a debate has ended: ask one seat (or every debater at once) a "
        "follow-up question and wait for the answer(s) (about a minute). The answers are "
        "kept with the run (followups in collab.result/2) and change neither the ledger "
        "nor the verdict. Counts against this server's max_concurrent and max_cost.",
        input_schema=_input({"run_id": _RUN_ID, **_ASK}, ("run_id", "question")),
        output_schema=_output("collab.result/2"),
        annotations=_hints(read_only=False, open_world=True, title="Ask a debater or the Judge"),
    ),
    types.Tool(
        name="debate_continue",
        title="Continue a finished debate",
        description="Add rounds to a debate that has finished (not an interrupted one: "
        "`collab resume RUN_ID` finishes that), with the user's note in every prompt, then a "
        "new Judge summary; the earlier summary is kept as superseded. Returns at once; "
        "follow it with debate_status, then debate_result. " + _FOLLOW,
        input_schema=_input({"run_id": _RUN_ID, **_CONTINUE}, ("run_id",)),
        output_schema=_output("collab.status/1", next={"type": "string"}),
        annotations=_hints(read_only=False, open_world=True, title="Continue a finished debate"),
    ),
    types.Tool(
        name="debate_decide",
        title="Record the decision",
        description="Record what the user decided after a debate (choice, why), or later "
        "how it turned out (outcome). Deciding again supersedes; the history is kept. "
        "Record only what the user told you; never decide for them.",
        input_schema=_input({"run_id": _RUN_ID, **_DECIDE}, ("run_id",)),
        output_schema=_output("collab.result/2"),
        annotations=_hints(read_only=False, title="Record the decision"),
    ),
    types.Tool(
        name="runs_list",
        title="List debates",
        description="Debates kept on this machine, newest first: run_id, topic, status, "
        "stop reason, cost; with this server's limits.",
        input_schema=_input({"limit": _LIMIT}),
        output_schema=_output("collab.list/1", server=_output("collab.server/1")),
        annotations=_hints(read_only=True, idempotent=True, title="List debates"),
    ),
    types.Tool(
        name="presets_list",
        title="List presets",
        description="The sets of opposed roles a debate can use (preset): a pair, or a "
        "panel of 3-5 seats (seats lists them in order), with what each is for.",
        input_schema=_input({}),
        output_schema=_output("collab.presets/1"),
        annotations=_hints(read_only=True, idempotent=True, title="List presets"),
    ),
    types.Tool(
        name="server_info",
        title="Server info",
        description="This server's version and limits: the default and ceiling of max_cost "
        "per debate, how many debates started over MCP run at once, and which run now.",
        input_schema=_input({}),
        output_schema=_output("collab.server/1"),
        annotations=_hints(read_only=True, idempotent=True, title="Server info"),
    ),
)


_ARGUMENTS = {tool.name: sorted(tool.input_schema["properties"]) for tool in TOOLS}


def unknown_argument(tool: str, arguments: Mapping[str, object]) -> str | None:
    """What is wrong when ``arguments`` has one that ``tool``'s input schema does not (its
    ``additionalProperties`` is false), worded as for a debate's options; None when all
    are known."""
    names = _ARGUMENTS[tool]
    for key in arguments:
        if key not in names:
            valid = f"valid arguments: {', '.join(names)}" if names else f"{tool} takes none"
            return f"unknown argument {key!r}; {did_you_mean(key, names, valid)}"
    return None
