"""The validated, frozen description of one debate. Built once; stored in state.json."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Literal, get_args

from collab.agents import AGENT_SETUPS, TOOL_SETS, AgentSetup, ToolSet
from collab.fields import Fields
from collab.lang import Lang
from collab.seats import SIDES, Side

RunnerKind = Literal["auto", "tmux", "subprocess"]
Opening = Literal["blind", "sequential"]
OPENINGS: tuple[Opening, ...] = get_args(Opening)
RUNNER_KINDS: tuple[RunnerKind, ...] = get_args(RunnerKind)
LANGS: tuple[Lang, ...] = get_args(Lang)

MIN_ROUNDS = 2
MAX_ROUNDS = 7


@dataclass(frozen=True)
class Role:
    side: Side
    name: str
    description: str


@dataclass(frozen=True)
class ContextFile:
    """A context file as read at validation time; the text is kept so resume is exact."""

    path: str
    text: str


@dataclass(frozen=True)
class AgentChoice:
    agent: str = "claude"
    model: str | None = None
    # For the ``command`` agent: the user's argv template (never run by a shell).
    command: str | None = None


@dataclass(frozen=True)
class DebateConfig:
    topic: str
    role_a: Role
    role_b: Role
    preset: str = "advocate-vs-devils-advocate"
    rounds: int = 3
    contexts: tuple[ContextFile, ...] = ()
    agent_a: AgentChoice = field(default_factory=AgentChoice)
    agent_b: AgentChoice = field(default_factory=AgentChoice)
    judge: AgentChoice = field(default_factory=AgentChoice)
    turn_timeout: float = 120.0
    judge_timeout: float = 180.0
    budget: float = 900.0
    max_chars: int = 1000
    lang: Lang = "en"
    runner: RunnerKind = "auto"
    keep_temp: bool = False
    max_cost: float | None = None
    # Lean, isolated turns by default; "inherit" runs them with the user's own setup.
    agent_setup: AgentSetup = "lean"
    # The debaters' tools: none, or read-only ones in the working directory.
    tools: ToolSet = "none"
    # Round 1: "blind" (both sides at once, neither seeing the other) or "sequential".
    opening: Opening = "blind"

    def role(self, side: Side) -> Role:
        return self.role_a if side == "A" else self.role_b

    def agent(self, side: Side) -> AgentChoice:
        return self.agent_a if side == "A" else self.agent_b

    def to_dict(self) -> dict[str, object]:
        return asdict(self)

    @staticmethod
    def from_fields(f: Fields) -> DebateConfig:
        return DebateConfig(
            topic=f.str("topic"),
            role_a=_role(f.obj("role_a")),
            role_b=_role(f.obj("role_b")),
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
            runner=f.literal("runner", RUNNER_KINDS, "auto"),
            keep_temp=f.bool("keep_temp", False),
            max_cost=f.opt_float("max_cost"),
            agent_setup=f.literal("agent_setup", AGENT_SETUPS, "lean"),
            tools=f.literal("tools", TOOL_SETS, "none"),
            opening=f.literal("opening", OPENINGS, "blind"),
        )


def _role(f: Fields) -> Role:
    return Role(side=f.literal("side", SIDES), name=f.str("name"), description=f.str("description"))


def _agent(f: Fields) -> AgentChoice:
    return AgentChoice(agent=f.str("agent"), model=f.opt_str("model"), command=f.opt_str("command"))


def runner_kind(v: object) -> RunnerKind:
    if v == "tmux":
        return "tmux"
    if v == "subprocess":
        return "subprocess"
    return "auto"
