"""The validated, frozen description of one debate. Built once; stored in state.json."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Literal

from collab.lang import Lang
from collab.ledger import Side

RunnerKind = Literal["auto", "tmux", "subprocess"]

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

    def role(self, side: Side) -> Role:
        return self.role_a if side == "A" else self.role_b

    def agent(self, side: Side) -> AgentChoice:
        return self.agent_a if side == "A" else self.agent_b

    def to_dict(self) -> dict[str, object]:
        return asdict(self)

    @staticmethod
    def from_dict(data: dict[str, object]) -> DebateConfig:
        d = dict(data)

        def role(v: object) -> Role:
            assert isinstance(v, dict)
            return Role(side=v["side"], name=str(v["name"]), description=str(v["description"]))

        def agent(v: object) -> AgentChoice:
            assert isinstance(v, dict)
            model, command = v.get("model"), v.get("command")
            return AgentChoice(
                agent=str(v["agent"]),
                model=None if model is None else str(model),
                command=None if command is None else str(command),
            )

        contexts = d.get("contexts") or []
        assert isinstance(contexts, list)
        max_cost = d.get("max_cost")
        return DebateConfig(
            topic=str(d["topic"]),
            role_a=role(d["role_a"]),
            role_b=role(d["role_b"]),
            preset=str(d.get("preset", "custom")),
            rounds=int(str(d["rounds"])),
            contexts=tuple(ContextFile(path=str(c["path"]), text=str(c["text"])) for c in contexts),
            agent_a=agent(d["agent_a"]),
            agent_b=agent(d["agent_b"]),
            judge=agent(d["judge"]),
            turn_timeout=float(str(d["turn_timeout"])),
            judge_timeout=float(str(d["judge_timeout"])),
            budget=float(str(d["budget"])),
            max_chars=int(str(d["max_chars"])),
            lang="ja" if d.get("lang") == "ja" else "en",
            runner=runner_kind(d.get("runner")),
            keep_temp=bool(d.get("keep_temp", False)),
            max_cost=None if max_cost is None else float(str(max_cost)),
        )


def runner_kind(v: object) -> RunnerKind:
    if v == "tmux":
        return "tmux"
    if v == "subprocess":
        return "subprocess"
    return "auto"
