"""Options more than one command takes, declared once, and the one JSON document a
``--json`` command prints.

The debate options default to None so that the user's ``[defaults]`` in config.toml can
fill in what the command line did not say (see ``collab.settings``); the help shows the
built-in default.
"""

from __future__ import annotations

import functools
import inspect
import json
import sys
from collections.abc import Callable
from typing import Annotated, Any

import typer

# The panels of ``collab debate --help`` and ``collab batch --help``.
ROLES = "Roles and context"
AGENTS = "Agents and models"
LIMITS = "Limits"
OUTPUT = "Output"


def echo_json(doc: object) -> None:
    """The one JSON document a --json command prints."""
    sys.stdout.write(json.dumps(doc, ensure_ascii=False, indent=2) + "\n")
    sys.stdout.flush()


def echo_json_line(doc: object) -> None:
    """One JSON document on one line (``--events ndjson``: a line per event)."""
    sys.stdout.write(json.dumps(doc, ensure_ascii=False, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def flag(name: str, help_text: str, panel: str | None = None) -> Any:
    """A flag: no metavar (typer would show ``<bool>``, as if it took a value)."""
    return typer.Option(name, metavar="", help=help_text, rich_help_panel=panel)


def _opt(names: str, metavar: str, help_text: str, panel: str, default: str = "") -> Any:
    if default:  # shown the way typer shows a default it knows (the real default is None)
        help_text += f" [dim]\\[default: {default}][/dim]"
    return typer.Option(*names.split(), metavar=metavar, help=help_text, rich_help_panel=panel)


Json = Annotated[bool, flag("--json", "Print exactly one JSON document on stdout.")]
RunJson = Annotated[
    bool, flag("--json", "Print exactly one JSON document on stdout, nothing else.", OUTPUT)
]

Preset = Annotated[
    str | None,
    _opt("--preset -p", "NAME", "A pair of roles (collab presets).", ROLES,
         "advocate-vs-devils-advocate"),
]  # fmt: skip
RoleA = Annotated[
    str | None, _opt("--role-a", "ROLE", 'Custom Role A: "Name: description".', ROLES)
]
RoleB = Annotated[
    str | None, _opt("--role-b", "ROLE", 'Custom Role B: "Name: description".', ROLES)
]
Context = Annotated[
    list[str] | None,
    _opt("--context -c", "PATH", "A UTF-8 text file both sides read (repeatable).", ROLES),
]
Lang = Annotated[
    str | None,
    _opt("--lang", "LANG", "Prompt and summary language: auto, en or ja.", ROLES, "auto"),
]

Agent = Annotated[
    str | None, _opt("--agent", "AGENT", "Agent for both roles and the judge.", AGENTS, "claude")
]
AgentA = Annotated[str | None, _opt("--agent-a", "AGENT", "Agent for Role A.", AGENTS)]
AgentB = Annotated[str | None, _opt("--agent-b", "AGENT", "Agent for Role B.", AGENTS)]
JudgeAgent = Annotated[
    str | None,
    _opt("--judge-agent", "AGENT",
         "Agent for the Judge; auto: one of another family than the debaters' when one is "
         "installed and logged in, else theirs.", AGENTS),
]  # fmt: skip
Model = Annotated[
    str | None, _opt("--model -m", "MODEL", "Model for both roles and the judge.", AGENTS)
]
ModelA = Annotated[str | None, _opt("--model-a", "MODEL", "Model for Role A.", AGENTS)]
ModelB = Annotated[str | None, _opt("--model-b", "MODEL", "Model for Role B.", AGENTS)]
JudgeModel = Annotated[str | None, _opt("--judge-model", "MODEL", "Model for the Judge.", AGENTS)]
AgentCommand = Annotated[
    str | None,
    _opt("--agent-command", "TEMPLATE",
         "argv template for --agent command, e.g. 'mycli -f {prompt_file} -m {model}'.", AGENTS),
]  # fmt: skip
Runner = Annotated[
    str | None,
    _opt("--runner", "RUNNER", "Where turns run: auto, tmux or subprocess.", AGENTS, "auto"),
]
AgentSetup = Annotated[
    str | None,
    _opt("--agent-setup", "SETUP",
         "lean: turns without your hooks, MCP servers, skills or memory (your provider "
         "settings still apply); inherit: with your full agent setup.", AGENTS, "lean"),
]  # fmt: skip
Tools = Annotated[
    str | None,
    _opt("--tools", "TOOLS",
         "none, or read: read-only tools in this directory (for code reviews; evidence as "
         "path:line).", AGENTS, "none"),
]  # fmt: skip
Opening = Annotated[
    str | None,
    _opt("--opening", "MODE",
         "blind: both sides open at once, neither seeing the other; sequential: A, then B "
         "answering A.", ROLES, "blind"),
]  # fmt: skip
AllowSecrets = Annotated[
    bool,
    flag("--allow-secrets",
         "Send context files and a topic even where they look like they hold a secret.",
         ROLES),
]  # fmt: skip

Rounds = Annotated[int | None, _opt("--rounds -r", "N", "Rounds, 2–7.", LIMITS, "3")]
Timeout = Annotated[float | None, _opt("--timeout", "SECONDS", "Seconds per turn.", LIMITS, "120")]
JudgeTimeout = Annotated[
    float | None, _opt("--judge-timeout", "SECONDS", "Seconds for the Judge.", LIMITS, "180")
]
Budget = Annotated[
    float | None, _opt("--budget", "SECONDS", "Seconds for the whole debate.", LIMITS, "900")
]
MaxChars = Annotated[int | None, _opt("--max-chars", "N", "Prose limit per reply.", LIMITS, "1000")]
MaxCost = Annotated[
    float | None,
    _opt("--max-cost", "USD", "Stop before a turn once this many USD are spent.", LIMITS, "none"),
]
ContextBudget = Annotated[
    int | None,
    _opt("--context-budget", "CHARS", "Characters of context, all files together.", LIMITS,
         "60000"),
]  # fmt: skip
Events = Annotated[
    str | None,
    _opt("--events", "FORMAT",
         "ndjson: print the run's events on stdout as they happen, one JSON object a line "
         "(collab.event/1), the last line the collab.result/1 document.", OUTPUT),
]  # fmt: skip
KeepTemp = Annotated[
    bool, flag("--keep-temp", "Keep the per-run temp dir (prompts, raw outputs).", OUTPUT)
]


def debate_options(
    *,
    preset: Preset = None,
    role_a: RoleA = None,
    role_b: RoleB = None,
    context: Context = None,
    lang: Lang = None,
    agent: Agent = None,
    agent_a: AgentA = None,
    agent_b: AgentB = None,
    judge_agent: JudgeAgent = None,
    model: Model = None,
    model_a: ModelA = None,
    model_b: ModelB = None,
    judge_model: JudgeModel = None,
    agent_command: AgentCommand = None,
    runner: Runner = None,
    agent_setup: AgentSetup = None,
    tools: Tools = None,
    opening: Opening = None,
    allow_secrets: AllowSecrets = False,
    rounds: Rounds = None,
    timeout: Timeout = None,
    judge_timeout: JudgeTimeout = None,
    budget: Budget = None,
    max_chars: MaxChars = None,
    max_cost: MaxCost = None,
    context_budget: ContextBudget = None,
    keep_temp: KeepTemp = False,
) -> dict[str, object]:
    """The options ``debate`` and ``batch`` share, as ``settings.merge`` keywords: None
    wherever the command line said nothing."""
    return {
        "preset": preset, "role_a": role_a, "role_b": role_b, "rounds": rounds,
        "context": tuple(context) if context else None, "agent": agent, "agent_a": agent_a,
        "agent_b": agent_b, "judge_agent": judge_agent, "model": model, "model_a": model_a,
        "model_b": model_b, "judge_model": judge_model, "agent_command": agent_command,
        "turn_timeout": timeout, "judge_timeout": judge_timeout, "budget": budget,
        "max_chars": max_chars, "max_cost": max_cost, "context_budget": context_budget,
        "lang": lang, "runner": runner, "keep_temp": keep_temp or None,
        "agent_setup": agent_setup, "tools": tools, "opening": opening,
        "allow_secrets": allow_secrets or None,
    }  # fmt: skip


def with_debate_options(command: Callable[..., None]) -> Callable[..., None]:
    """Give ``command`` every option of :func:`debate_options`, where its keyword-only
    ``given`` parameter stands. Typer reads a command's options from its signature, so the
    wrapper shows it the combined one; the command receives the options as one dict."""
    shared = inspect.signature(debate_options, eval_str=True).parameters
    own = inspect.signature(command, eval_str=True)
    params: list[inspect.Parameter] = []
    for param in own.parameters.values():
        params.extend(shared.values() if param.name == "given" else [param])

    @functools.wraps(command)
    def wrapper(**kwargs: Any) -> None:
        given = debate_options(**{name: kwargs.pop(name) for name in shared})
        command(given=given, **kwargs)

    wrapper.__signature__ = own.replace(parameters=params)  # type: ignore[attr-defined]
    wrapper.__annotations__ = {p.name: p.annotation for p in params} | {"return": None}
    return wrapper
