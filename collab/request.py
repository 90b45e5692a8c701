"""User input to a debate (the command line, config.toml defaults, a batch entry, MCP
arguments) checked and turned into a DebateConfig: ``request_from`` makes a request of
any surface's mapping, ``build_config`` checks it as a whole. Every problem is one
UsageError line naming the option as its surface spells it; nothing is started."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TypeVar

from collab import presets
from collab.agents import command_spec, load_agents
from collab.agents.catalogue import reports_cost, spec_for
from collab.config import AgentChoice, ContextFile, DebateConfig, Role
from collab.errors import InputRefused, UsageError
from collab.judge.pick import AUTO, pick_judge
from collab.lang import Lang, resolve_lang
from collab.options import (
    DEFAULT_CONTEXT_BUDGET,
    DEFAULT_ROUNDS,
    DEPTHS,
    MAX_CONTEXT_FILES,
    MAX_LEANING_CHARS,
    MAX_TOPIC_CHARS,
    DebateRequest,
    Depth,
    Option,
    Surface,
    either,
    offered,
    options_of,
    spell,
)
from collab.prices import load_prices, price_for
from collab.seats import MAX_SEATS, MIN_SEATS, SEATS, Seat, seat_list
from collab.secret_scan import ensure_no_secrets
from collab.suggest import did_you_mean

R = TypeVar("R", bound=DebateRequest)

MAX_NAME_CHARS = 200  # an agent or model name
_BINARY_SNIFF = 8192


def validate_topic(topic: str, surface: Surface = "cli") -> str:
    """The topic, stripped; messages name the context option as ``surface`` spells it."""
    text = topic.strip()
    if not text:
        example = 'collab debate "JWT vs sessions"' if surface == "cli" else '"JWT vs sessions"'
        raise UsageError(f"the topic is empty: say what to debate, e.g. {example}")
    if "\0" in text:
        raise UsageError("the topic contains a NUL byte")
    if len(text) > MAX_TOPIC_CHARS:
        where = (
            "a --context file"
            if surface == "cli"
            else f"a file named in {spell('context', surface)}"
        )
        raise UsageError(
            f"the topic is {len(text)} characters; keep it under {MAX_TOPIC_CHARS} "
            f"and put the details in {where}"
        )
    return text


def validate_name(option: str, name: str) -> str:
    """An agent or model name: printable, not an option (no leading ``-``), bounded. It
    becomes one argv item of an agent's command line, never more."""
    if not name or len(name) > MAX_NAME_CHARS:
        raise UsageError(f"{option} must be 1–{MAX_NAME_CHARS} characters, got {len(name)}")
    if not name.isprintable():
        raise UsageError(f"{option} {name!r} holds a control or invisible character")
    if name.startswith("-"):
        raise UsageError(f"{option} {name!r} starts with '-': it would read as an option")
    return name


def load_context(
    path_text: str,
    budget: int = DEFAULT_CONTEXT_BUDGET,
    raise_it: str = "raise it with --context-budget",
) -> ContextFile:
    """One context file, its size checked before it is read (a character is at most four
    bytes of UTF-8: a file over ``4 * budget`` bytes cannot fit), then read no further."""
    path = Path(path_text).expanduser()
    if not path.exists():
        raise UsageError(f"context file not found: {path_text}")
    if path.is_dir():
        raise UsageError(f"context path is a directory, not a file: {path_text}")
    if not path.is_file():
        raise UsageError(f"context path is not a regular file: {path_text}")
    limit = 4 * budget
    try:
        size = path.stat().st_size
        if size > limit:
            raise _over_budget(path_text, f"{size:,} bytes", budget, raise_it)
        with path.open("rb") as fh:
            data = fh.read(limit + 1)
    except OSError as exc:
        raise UsageError(f"cannot read context file {path_text}: {exc.strerror}") from None
    if len(data) > limit:  # it grew since the stat
        raise _over_budget(path_text, f"over {limit:,} bytes", budget, raise_it)
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
            gone = not path.is_file()
            same = not gone and _same_text(path, c.text)
        except (OSError, UnicodeDecodeError):
            gone, same = True, False
        if same:
            continue
        what = "is gone (or unreadable from here)" if gone else "changed on disk"
        notes.append(
            f"context file {c.path} {what} since the run started; the run goes on with the "
            "text saved when it started (start a new debate to use the file as it is now)"
        )
    return notes


def _same_text(path: Path, text: str) -> bool:
    """Does the file still hold ``text``? A file of another size is not even read."""
    data = text.encode("utf-8")
    if path.stat().st_size != len(data):
        return False
    with path.open("rb") as fh:
        return fh.read(len(data) + 1) == data


def _over_budget(path: str, size: str, budget: int, raise_it: str) -> InputRefused:
    return InputRefused(
        f"context file {path} is {size}, over the context budget of {budget:,} characters "
        f"({raise_it} or pass an excerpt)",
        refused="context-budget",
    )


def load_contexts(
    paths: tuple[str, ...], budget: int, surface: Surface = "cli"
) -> tuple[ContextFile, ...]:
    raise_it = f"raise it with {spell('context_budget', surface)}"
    if len(paths) > MAX_CONTEXT_FILES:
        raise UsageError(
            f"{len(paths)} context files; at most {MAX_CONTEXT_FILES} per debate (pass the "
            "parts that matter, or join excerpts into fewer files)"
        )
    files = tuple(load_context(p, budget, raise_it) for p in paths)
    total = 0
    for f in files:
        size = len(f.text)
        if size > budget:
            raise _over_budget(f.path, f"{size:,} characters", budget, raise_it)
        total += size
    if total > budget:
        raise InputRefused(
            f"context files total {total:,} characters, over the context budget of {budget:,} "
            f"({raise_it} or pass fewer files)",
            refused="context-budget",
        )
    return files


def build_config(
    req: DebateRequest, known_agents: Collection[str], surface: Surface = "cli"
) -> DebateConfig:
    """Validate everything up front: a bad option never starts a pane or writes a file.
    Messages name an option the way ``surface`` spells it."""
    topic = validate_topic(req.topic, surface)
    # Names first: a name's own check says what is wrong with it (a control character,
    # a leading '-'), before the list's count and length checks.
    for field in ("agent_a", "agent_b", "judge_agent", "model_a", "model_b", "judge_model"):
        name = getattr(req, field)
        if name is not None:
            validate_name(spell(field, surface), name)
    for field in ("agents", "models"):
        for name in getattr(req, field):
            if isinstance(name, str):
                validate_name(spell(field, surface), name)
    for opt in options_of(type(req)).values():
        if opt.sets == (opt.name,):
            check_value(opt, getattr(req, opt.name), opt.spelled(surface))
    lang = resolve_lang(req.lang, topic)
    roles = seat_roles(req, lang, surface)
    choices = seat_agents(req, len(roles), surface)
    judge_agent = req.judge_agent
    if judge_agent == AUTO:
        judge_agent = pick_judge(tuple(c[0] for c in choices), known_agents)
    seats = (*(c[0] for c in choices), judge_agent)
    for name in seats:
        if name not in known_agents and name != "command":
            valid = ", ".join(sorted([*known_agents, "command"]))
            hint = did_you_mean(name, [*known_agents, "command"], f"choose one of: {valid}")
            raise UsageError(f"unknown agent '{name}'; {hint}")
    command = None
    if "command" in seats:
        if not req.agent_command:
            flag = spell("agent_command", surface)
            raise UsageError(
                f"the command agent needs {flag}, e.g. {flag} 'mycli --prompt-file {{prompt_file}}'"
            )
        command_spec(req.agent_command)  # validates the template
        command = req.agent_command
    if req.max_cost is not None:
        seats_models = (*choices, (judge_agent, req.judge_model))
        missing = unpriced(seats_models, command)
        if missing:
            raise UsageError(
                f"{spell('max_cost', surface)} cannot bind {', '.join(missing)}: it reports no "
                "cost and has no price; add one to config.toml, e.g. [prices] "
                f'"{missing[0]}" = [input, output] (USD per million tokens; 0 for a local '
                "model), or leave it off"
            )
    # seat_roles read the preset (an unknown one is an error there), and a preset's key
    # is its name: the presets are not read again.
    preset_key = "custom" if req.role or req.role_a is not None else (
        req.preset or presets.DEFAULT_PRESET
    )  # fmt: skip
    if req.quorum is not None and req.quorum > len(roles) - 1:
        raise UsageError(
            f"{spell('quorum', surface)} {req.quorum} is more than the {len(roles) - 1} seats "
            f"that can agree with a point in a debate of {len(roles)} seats"
        )
    contexts = load_contexts(tuple(req.context), req.context_budget, surface)
    options, constraints, leaning = decision_texts(req, surface)
    decision = [(spell("option", surface), o) for o in options]
    decision += [(spell("constraint", surface), c) for c in constraints]
    decision += [(spell("leaning", surface), leaning)] if leaning else []
    # Everything below goes to a model provider: nothing that looks like a secret leaves.
    ensure_no_secrets(
        topic,
        [(c.path, c.text) for c in contexts],
        others=([(flag, r.description) for flag, r in roles] if preset_key == "custom" else [])
        + decision,
        allow=req.allow_secrets,
        remedy="command-line" if surface == "mcp" else "flag",  # (batch's own line takes it)
    )  # fmt: skip
    depth, rounds = depth_and_rounds(req, surface)
    all_roles = [r for _, r in roles]
    agents = [_choice(agent, model, command) for agent, model in choices]
    return DebateConfig(
        topic=topic,
        role_a=all_roles[0],
        role_b=all_roles[1],
        more_roles=tuple(all_roles[2:]),
        more_agents=tuple(agents[2:]),
        quorum=req.quorum,
        preset=preset_key,
        rounds=rounds,
        depth=depth,
        contexts=contexts,
        agent_a=agents[0],
        agent_b=agents[1],
        judge=_choice(judge_agent, req.judge_model, command),
        turn_timeout=req.timeout,
        judge_timeout=req.judge_timeout,
        budget=req.budget,
        max_chars=req.max_chars,
        lang=lang,
        runner=req.runner,
        keep_temp=req.keep_temp,
        max_cost=req.max_cost,
        agent_setup=req.agent_setup,
        tools=req.tools,
        opening=req.opening,
        options=options,
        constraints=constraints,
        leaning=leaning,
    )


def seat_roles(req: DebateRequest, lang: Lang, surface: Surface) -> list[tuple[str, Role]]:
    """Every seat's role in seat order, with the option that named it: ``role`` (2–5
    times), ``role_a``/``role_b``, or the preset's."""
    role_a, role_b = spell("role_a", surface), spell("role_b", surface)
    preset_flag, role_flag = spell("preset", surface), spell("role", surface)
    if req.role and (req.role_a is not None or req.role_b is not None):
        raise UsageError(f"use either {role_flag} or {role_a}/{role_b}, not both")
    if req.role:
        if req.preset is not None:
            raise UsageError(f"use either {preset_flag} or {role_flag}, not both")
        if not MIN_SEATS <= len(req.role) <= MAX_SEATS:
            raise UsageError(
                f"{role_flag} was given {len(req.role)} time(s); a debate has "
                f"{MIN_SEATS}–{MAX_SEATS} seats"
            )
        pairs = zip(seat_list(len(req.role)), req.role, strict=True)
        return [(role_flag, _role(presets.parse_custom_role(t, s, role_flag), s)) for s, t in pairs]
    if (req.role_a is None) != (req.role_b is None):
        raise UsageError(f"custom roles need both {role_a} and {role_b}")
    if req.role_a is not None and req.role_b is not None:
        if req.preset is not None:
            raise UsageError(f"use either {preset_flag} or {role_a}/{role_b}, not both")
        ra = presets.parse_custom_role(req.role_a, "A", role_a)
        rb = presets.parse_custom_role(req.role_b, "B", role_b)
        return [(role_a, Role("A", ra.name, ra.description)),
                (role_b, Role("B", rb.name, rb.description))]  # fmt: skip
    preset = presets.get_preset(req.preset or presets.DEFAULT_PRESET)
    texts = presets.roles_for(preset, lang)
    return [(preset_flag, _role(t, s)) for s, t in zip(SEATS, texts, strict=False)]


def _role(text: presets.RoleText, seat: Seat) -> Role:
    return Role(seat, text.name, text.description)


def seat_agents(req: DebateRequest, seats: int, surface: Surface) -> list[tuple[str, str | None]]:
    """(agent, model) of every seat: ``agents``/``models`` (one per seat, or one for all;
    entries A and B are already ``agent_a``/``agent_b`` and ``model_a``/``model_b``)."""
    out: list[tuple[str, str | None]] = []
    for field in ("agents", "models"):
        given: tuple[str, ...] = getattr(req, field)
        if len(given) not in (0, 1, seats):
            raise UsageError(
                f"{spell(field, surface)} has {len(given)} entries for {seats} seats: give one "
                "per seat, or one for all"
            )
    for n, seat in enumerate(seat_list(seats)):
        agent = {"A": req.agent_a, "B": req.agent_b}.get(seat) or _entry(req.agents, n)
        model = req.model_a if seat == "A" else req.model_b if seat == "B" else None
        out.append((agent or DebateRequest.agent_a, model or _entry(req.models, n)))
    return out


def _entry(items: tuple[str, ...], n: int) -> str | None:
    """Entry ``n`` of a per-seat list (the one entry when it is one for all)."""
    if not items:
        return None
    return items[n] if len(items) > 1 else items[0]


def unpriced(seats: Sequence[tuple[str, str | None]], command: str | None = None) -> list[str]:
    """``AGENT:MODEL`` of each seat whose cost nobody knows: the agent reports none and
    the price table has no entry (``max_cost`` could not stop it)."""
    specs = load_agents()
    table = load_prices()
    out: list[str] = []
    for agent, model in seats:
        if agent not in specs and agent != "command":
            continue  # an unknown agent: build_config says so
        spec = spec_for(agent, command, specs)
        key = f"{agent}:{model or 'default'}"
        if not reports_cost(spec) and price_for(agent, model, table) is None and key not in out:
            out.append(key)
    return out


def depth_and_rounds(req: DebateRequest, surface: Surface = "cli") -> tuple[Depth, int]:
    """``--depth`` and ``--rounds`` together: ``--rounds 1`` alone is a quick run, a depth
    alone runs up to its own cap; the combinations that contradict each other are one
    UsageError naming both options."""
    depth_flag, rounds_flag = spell("depth", surface), spell("rounds", surface)
    opening_flag = spell("opening", surface)
    given = req.depth or ("quick" if req.rounds == 1 else "standard")
    depth: Depth = next(d for d in DEPTHS if d == given)  # checked against DEPTHS already
    rounds = DEFAULT_ROUNDS[depth] if req.rounds is None else req.rounds
    if depth == "quick" and rounds != 1:
        raise UsageError(
            f"{depth_flag} quick is one round, got {rounds_flag} {rounds}: leave out "
            f"{rounds_flag} or give 1"
        )
    if depth != "quick" and rounds == 1:
        raise UsageError(
            f"{rounds_flag} 1 is a quick run: use {depth_flag} quick, or {depth_flag} "
            f"{depth} with {rounds_flag} 2 or more"
        )
    if depth == "quick" and req.opening == "sequential":
        raise UsageError(
            f"{depth_flag} quick is the blind round alone: it does not take "
            f"{opening_flag} sequential"
        )
    return depth, rounds


def _choice(agent: str, model: str | None, command: str | None) -> AgentChoice:
    return AgentChoice(agent, model, command if agent == "command" else None)


# What an unknown key is called, by surface.
_NOUN = {"cli": "option", "config": "key", "batch": "key", "mcp": "argument"}
_WANT = {str: "a string", int: "an integer", float: "a number", bool: "true or false"}


def request_from(
    values: Mapping[str, object], surface: Surface, base: R, *, folder: Path | None = None
) -> R:
    """The one way options given as a mapping — the command line's, config.toml
    ``[defaults]``, a batch entry, an MCP tool's arguments — become a request: each key
    one that ``surface`` offers, each value of its declared type and in its range, the rest
    from ``base``. A shorthand (``agent``, ``model``) yields to a seat's own key; roles
    given without a preset drop ``base``'s preset, a preset given without roles drops its
    roles. Relative context paths are taken from ``folder`` when one is given. Messages
    name an option the way ``surface`` spells it."""
    options = options_of(type(base))
    given: dict[str, object] = {}
    for key, value in values.items():
        opt = options.get(key)
        if opt is None or surface not in opt.surfaces:
            noun = _NOUN[surface]
            names = sorted(o.spelled(surface) for o in offered(surface, options))
            hint = did_you_mean(key, names, f"valid {noun}s: {', '.join(names)}")
            raise UsageError(f"unknown {noun} {key!r}; {hint}")
        given[key] = _value(opt, value, surface, folder)
    _names_as_given(given, surface)
    _one_form(given, surface)
    changes: dict[str, object] = {}
    for key in sorted(given, key=lambda k: len(options[k].sets) == 1):  # shorthands first
        for name in options[key].sets:
            changes[name] = given[key]
    # A list per seat: entries A and B unless --agent-a/-b (--model-a/-b) say otherwise;
    # the one-for-all shorthands (--agent, --model) set the list too.
    for plural, one, pair in (("agents", "agent", ("agent_a", "agent_b")),
                              ("models", "model", ("model_a", "model_b"))):  # fmt: skip
        if plural in given:
            items = changes[plural] = split_list(given[plural])
            for n, name in enumerate(pair):
                if name not in given and items:
                    changes[name] = items[n] if len(items) > 1 else items[0]
        elif one in given:
            changes[plural] = () if given[one] is None else (given[one],)
    if "role_a" in changes or "role_b" in changes or "role" in changes:
        changes.setdefault("preset", None)
    if "role" in changes:
        changes.setdefault("role_a", None)
        changes.setdefault("role_b", None)
    elif "role_a" in changes or "role_b" in changes:
        changes.setdefault("role", ())
    elif "preset" in changes:
        changes.setdefault("role_a", None)
        changes.setdefault("role_b", None)
        changes.setdefault("role", ())
    return replace(base, **changes)  # type: ignore[arg-type]


# The keys whose values are agent or model names, alone or as a list.
_NAME_KEYS = ("agent", "agent_a", "agent_b", "judge_agent", "model", "model_a", "model_b",
              "judge_model")  # fmt: skip
_NAME_LISTS = ("agents", "models")


def _names_as_given(given: Mapping[str, object], surface: Surface) -> None:
    """Each agent or model name checked under the key it was given as: ``--model`` sets
    every seat's model, and a bad one is named ``--model``, not the first seat's
    ``--model-a`` that :func:`build_config` would see."""
    for key in _NAME_KEYS:
        value = given.get(key)
        if isinstance(value, str):
            validate_name(spell(key, surface), value)
    for key in _NAME_LISTS:
        if key in given:
            for name in split_list(given[key]):
                validate_name(spell(key, surface), name)


def _one_form(given: Mapping[str, object], surface: Surface) -> None:
    """The forms that say the same thing two ways are one usage error when mixed."""
    for many, few in (("role", ("role_a", "role_b")), ("agents", ("agent",))):
        both = [f for f in few if f in given]
        if many in given and both:
            raise UsageError(
                f"use either {spell(many, surface)} or {spell(both[0], surface)}, not both"
            )


def split_list(value: object) -> tuple[str, ...]:
    """A list option's entries: each item split at commas (``--agents a,b,c``), trimmed."""
    items = [value] if isinstance(value, str) else list(value) if isinstance(value, tuple) else []
    return tuple(part.strip() for item in items for part in str(item).split(",") if part.strip())


def _value(opt: Option, value: object, surface: Surface, folder: Path | None) -> object:
    name = opt.spelled(surface)
    if opt.kind is tuple:  # paths (or texts): one, or a list
        paths = [value] if isinstance(value, str) else value
        texts = opt.item_chars is not None  # texts, not paths
        what = "a string or a list of strings" if texts else "a path or a list of paths"
        if not isinstance(paths, list | tuple) or not all(isinstance(p, str) for p in paths):
            raise UsageError(f"{name} must be {what}, got {_type(value)}")
        if texts:
            check_value(opt, tuple(paths), name)
            return tuple(paths)
        return tuple(p if folder is None else _resolve(p, folder) for p in paths)
    value = coerce_field(opt, value, name)
    check_value(opt, value, name)
    return value


def coerce_field(opt: Option, value: object, name: str) -> object:
    """``value`` (from TOML, JSON or YAML) as the option's declared type: ``true`` is not a
    number, an integer is a float, null only where the option takes None."""
    if value is None:
        if opt.optional:
            return None
    elif isinstance(value, bool):
        if opt.kind is bool:
            return value
    elif opt.kind is float and isinstance(value, int | float):
        return float(value)
    elif isinstance(value, opt.kind):
        return value
    raise UsageError(f"{name} must be {_WANT[opt.kind]}, got {_type(value)}")


def check_value(opt: Option, value: object, name: str) -> None:
    """The option's choices or range, checked where the value came in (``name``: as that
    surface spells the option)."""
    if opt.choices and value is not None and value not in opt.choices:
        hint = did_you_mean(str(value), map(str, opt.choices), "")
        raise UsageError(
            f"{name} must be {either(opt.choices)}, got {value!r}" + (hint and f"; {hint}")
        )
    if isinstance(value, tuple):
        _check_items(opt, value, name)
        return
    if not isinstance(value, int | float) or isinstance(value, bool):
        return
    if opt.positive and not value > 0:
        raise UsageError(f"{name} must be a positive {opt.positive}, got {value:g}")
    low, high = opt.minimum, opt.maximum
    if low is not None and high is not None and not low <= value <= high:
        raise UsageError(f"{name} must be {low}–{high}, got {value}")
    if low is not None and value < low:
        raise UsageError(f"{name} must be at least {low}, got {value}")


def _check_items(opt: Option, items: tuple[object, ...], name: str) -> None:
    """A list of texts (``--option``, ``--constraint``): how many, and each one's length."""
    if not items:
        return
    low, high = opt.min_items, opt.max_items
    if low is not None and len(items) < low:
        raise UsageError(f"{name} takes {low}–{high} items when given, got {len(items)}")
    if high is not None and len(items) > high:
        raise UsageError(f"{name} takes at most {high} items, got {len(items)}")
    if opt.item_chars is None:
        return
    for n, item in enumerate(items, start=1):
        text = item.strip() if isinstance(item, str) else ""
        if not text:
            raise UsageError(f"{name} item {n} is empty")
        if "\0" in text:
            raise UsageError(f"{name} item {n} contains a NUL byte")
        if len(text) > opt.item_chars:
            raise UsageError(
                f"{name} item {n} is {len(text)} characters; keep it under {opt.item_chars}"
            )


def decision_texts(
    req: DebateRequest, surface: Surface
) -> tuple[tuple[str, ...], tuple[str, ...], str | None]:
    """``--option``, ``--constraint`` and ``--leaning`` as kept: stripped, checked (counts,
    lengths, NUL, duplicate options). Secret-scanned with the topic in build_config."""
    options = tuple(o.strip() for o in req.option)
    if len(set(options)) != len(options):
        raise UsageError(f"{spell('option', surface)} names the same option twice")
    leaning = None
    if req.leaning is not None:
        leaning = req.leaning.strip()
        flag = spell("leaning", surface)
        if not leaning:
            raise UsageError(f"{flag} is empty")
        if "\0" in leaning:
            raise UsageError(f"{flag} contains a NUL byte")
        if len(leaning) > MAX_LEANING_CHARS:
            raise UsageError(
                f"{flag} is {len(leaning)} characters; keep it under {MAX_LEANING_CHARS}"
            )
    return options, tuple(c.strip() for c in req.constraint), leaning


def _type(value: object) -> str:
    return "null" if value is None else type(value).__name__


def _resolve(path: str, folder: Path) -> str:
    p = Path(path).expanduser()
    return str(p if p.is_absolute() else folder / p)
