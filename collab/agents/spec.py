"""What an agent is, as data: the argv, how the prompt goes in, how output comes out,
and the flags a turn's setup and tool set add."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

PromptVia = Literal["stdin", "file"]
OutputKind = Literal["claude-json", "codex-json", "gemini-json", "text"]
# Whose setup a turn runs with: "lean" isolates it from the user's hooks, MCP servers,
# skills, plugins and memory (provider settings still apply); "inherit" keeps them.
AgentSetup = Literal["lean", "inherit"]
# Which tools the debaters get: none, or read-only ones in the working directory.
ToolSet = Literal["none", "read"]
AGENT_SETUPS: tuple[AgentSetup, ...] = ("lean", "inherit")
TOOL_SETS: tuple[ToolSet, ...] = ("none", "read")


@dataclass(frozen=True)
class AgentSpec:
    """One agent CLI. ``argv`` tokens may be ``{prompt_file}`` or ``{model}``."""

    name: str
    argv: tuple[str, ...]
    model_argv: tuple[str, ...] = ()
    prompt: PromptVia = "stdin"
    output: OutputKind = "text"
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
    # Added by the turn's setup and tool set (DESIGN §9); ``{settings}`` becomes the
    # CLI's per-turn settings (see ``claude_settings``).
    lean_argv: tuple[str, ...] = ()
    inherit_argv: tuple[str, ...] = ()
    no_tools_argv: tuple[str, ...] = ()
    read_tools_argv: tuple[str, ...] = ()

    @property
    def binary(self) -> str:
        return self.argv[0]
