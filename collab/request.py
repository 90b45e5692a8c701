"""User input to a debate (command line, config.toml defaults, a batch entry) checked
and turned into a DebateConfig: every problem is one UsageError line, nothing started."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, fields
from pathlib import Path
from types import NoneType, UnionType
from typing import TypeVar, get_args, get_origin, get_type_hints

from collab import presets
from collab.agents import AGENT_SETUPS, TOOL_SETS, command_spec
from collab.config import (
    MAX_ROUNDS,
    MIN_ROUNDS,
    OPENINGS,
    AgentChoice,
    ContextFile,
    DebateConfig,
    Role,
    runner_kind,
)
from collab.errors import UsageError
from collab.judge_pick import AUTO, pick_judge
from collab.lang import resolve_lang
from collab.secret_scan import ensure_no_secrets

L = TypeVar("L", bound=str)

MAX_TOPIC_CHARS = 2000
DEFAULT_CONTEXT_BUDGET = 60_000  # characters of context, all files together
_BINARY_SNIFF = 8192


@dataclass(frozen=True)
class DebateRequest:
    """The raw options of ``collab debate`` (or one batch entry) before validation."""

    topic: str
    preset: str | None = None
    role_a: str | None = None
    role_b: str | None = None
    rounds: int = 3
    context: tuple[str, ...] = ()
    agent_a: str = "claude"
    agent_b: str = "claude"
    judge_agent: str = "claude"
    model_a: str | None = None
    model_b: str | None = None
    judge_model: str | None = None
    turn_timeout: float = 120.0
    judge_timeout: float = 180.0
    budget: float = 900.0
    max_chars: int = 1000
    lang: str = "auto"
    runner: str = "auto"
    keep_temp: bool = False
    max_cost: float | None = None
    context_budget: int = DEFAULT_CONTEXT_BUDGET
    agent_command: str | None = None
    agent_setup: str = "lean"
    tools: str = "none"
    opening: str = "blind"
    allow_secrets: bool = False


def validate_topic(topic: str) -> str:
    text = topic.strip()
    if not text:
        raise UsageError(
            'the topic is empty: say what to debate, e.g. collab debate "JWT vs sessions"'
        )
    if "\0" in text:
        raise UsageError("the topic contains a NUL byte")
    if len(text) > MAX_TOPIC_CHARS:
        raise UsageError(
            f"the topic is {len(text)} characters; keep it under {MAX_TOPIC_CHARS} "
            "and put the details in a --context file"
        )
    return text


def load_context(path_text: str) -> ContextFile:
    path = Path(path_text).expanduser()
    if not path.exists():
        raise UsageError(f"context file not found: {path_text}")
    if path.is_dir():
        raise UsageError(f"context path is a directory, not a file: {path_text}")
    if not path.is_file():
        raise UsageError(f"context path is not a regular file: {path_text}")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise UsageError(f"cannot read context file {path_text}: {exc.strerror}") from None
    if b"\0" in data[:_BINARY_SNIFF]:
        raise UsageError(f"context file looks binary (NUL bytes): {path_text}")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(
            f"context file is not UTF-8 text: {path_text} (byte {exc.start})"
        ) from None
    return ContextFile(path=path_text, text=text)


def context_drift(contexts: tuple[ContextFile, ...]) -> list[str]:
    """At a resume: a warning for each context file that changed or vanished on disk since
    the run started. The run keeps the text saved with it (what its turns already saw)."""
    notes = []
    for c in contexts:
        path = Path(c.path).expanduser()
        try:  # a FIFO (or anything but a file) is never opened: it could block
            now = path.read_bytes().decode("utf-8") if path.is_file() else None
        except (OSError, UnicodeDecodeError):
            now = None
        if now == c.text:
            continue
        what = "is gone (or unreadable from here)" if now is None else "changed on disk"
        notes.append(
            f"context file {c.path} {what} since the run started; the run goes on with the "
            "text saved when it started (start a new debate to use the file as it is now)"
        )
    return notes


def load_contexts(paths: tuple[str, ...], budget: int) -> tuple[ContextFile, ...]:
    files = tuple(load_context(p) for p in paths)
    total = 0
    for f in files:
        size = len(f.text)
        if size > budget:
            raise UsageError(
                f"context file {f.path} is {size:,} characters, over the context budget of "
                f"{budget:,} (raise it with --context-budget or pass an excerpt)"
            )
        total += size
    if total > budget:
        raise UsageError(
            f"context files total {total:,} characters, over the context budget of {budget:,} "
            "(raise it with --context-budget or pass fewer files)"
        )
    return files


def _positive(name: str, value: float) -> float:
    if not value > 0:
        raise UsageError(f"{name} must be a positive number of seconds, got {value:g}")
    return float(value)


def build_config(req: DebateRequest, known_agents: Collection[str]) -> DebateConfig:
    """Validate everything up front: a bad option never starts a pane or writes a file."""
    topic = validate_topic(req.topic)
    if not MIN_ROUNDS <= req.rounds <= MAX_ROUNDS:
        raise UsageError(f"--rounds must be {MIN_ROUNDS}–{MAX_ROUNDS}, got {req.rounds}")
    if req.lang not in ("auto", "en", "ja"):
        raise UsageError(f"--lang must be auto, en or ja, got {req.lang!r}")
    lang = resolve_lang(req.lang, topic)
    if req.runner not in ("auto", "tmux", "subprocess"):
        raise UsageError(f"--runner must be auto, tmux or subprocess, got {req.runner!r}")
    judge_agent = req.judge_agent
    if judge_agent == AUTO:
        judge_agent = pick_judge((req.agent_a, req.agent_b), known_agents)
    seats = (req.agent_a, req.agent_b, judge_agent)
    for name in seats:
        if name not in known_agents and name != "command":
            valid = ", ".join(sorted([*known_agents, "command"]))
            raise UsageError(f"unknown agent '{name}'; choose one of: {valid}")
    command = None
    if "command" in seats:
        if not req.agent_command:
            raise UsageError(
                "the command agent needs --agent-command, e.g. "
                "--agent-command 'mycli --prompt-file {prompt_file}'"
            )
        command_spec(req.agent_command)  # validates the template
        command = req.agent_command
    turn_timeout = _positive("--timeout", req.turn_timeout)
    judge_timeout = _positive("--judge-timeout", req.judge_timeout)
    budget = _positive("--budget", req.budget)
    if req.max_chars < 100:
        raise UsageError(f"--max-chars must be at least 100, got {req.max_chars}")
    if req.max_cost is not None and not req.max_cost > 0:
        raise UsageError(f"--max-cost must be a positive amount of USD, got {req.max_cost:g}")
    if req.context_budget < 1:
        raise UsageError("--context-budget must be positive")
    agent_setup = _choose("--agent-setup", req.agent_setup, AGENT_SETUPS)
    tools = _choose("--tools", req.tools, TOOL_SETS)
    opening = _choose("--opening", req.opening, OPENINGS)

    if (req.role_a is None) != (req.role_b is None):
        raise UsageError("custom roles need both --role-a and --role-b")
    if req.role_a is not None and req.role_b is not None:
        if req.preset is not None:
            raise UsageError("use either --preset or --role-a/--role-b, not both")
        ra = presets.parse_custom_role(req.role_a, "A")
        rb = presets.parse_custom_role(req.role_b, "B")
        preset_key = "custom"
    else:
        preset = presets.get_preset(req.preset or presets.DEFAULT_PRESET)
        ra, rb = presets.roles_for(preset, lang)
        preset_key = preset.key
    ra_role, rb_role = Role("A", ra.name, ra.description), Role("B", rb.name, rb.description)
    contexts = load_contexts(tuple(req.context), req.context_budget)
    # Everything below goes to a model provider: nothing that looks like a secret leaves.
    ensure_no_secrets(
        topic,
        [(c.path, c.text) for c in contexts],
        others=[(f"--role-{r.side.lower()}", r.description) for r in (ra_role, rb_role)]
        if preset_key == "custom" else [],
        allow=req.allow_secrets,
    )  # fmt: skip
    return DebateConfig(
        topic=topic,
        role_a=ra_role,
        role_b=rb_role,
        preset=preset_key,
        rounds=req.rounds,
        contexts=contexts,
        agent_a=_choice(req.agent_a, req.model_a, command),
        agent_b=_choice(req.agent_b, req.model_b, command),
        judge=_choice(judge_agent, req.judge_model, command),
        turn_timeout=turn_timeout,
        judge_timeout=judge_timeout,
        budget=budget,
        max_chars=req.max_chars,
        lang=lang,
        runner=runner_kind(req.runner),
        keep_temp=req.keep_temp,
        max_cost=req.max_cost,
        agent_setup=agent_setup,
        tools=tools,
        opening=opening,
    )


def _choose(option: str, value: str, choices: tuple[L, ...]) -> L:
    for choice in choices:
        if value == choice:
            return choice
    raise UsageError(f"{option} must be {' or '.join(choices)}, got {value!r}")


def _choice(agent: str, model: str | None, command: str | None) -> AgentChoice:
    return AgentChoice(agent, model, command if agent == "command" else None)


# External key (config.toml [defaults], batch entries) → DebateRequest field.
REQUEST_KEYS = {
    "topic": "topic",
    "preset": "preset",
    "rounds": "rounds",
    "role_a": "role_a",
    "role_b": "role_b",
    "context": "context",
    "agent_a": "agent_a",
    "agent_b": "agent_b",
    "judge_agent": "judge_agent",
    "model_a": "model_a",
    "model_b": "model_b",
    "judge_model": "judge_model",
    "timeout": "turn_timeout",
    "judge_timeout": "judge_timeout",
    "budget": "budget",
    "max_chars": "max_chars",
    "max_cost": "max_cost",
    "context_budget": "context_budget",
    "lang": "lang",
    "runner": "runner",
    "agent_command": "agent_command",
    "agent_setup": "agent_setup",
    "tools": "tools",
    "opening": "opening",
    "allow_secrets": "allow_secrets",
}
# Shorthands that set a value for both roles and the judge.
SEAT_KEYS = {
    "agent": ("agent_a", "agent_b", "judge_agent"),
    "model": ("model_a", "model_b", "judge_model"),
}


def coerce_field(name: str, key: str, value: object) -> object:
    """Type-check one DebateRequest field read from TOML/JSON/YAML data, by the field's
    declared type: ``true`` is not a number, an integer is a float, ``X | None`` takes null."""
    accepted = _REQUEST_TYPES[name]
    if value is None:
        if NoneType in accepted:
            return None
    elif isinstance(value, bool):
        if bool in accepted:
            return value
    elif isinstance(value, int | float) and float in accepted:
        return float(value)
    elif any(isinstance(value, kind) for kind in accepted):
        return value
    raise UsageError(f"{key!r} has the wrong type ({type(value).__name__})")


def _accepted(hint: object) -> frozenset[type]:
    """The plain types a field's annotation lets through."""
    if isinstance(hint, UnionType):
        return frozenset().union(*(_accepted(arg) for arg in get_args(hint)))
    if get_origin(hint) is tuple:
        # tuple[str, ...]: one string passes, as before (callers resolve context paths).
        return _accepted(get_args(hint)[0])
    if isinstance(hint, type):
        return frozenset({hint})
    raise TypeError(f"DebateRequest: no rule for a field of type {hint!r}")


_HINTS = get_type_hints(DebateRequest)
_REQUEST_TYPES = {f.name: _accepted(_HINTS[f.name]) for f in fields(DebateRequest)}
