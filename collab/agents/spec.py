"""What an agent is, as data: the argv, how the prompt goes in, how output comes out,
and the flags a turn's setup and tool set add; and a family, what a built-in agent's
module declares for the catalogue."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import field
from typing import Literal

from collab.agents.decoding import Decoder
from collab.records import record

PromptVia = Literal["stdin", "file"]
# Whose setup a turn runs with: "lean" isolates it from the user's hooks, MCP servers,
# skills, plugins and memory (provider settings still apply); "inherit" keeps them.
AgentSetup = Literal["lean", "inherit"]
# Which tools the debaters get: none, or read-only ones in the working directory.
ToolSet = Literal["none", "read"]
AGENT_SETUPS: tuple[AgentSetup, ...] = ("lean", "inherit")
TOOL_SETS: tuple[ToolSet, ...] = ("none", "read")


@record
class AgentSpec:
    """One agent CLI. ``argv`` tokens may be ``{prompt_file}``, ``{model}`` or a
    placeholder a family expands (``Family.placeholders``). ``output`` names the decoder
    of its stdout (``Decoder.kind``, looked up in the catalogue)."""

    name: str
    argv: tuple[str, ...]
    model_argv: tuple[str, ...] = ()
    prompt: PromptVia = "stdin"
    output: str = "text"
    env_unset: tuple[str, ...] = ()
    env_set: tuple[tuple[str, str], ...] = ()
    needs_model: bool = False
    install_hint: str = ""
    version_argv: tuple[str, ...] = ("--version",)
    # stderr lines that mean the reply is broken even though the exit code is 0.
    stderr_failures: tuple[str, ...] = ()
    # Output that means the CLI has no usable login: no retry can mend it.
    login_failures: tuple[str, ...] = ()
    login_hint: str = ""
    # Added by the turn's setup and tool set.
    lean_argv: tuple[str, ...] = ()
    inherit_argv: tuple[str, ...] = ()
    no_tools_argv: tuple[str, ...] = ()
    read_tools_argv: tuple[str, ...] = ()

    @property
    def binary(self) -> str:
        return self.argv[0]


# A placeholder's expansion for one turn: (setup, timeout, the agent's env) -> argv items.
Placeholder = Callable[[AgentSetup, float, Mapping[str, str]], list[str]]
# Where an agent's stored login was found ("ANTHROPIC_API_KEY is set"), or None.
LoginCheck = Callable[[Mapping[str, str]], str | None]


@record
class Family:
    """A built-in agent, as its module declares it for the catalogue."""

    spec: AgentSpec
    decoder: type[Decoder]
    # The family of models behind it (--judge-agent auto picks a Judge of another one);
    # None: no one family (a local model runner), never picked as a Judge.
    models: str | None = None
    # Its stored login, found without spending a token; None: nothing to check.
    login: LoginCheck | None = None
    # argv tokens of its spec expanded per turn (e.g. claude's ``{settings}``).
    placeholders: Mapping[str, Placeholder] = field(default_factory=dict)
