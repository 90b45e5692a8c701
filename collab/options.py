"""Every option of a debate, declared once: its name, type, default, help, range or
choices, and the surfaces that offer it.

``DebateRequest`` is the declaration: each field is an option, its annotation the type,
its default the default, and :func:`option` puts the rest into the field's metadata (the
way dataclass field metadata carries a schema). Two shorthands (``agent``, ``model``)
set three fields at once. Everything else is derived from :data:`OPTIONS`:

- the command line (``collab debate``/``batch``): ``collab.cli.options``;
- config.toml ``[defaults]``: ``collab.settings``;
- batch entries: ``collab.batch.entries``;
- the MCP tools' input schema: ``collab.mcp_server.inputs``;

and ``collab.request.request_from`` turns a mapping from any of them into a request,
naming an option the way that surface spells it (``--rounds`` on the command line,
``rounds`` in files and over MCP).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import MISSING, field, fields
from types import NoneType, UnionType
from typing import Any, Literal, get_args, get_origin, get_type_hints

from collab.agents import AgentSetup, ToolSet
from collab.lang import Lang
from collab.presets import DEFAULT_PRESET, MAX_ROLE_DESCRIPTION_CHARS, MAX_ROLE_NAME_CHARS
from collab.records import record
from collab.seats import MAX_SEATS, MIN_SEATS

# Where an option is offered: the command line (collab debate, collab batch), config.toml
# [defaults], an entry of a batch's topics file, the MCP tools debate_start and debate.
Surface = Literal["cli", "config", "batch", "mcp"]
EVERYWHERE: frozenset[Surface] = frozenset(get_args(Surface))

# The panels of ``collab debate --help`` and ``collab batch --help``.
ROLES = "Roles and context"
AGENTS = "Agents and models"
LIMITS = "Limits"
OUTPUT = "Output"
DECISION = "Decision"
LENGTH = "Rounds and depth"  # the options people give most: shown first

RunnerKind = Literal["auto", "tmux", "subprocess"]
Opening = Literal["blind", "sequential"]
# How deep a debate goes (docs/depth.md): quick = the blind round and the Judge; standard =
# today's stop rules; deep = the same rules with more rounds; auto = a cross-check round,
# then full rounds while the last one changed something that matters.
Depth = Literal["quick", "standard", "deep", "auto"]
DEPTHS: tuple[Depth, ...] = get_args(Depth)
# --rounds when it is not given: the cap each depth runs up to.
DEFAULT_ROUNDS: dict[Depth, int] = {"quick": 1, "standard": 3, "deep": 7, "auto": 7}
OPENINGS: tuple[Opening, ...] = get_args(Opening)
RUNNER_KINDS: tuple[RunnerKind, ...] = get_args(RunnerKind)
MIN_ROUNDS = 1  # one round is a quick run (--depth quick)
MAX_ROUNDS = 7
MAX_TOPIC_CHARS = 2_000  # a topic is a question; the details go into context files
DEFAULT_CONTEXT_BUDGET = 60_000  # characters of context, all files together
MAX_CONTEXT_FILES = 20  # per debate, on every surface (CLI, config, batch, MCP)
# Decision input (--option, --constraint, --leaning): untrusted text like the topic.
MIN_OPTIONS, MAX_OPTIONS = 2, 5  # numbered O1–O5
MAX_CONSTRAINTS = 8
MAX_OPTION_CHARS = 300  # an option's or a constraint's text
MAX_LEANING_CHARS = 1_000


@record
class Option:
    """One option as every surface sees it."""

    name: str  # the key in files and over MCP; ``--name-with-dashes`` on the command line
    kind: type  # str, int, float, bool, or tuple (a list of paths)
    optional: bool  # None is a value (the agent's own model, no cost cap…)
    default: object
    help: str
    surfaces: frozenset[Surface]
    sets: tuple[str, ...]  # the request fields it sets (a shorthand sets several)
    short: str = ""  # the command line's one-letter alias, e.g. -r
    metavar: str = ""
    panel: str = ""
    choices: tuple[str, ...] = ()
    minimum: int | None = None
    maximum: int | None = None
    positive: str = ""  # must be > 0: what the number counts ("number of seconds")
    default_text: str | None = None  # the default as help shows it, where None means one
    # A list of texts (not paths): how many items it may hold when given, each capped.
    min_items: int | None = None
    max_items: int | None = None
    item_chars: int | None = None
    # Security-sensitive in a batch entry (it runs, reads or widens what an agent may do);
    # what a restricted key needs is decided by the batch surface.
    batch_restricted: bool = False

    def spelled(self, surface: Surface) -> str:
        """The option's name as ``surface`` spells it: ``--max-chars`` or ``max_chars``."""
        return spell(self.name, surface)

    @property
    def flags(self) -> tuple[str, ...]:
        return (spell(self.name, "cli"), *((self.short,) if self.short else ()))

    @property
    def shown_default(self) -> str | None:
        """The default in help texts: ``120`` for 120.0; None when there is none to show."""
        if self.default_text is not None or self.default is None or self.kind is bool:
            return self.default_text
        if isinstance(self.default, float) and self.default.is_integer():
            return str(int(self.default))
        return str(self.default) if self.default != () else None


def spell(name: str, surface: Surface) -> str:
    return "--" + name.replace("_", "-") if surface == "cli" else name


def option(
    default: Any = MISSING,
    *,
    help: str,
    surfaces: Collection[Surface] = EVERYWHERE,
    short: str = "",
    metavar: str = "",
    panel: str = "",
    choices: Collection[str] = (),
    minimum: int | None = None,
    maximum: int | None = None,
    positive: str = "",
    default_text: str | None = None,
    batch_restricted: bool = False,
    min_items: int | None = None,
    max_items: int | None = None,
    item_chars: int | None = None,
) -> Any:
    """A field of :class:`DebateRequest` that is an option (see :class:`Option`)."""
    spec = {
        "help": help, "surfaces": frozenset(surfaces), "short": short, "metavar": metavar,
        "panel": panel, "choices": tuple(choices), "minimum": minimum, "maximum": maximum,
        "positive": positive, "default_text": default_text,
        "batch_restricted": batch_restricted, "min_items": min_items, "max_items": max_items,
        "item_chars": item_chars,
    }  # fmt: skip
    return field(default=default, metadata={"option": spec})


def either(choices: Collection[str]) -> str:
    """``a, b or c``."""
    *rest, last = choices
    return f"{', '.join(rest)} or {last}" if rest else last


_SECONDS = "number of seconds"
_NAMES_CHARS = MAX_SEATS * 201  # "a,b,c": up to five names of at most 200 characters
_LANGS = ("auto", *get_args(Lang))
_BUT_CONFIG: frozenset[Surface] = frozenset({"cli", "batch", "mcp"})


@record
class DebateRequest:
    """The options of one debate as given, before ``request.build_config`` checks them
    together. Every field is an option; its metadata says where and how it is offered."""

    topic: str = option(
        help=f"What to debate: a short question, under {MAX_TOPIC_CHARS} characters (e.g. "
        "'JWT or server sessions for our API?'); put the details in context files.",
        surfaces={"batch", "mcp"},  # the command line takes it as its argument
    )
    preset: str | None = option(
        None, help="Opposed roles: a pair or a panel of seats (collab presets), e.g. "
        "security-vs-performance.",
        short="-p", metavar="NAME", panel=ROLES, default_text=DEFAULT_PRESET,
    )  # fmt: skip
    role_a: str | None = option(
        None, help='Custom Role A, "Name: what it values and the evidence it reaches for"; '
        "needs role B, not with a preset.", surfaces=_BUT_CONFIG, metavar="ROLE", panel=ROLES,
    )  # fmt: skip
    role_b: str | None = option(
        None, help="Custom Role B, like role A.", surfaces=_BUT_CONFIG, metavar="ROLE",
        panel=ROLES,
    )  # fmt: skip
    context: tuple[str, ...] = option(
        (), help="A UTF-8 text file both sides read, e.g. a design doc or a diff; several "
        "may be given.", surfaces=_BUT_CONFIG, short="-c", metavar="PATH", panel=ROLES,
        batch_restricted=True,
    )  # fmt: skip
    lang: str = option(
        "auto", help=f"Prompt and summary language: {either(_LANGS)} (auto: from the topic).",
        metavar="LANG", panel=ROLES, choices=_LANGS,
    )  # fmt: skip
    opening: Opening = option(
        "blind", help="blind: both sides open at once, neither seeing the other; "
        "sequential: A, then B answering A.", metavar="MODE", panel=ROLES,
    )  # fmt: skip
    allow_secrets: bool = option(
        False, help="Send context files and a topic even where they look like they hold a "
        "secret.", surfaces={"cli"}, panel=ROLES,  # said per command, knowingly
    )  # fmt: skip
    agent_a: str = option("claude", help="Agent for Role A.", metavar="AGENT", panel=AGENTS)
    agent_b: str = option("claude", help="Agent for Role B.", metavar="AGENT", panel=AGENTS)
    judge_agent: str = option(
        "claude", help="Agent for the Judge; auto: one of another family than the debaters' "
        "when one is installed and logged in, else theirs.", metavar="AGENT", panel=AGENTS,
    )  # fmt: skip
    model_a: str | None = option(None, help="Model for Role A.", metavar="MODEL", panel=AGENTS)
    model_b: str | None = option(None, help="Model for Role B.", metavar="MODEL", panel=AGENTS)
    judge_model: str | None = option(
        None, help="Model for the Judge.", metavar="MODEL", panel=AGENTS
    )
    agent_command: str | None = option(
        None, help="argv template for the command agent, e.g. "
        "'mycli -f {prompt_file} -m {model}'.", surfaces={"cli", "config", "batch"},
        metavar="TEMPLATE", panel=AGENTS, batch_restricted=True,
    )  # fmt: skip
    runner: RunnerKind = option(
        "auto", help=f"Where turns run: {either(RUNNER_KINDS)}.", surfaces={"cli", "config", "mcp"},
        metavar="RUNNER", panel=AGENTS,
    )  # fmt: skip
    agent_setup: AgentSetup = option(
        "lean", help="lean: turns without your hooks, MCP servers, skills or memory (your "
        "provider settings still apply); inherit: with your full agent setup.",
        metavar="SETUP", panel=AGENTS, batch_restricted=True,
    )  # fmt: skip
    tools: ToolSet = option(
        "none", help="none, or read: read-only tools in the working directory (for code "
        "reviews; evidence as path:line).", metavar="TOOLS", panel=AGENTS,
        batch_restricted=True,
    )  # fmt: skip
    depth: str | None = option(
        None, help="How deep to go: quick (the blind round, then the Judge), standard, deep "
        "(more rounds), or auto (a cross-check round, then rounds while they change "
        "something); --rounds is the cap.", metavar="DEPTH", panel=LENGTH,
        choices=DEPTHS, default_text="standard; quick when rounds is 1",
    )  # fmt: skip
    rounds: int | None = option(
        None, help=f"Rounds of one turn per side, {MIN_ROUNDS}–{MAX_ROUNDS} (1: quick); the cap "
        "for the depth.", short="-r", metavar="N", panel=LENGTH, minimum=MIN_ROUNDS,
        maximum=MAX_ROUNDS, default_text="3; 7 for deep and auto",
    )  # fmt: skip
    timeout: float = option(
        120.0, help="Seconds per turn.", metavar="SECONDS", panel=LIMITS, positive=_SECONDS
    )
    judge_timeout: float = option(
        180.0, help="Seconds for the Judge.", metavar="SECONDS", panel=LIMITS,
        positive=_SECONDS,
    )  # fmt: skip
    budget: float = option(
        900.0, help="Seconds for the whole debate.", metavar="SECONDS", panel=LIMITS,
        positive=_SECONDS,
    )  # fmt: skip
    max_chars: int = option(
        1000, help="Prose limit per reply, in characters.", metavar="N", panel=LIMITS,
        minimum=100,
    )  # fmt: skip
    max_cost: float | None = option(
        None, help="Stop before a turn once this many USD are spent.", metavar="USD",
        panel=LIMITS, positive="amount of USD", default_text="none",
    )  # fmt: skip
    context_budget: int = option(
        DEFAULT_CONTEXT_BUDGET, help="Characters of context, all files together.",
        surfaces={"cli", "config", "mcp"}, metavar="CHARS", panel=LIMITS, minimum=1,
    )  # fmt: skip
    keep_temp: bool = option(
        False, help="Keep the per-run temp dir (prompts, raw outputs).", surfaces={"cli"},
        panel=OUTPUT,
    )  # fmt: skip
    # Panels: 2–5 seats (A–E), each with its own role, agent and model.
    role: tuple[str, ...] = option(
        (), help=f'A custom seat, "Name: what it values and the evidence it reaches for"; give '
        f"it {MIN_SEATS}–{MAX_SEATS} times for seats A, B, C… in order; not with a preset or "
        "role A/B.", surfaces=_BUT_CONFIG, metavar="ROLE", panel=ROLES, min_items=MIN_SEATS,
        max_items=MAX_SEATS, item_chars=MAX_ROLE_NAME_CHARS + MAX_ROLE_DESCRIPTION_CHARS + 2,
    )  # fmt: skip
    agents: tuple[str, ...] = option(
        (), help="Agent per seat, comma-separated (e.g. claude,codex,gemini): one per seat, or "
        "one for all; agent A/B override entries A and B; not with agent.", metavar="AGENTS",
        panel=AGENTS, max_items=MAX_SEATS, item_chars=_NAMES_CHARS,
    )  # fmt: skip
    models: tuple[str, ...] = option(
        (), help="Model per seat, comma-separated: one per seat, or one for all; model A/B "
        "override entries A and B.", metavar="MODELS", panel=AGENTS, max_items=MAX_SEATS,
        item_chars=_NAMES_CHARS,
    )  # fmt: skip
    quorum: int | None = option(
        None, help="A panel's issue resolves once this many present seats agree with a reason "
        "and none contests it (default: every present seat but its raiser agrees).",
        metavar="K", panel=LIMITS, minimum=1, maximum=MAX_SEATS - 1, default_text="every seat",
    )  # fmt: skip
    # Decision input. Options and the leaning belong to one decision, not to every debate:
    # not in config.toml; a team's standing constraints may be.
    constraint: tuple[str, ...] = option(
        (), help=f"A constraint every side must respect (up to {MAX_CONSTRAINTS}, "
        f"{MAX_OPTION_CHARS} characters each), e.g. 'no new infrastructure'.", metavar="TEXT",
        panel=DECISION, max_items=MAX_CONSTRAINTS, item_chars=MAX_OPTION_CHARS,
    )  # fmt: skip
    leaning: str | None = option(
        None, help=f"What the person deciding leans towards (up to {MAX_LEANING_CHARS} "
        "characters): shown to the Judge only, never to the sides, and in the reports.",
        surfaces=_BUT_CONFIG, metavar="TEXT", panel=DECISION, default_text="none",
    )  # fmt: skip
    # Keep this field last: below it, ``option`` in this class body names the field, not
    # the function (declare a new option above it).
    option: tuple[str, ...] = option(
        (), help=f"An option the decision is between ({MIN_OPTIONS}–{MAX_OPTIONS}, numbered "
        f"O1–O{MAX_OPTIONS}; up to {MAX_OPTION_CHARS} characters each): every side weighs them "
        "and names the one it favours.", surfaces=_BUT_CONFIG, metavar="TEXT", panel=DECISION,
        min_items=MIN_OPTIONS, max_items=MAX_OPTIONS, item_chars=MAX_OPTION_CHARS,
    )  # fmt: skip


_DECLARED: dict[type[DebateRequest], Mapping[str, Option]] = {}
# Shorthands: one value for both roles and the Judge (a seat's own option wins over it).
_SHORTHANDS: dict[str, dict[str, Any]] = {
    "agent": {
        "sets": ("agent_a", "agent_b", "judge_agent"), "metavar": "AGENT", "panel": AGENTS,
        "help": "Agent for both roles and the Judge: claude, codex, gemini, ollama, llm, or "
        "one defined in config.toml.",
    },
    "model": {
        "sets": ("model_a", "model_b", "judge_model"), "short": "-m", "metavar": "MODEL",
        "panel": AGENTS, "help": "Model for both roles and the Judge (default: the agent's own).",
    },
}  # fmt: skip


def options_of(request: type[DebateRequest]) -> Mapping[str, Option]:
    """The options a request class declares (a test's subclass may add one);
    :data:`OPTIONS` for ``DebateRequest`` itself."""
    if request not in _DECLARED:
        _DECLARED[request] = _declared(request)
    return _DECLARED[request]


def _declared(request: type[DebateRequest]) -> dict[str, Option]:
    hints = get_type_hints(request)
    out: dict[str, Option] = {}
    for f in fields(request):
        kind, optional = _kind(hints[f.name])
        default = None if f.default is MISSING else f.default
        spec = dict(f.metadata["option"])
        if get_origin(hints[f.name]) is Literal:  # its values are its choices
            spec["choices"] = get_args(hints[f.name])
        out[f.name] = Option(f.name, kind, optional, default, sets=(f.name,), **spec)
    # Each shorthand just before the first field it sets (--agent, then --agent-a …).
    order = list(out)
    for name, spec in _SHORTHANDS.items():
        first = out[spec["sets"][0]]
        out[name] = Option(name, first.kind, first.optional, first.default,
                           surfaces=EVERYWHERE, **spec)  # fmt: skip
        order.insert(order.index(first.name), name)
    return {name: out[name] for name in order}


def _kind(hint: object) -> tuple[type, bool]:
    """A field's value type and whether None is allowed: ``float | None`` → (float, True)."""
    if isinstance(hint, UnionType):
        kinds = [a for a in get_args(hint) if a is not NoneType]
        if len(kinds) == 1:
            return _kind(kinds[0])[0], True
    elif get_origin(hint) is tuple and get_args(hint) == (str, ...):
        return tuple, False
    elif get_origin(hint) is Literal and all(isinstance(a, str) for a in get_args(hint)):
        return str, False
    elif hint in (str, int, float, bool):
        return hint, False
    raise TypeError(f"DebateRequest: no rule for an option of type {hint!r}")


OPTIONS = options_of(DebateRequest)


def offered(surface: Surface, options: Mapping[str, Option] = OPTIONS) -> list[Option]:
    """The options ``surface`` offers, in declaration order."""
    return [o for o in options.values() if surface in o.surfaces]
