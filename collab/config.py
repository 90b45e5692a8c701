"""The validated, frozen description of one debate. Built once; stored in state.json.
Its defaults are the options' (``collab.options``)."""

from __future__ import annotations

from dataclasses import asdict, field
from typing import get_args

from collab.agents import AGENT_SETUPS, TOOL_SETS, AgentSetup, ToolSet
from collab.fields import Fields
from collab.lang import Lang
from collab.options import (
    DEFAULT_ROUNDS,
    DEPTHS,
    OPENINGS,
    RUNNER_KINDS,
    DebateRequest,
    Depth,
    Opening,
    RunnerKind,
)
from collab.records import record
from collab.seats import SEATS, TURN_ORDERS, Seat, Side, TurnOrder, seat_index

LANGS: tuple[Lang, ...] = get_args(Lang)


@record
class Role:
    side: Side
    name: str
    description: str


@record
class ContextFile:
    """A context file as read at validation time; the text is kept so resume is exact."""

    path: str
    text: str


@record
class AgentChoice:
    agent: str = "claude"
    model: str | None = None
    # For the ``command`` agent: the user's argv template (never run by a shell).
    command: str | None = None


@record
class DebateConfig:
    topic: str
    role_a: Role
    role_b: Role
    preset: str = "advocate-vs-devils-advocate"
    rounds: int = DEFAULT_ROUNDS["standard"]
    contexts: tuple[ContextFile, ...] = ()
    agent_a: AgentChoice = field(default_factory=AgentChoice)
    agent_b: AgentChoice = field(default_factory=AgentChoice)
    judge: AgentChoice = field(default_factory=AgentChoice)
    turn_timeout: float = DebateRequest.timeout
    judge_timeout: float = DebateRequest.judge_timeout
    budget: float = DebateRequest.budget
    max_chars: int = DebateRequest.max_chars
    lang: Lang = "en"
    runner: RunnerKind = DebateRequest.runner
    keep_temp: bool = DebateRequest.keep_temp
    max_cost: float | None = DebateRequest.max_cost
    # Lean, isolated turns by default; "inherit" runs them with the user's own setup.
    agent_setup: AgentSetup = DebateRequest.agent_setup
    # The debaters' tools: none, or read-only ones in the working directory.
    tools: ToolSet = DebateRequest.tools
    # Round 1: "blind" (both sides at once, neither seeing the other) or "sequential".
    opening: Opening = DebateRequest.opening
    # How deep the run goes (quick, standard, deep, auto); ``rounds`` is its cap.
    depth: Depth = "standard"
    # Decision input: the options (O1…) and constraints every seat weighs; the decider's
    # leaning, shown to the Judge only.
    options: tuple[str, ...] = ()
    constraints: tuple[str, ...] = ()
    leaning: str | None = None
    # A panel's seats after the first two (C, D, E), with their agents: ``roles`` and
    # ``agents`` give every seat in order, and every seat is read through them.
    more_roles: tuple[Role, ...] = ()
    more_agents: tuple[AgentChoice, ...] = ()
    # --quorum K: an issue resolves once K present seats agree with a reason and no
    # present seat contests it (None: every present seat but its raiser must agree).
    quorum: int | None = None
    # How rounds after the first are ordered (collab.seats.round_order).
    turn_order: TurnOrder = "rotating"

    @property
    def roles(self) -> tuple[Role, ...]:
        return (self.role_a, self.role_b, *self.more_roles)

    @property
    def agents(self) -> tuple[AgentChoice, ...]:
        return (self.agent_a, self.agent_b, *self.more_agents)

    @property
    def seats(self) -> tuple[Seat, ...]:
        return SEATS[: 2 + len(self.more_roles)]  # len(self.roles), without making them

    def role(self, side: Side) -> Role:
        return self.roles[seat_index(side)]

    def agent(self, side: Side) -> AgentChoice:
        return self.agents[seat_index(side)]

    def to_dict(self) -> dict[str, object]:
        return asdict(self)

    @staticmethod
    def from_fields(f: Fields) -> DebateConfig:
        return DebateConfig(
            topic=f.str("topic"),
            role_a=_role(f.obj("role_a"), SEATS[:2]),
            role_b=_role(f.obj("role_b"), SEATS[:2]),
            preset=f.str("preset", "custom"),
            rounds=f.int("rounds"),
            contexts=tuple(ContextFile(c.str("path"), c.str("text")) for c in f.items("contexts")),
            agent_a=_agent(f.obj("agent_a")),
            agent_b=_agent(f.obj("agent_b")),
            judge=_agent(f.obj("judge")),
            turn_timeout=f.float("turn_timeout"),
            judge_timeout=f.float("judge_timeout"),
            budget=f.float("budget"),
            max_chars=f.int("max_chars"),
            lang=f.literal("lang", LANGS, "en"),
            runner=f.literal("runner", RUNNER_KINDS, DebateRequest.runner),
            keep_temp=f.bool("keep_temp", DebateRequest.keep_temp),
            max_cost=f.opt_float("max_cost"),
            agent_setup=f.literal("agent_setup", AGENT_SETUPS, DebateRequest.agent_setup),
            tools=f.literal("tools", TOOL_SETS, DebateRequest.tools),
            opening=f.literal("opening", OPENINGS, DebateRequest.opening),
            depth=f.literal("depth", DEPTHS, "standard"),
            options=tuple(f.strs("options")),
            constraints=tuple(f.strs("constraints")),
            leaning=f.opt_str("leaning"),
            more_roles=tuple(_role(r, SEATS) for r in f.items("more_roles")),
            more_agents=tuple(_agent(a) for a in f.items("more_agents")),
            quorum=f.opt_int("quorum"),
            turn_order=f.literal("turn_order", TURN_ORDERS, "rotating"),
        )


def _role(f: Fields, seats: tuple[Seat, ...]) -> Role:
    return Role(side=f.literal("side", seats), name=f.str("name"), description=f.str("description"))


def _agent(f: Fields) -> AgentChoice:
    return AgentChoice(agent=f.str("agent"), model=f.opt_str("model"), command=f.opt_str("command"))
