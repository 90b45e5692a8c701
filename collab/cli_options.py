"""Options shared by ``debate`` and ``batch``, declared once.

Every option defaults to None so that the user's ``[defaults]`` in config.toml can fill
in what the command line did not say (see ``collab.settings``).
"""

from __future__ import annotations

import json
import sys
from typing import Annotated

import typer


def echo_json(doc: object) -> None:
    """The one JSON document a --json command prints."""
    sys.stdout.write(json.dumps(doc, ensure_ascii=False, indent=2) + "\n")
    sys.stdout.flush()


Preset = Annotated[str | None, typer.Option("--preset", "-p", help="A preset (collab presets).")]
RoleA = Annotated[str | None, typer.Option("--role-a", help='Custom Role A: "Name: description".')]
RoleB = Annotated[str | None, typer.Option("--role-b", help='Custom Role B: "Name: description".')]
Rounds = Annotated[int | None, typer.Option("--rounds", "-r", help="Rounds, 2–7 [default: 3].")]
Context = Annotated[
    list[str] | None,
    typer.Option("--context", "-c", help="A text file both sides read (repeatable)."),
]
Agent = Annotated[
    str | None,
    typer.Option("--agent", help="Agent for both roles and the judge [default: claude]."),
]
AgentA = Annotated[str | None, typer.Option("--agent-a", help="Agent for Role A.")]
AgentB = Annotated[str | None, typer.Option("--agent-b", help="Agent for Role B.")]
JudgeAgent = Annotated[str | None, typer.Option("--judge-agent", help="Agent for the Judge.")]
Model = Annotated[
    str | None, typer.Option("--model", "-m", help="Model for both roles and the judge.")
]
ModelA = Annotated[str | None, typer.Option("--model-a", help="Model for Role A.")]
ModelB = Annotated[str | None, typer.Option("--model-b", help="Model for Role B.")]
JudgeModel = Annotated[str | None, typer.Option("--judge-model", help="Model for the Judge.")]
AgentCommand = Annotated[
    str | None,
    typer.Option(
        "--agent-command",
        help="argv template for --agent command, e.g. 'mycli -f {prompt_file} -m {model}'.",
    ),
]
Timeout = Annotated[
    float | None, typer.Option("--timeout", help="Seconds per turn [default: 120].")
]
JudgeTimeout = Annotated[
    float | None, typer.Option("--judge-timeout", help="Seconds for the Judge [default: 180].")
]
Budget = Annotated[
    float | None, typer.Option("--budget", help="Seconds for the whole debate [default: 900].")
]
MaxChars = Annotated[
    int | None, typer.Option("--max-chars", help="Prose limit per reply [default: 1000].")
]
MaxCost = Annotated[
    float | None,
    typer.Option("--max-cost", help="Stop before a turn once this many USD are spent."),
]
ContextBudget = Annotated[
    int | None,
    typer.Option("--context-budget", help="Max characters of context, all files [default: 60000]."),
]
Lang = Annotated[str | None, typer.Option("--lang", help="auto, en or ja [default: auto].")]
Runner = Annotated[
    str | None, typer.Option("--runner", help="auto, tmux or subprocess [default: auto].")
]
KeepTemp = Annotated[bool, typer.Option("--keep-temp", help="Keep the per-run temp dir.")]
Json = Annotated[bool, typer.Option("--json", help="Print exactly one JSON document on stdout.")]
