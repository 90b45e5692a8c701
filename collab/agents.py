"""Agents are data: how to call a CLI and how the prompt goes in (the catalogue).

Built-in agents live in ``BUILTIN``; ``$COLLAB_HOME/config.toml`` may add more under
``[agents.NAME]`` (see README). Nothing here runs a process (the runners do), and
what a reply means is ``collab.replies``.
"""

from __future__ import annotations

import os
import shlex
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from collab.errors import PrerequisiteError, UsageError
from collab.paths import config_table

PromptVia = Literal["stdin", "file"]
OutputKind = Literal["claude-json", "text"]

# Variables that make a nested `claude -p` think it runs inside another Claude Code.
CLAUDE_NESTING_VARS = ("CLAUDECODE", "CLAUDE_CODE_ENTRYPOINT")
CLAUDE_LOGIN_HINT = "run `claude` once and log in (/login), or set ANTHROPIC_API_KEY"


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

    @property
    def binary(self) -> str:
        return self.argv[0]


BUILTIN: dict[str, AgentSpec] = {
    "claude": AgentSpec(
        name="claude",
        argv=("claude", "-p", "--output-format", "json", "--no-session-persistence"),
        model_argv=("--model", "{model}"),
        output="claude-json",
        env_unset=CLAUDE_NESTING_VARS,
        install_hint="npm install -g @anthropic-ai/claude-code, then run `claude` once to log in",
        login_failures=("Not logged in",),
        login_hint=CLAUDE_LOGIN_HINT,
    ),
    # `codex exec` prints only the final message on stdout (banner, echo of the prompt,
    # progress and errors go to stderr); `-` takes the prompt from stdin. Read-only
    # sandbox: no extra tool permissions; --ephemeral: no session files per turn.
    "codex": AgentSpec(
        name="codex",
        argv=(
            "codex",
            "exec",
            "--skip-git-repo-check",
            "--ephemeral",
            "--sandbox",
            "read-only",
            "--color",
            "never",
            "-",
        ),
        model_argv=("-m", "{model}"),
        install_hint="npm install -g @openai/codex",
    ),
    # `-p ""` forces headless mode and takes the whole prompt from stdin (stdin comes
    # first, then the empty -p text); `-o text` overrides a settings.json output format.
    # No relaunch: one node process instead of two (~0.4 s less a turn, and SIGTERM
    # reaches the process that does the work; the relauncher ignores it).
    "gemini": AgentSpec(
        name="gemini",
        argv=("gemini", "-p", "", "-o", "text"),
        model_argv=("-m", "{model}"),
        env_set=(("GEMINI_CLI_NO_RELAUNCH", "true"),),
        install_hint="npm install -g @google/gemini-cli",
        # A broken stream still exits 0 with the partial text on stdout.
        stderr_failures=("Model stream ended without a finish reason",),
    ),
    "ollama": AgentSpec(
        name="ollama",
        argv=("ollama", "run", "{model}"),
        needs_model=True,
        install_hint="install ollama and pull a model (ollama pull llama3.2)",
    ),
    "llm": AgentSpec(
        name="llm",
        argv=("llm", "prompt", "--no-log"),
        model_argv=("-m", "{model}"),
        install_hint="pip install llm (or pip install 'collab[local]' for an offline model)",
    ),
}


def load_agents(config_path: Path | None = None) -> dict[str, AgentSpec]:
    """Built-ins plus ``[agents.NAME]`` tables from the user's config.toml."""
    agents = dict(BUILTIN)
    path, table = config_table("agents", config_path)
    for name, raw in table.items():
        agents[name] = _spec_from_toml(path, name, raw)
    return agents


def _spec_from_toml(path: Path, name: str, raw: object) -> AgentSpec:
    where = f"{path}: [agents.{name}]"
    if not isinstance(raw, dict):
        raise UsageError(f"{where} must be a table")
    argv = raw.get("argv")
    if not _str_list(argv) or not argv:
        raise UsageError(f"{where}: argv must be a non-empty list of strings")
    model_argv = raw.get("model_argv", [])
    if not _str_list(model_argv):
        raise UsageError(f"{where}: model_argv must be a list of strings")
    prompt = raw.get("prompt", "file" if "{prompt_file}" in argv else "stdin")
    if prompt not in ("stdin", "file"):
        raise UsageError(f"{where}: prompt must be 'stdin' or 'file'")
    if prompt == "file" and "{prompt_file}" not in argv:
        raise UsageError(f"{where}: prompt = 'file' needs a '{{prompt_file}}' item in argv")
    output = raw.get("output", "text")
    if output not in ("claude-json", "text"):
        raise UsageError(f"{where}: output must be 'claude-json' or 'text'")
    env = raw.get("env", {})
    if not isinstance(env, dict) or not all(isinstance(v, str) for v in env.values()):
        raise UsageError(f"{where}: env must be a table of strings")
    unset = raw.get("env_unset", [])
    if not _str_list(unset):
        raise UsageError(f"{where}: env_unset must be a list of strings")
    return AgentSpec(
        name=name,
        argv=tuple(argv),
        model_argv=tuple(model_argv),
        prompt=prompt,
        output=output,
        env_unset=tuple(unset),
        env_set=tuple(sorted(env.items())),
        needs_model=bool(raw.get("needs_model", False)),
        install_hint=str(raw.get("install_hint", "")),
    )


def _str_list(v: object) -> bool:
    return isinstance(v, list) and all(isinstance(x, str) for x in v)


def command_spec(template: str) -> AgentSpec:
    """The ``command`` agent: a user argv template, split like a shell would, never run by one."""
    try:
        argv = tuple(shlex.split(template))
    except ValueError as exc:
        raise UsageError(f"--agent-command: {exc}") from None
    if not argv:
        raise UsageError("--agent-command is empty")
    prompt: PromptVia = "file" if any("{prompt_file}" in a for a in argv) else "stdin"
    return AgentSpec(name="command", argv=argv, prompt=prompt)


def spec_for(agent: str, command: str | None, agents: Mapping[str, AgentSpec]) -> AgentSpec:
    """The spec of one seat: a named agent, or the user's ``command`` template."""
    if agent == "command":
        if not command:
            raise UsageError("the command agent needs --agent-command")
        return command_spec(command)
    return get_agent(agent, agents)


def get_agent(name: str, agents: Mapping[str, AgentSpec]) -> AgentSpec:
    try:
        return agents[name]
    except KeyError:
        valid = ", ".join(sorted(agents))
        raise UsageError(f"unknown agent '{name}'; choose one of: {valid}") from None


def resolve_binary(spec: AgentSpec, path: str | None = None) -> str:
    """Absolute path of the agent's executable, or a PrerequisiteError saying how to get it."""
    override = os.environ.get(f"COLLAB_{spec.name.upper().replace('-', '_')}_BIN")
    candidate = override or spec.binary
    found = shutil.which(candidate, path=path)
    if not found:
        hint = spec.install_hint or "install it or fix PATH"
        raise PrerequisiteError(f"agent CLI '{candidate}' not found on PATH", hint=hint)
    return os.path.abspath(found)


def build_argv(spec: AgentSpec, binary: str, model: str | None, prompt_file: Path) -> list[str]:
    """The argv list; user text (model, path) only ever becomes one whole argument."""
    if spec.needs_model and not model:
        raise UsageError(f"agent '{spec.name}' needs a model: pass --model")
    tokens = list(spec.argv[1:])
    if model and spec.model_argv and "{model}" not in " ".join(tokens):
        tokens += list(spec.model_argv)
    out = [binary]
    for tok in tokens:
        if "{model}" in tok and not model:
            continue
        out.append(tok.replace("{prompt_file}", str(prompt_file)).replace("{model}", model or ""))
    return out


def build_env(spec: AgentSpec, base: Mapping[str, str]) -> dict[str, str]:
    env = {k: v for k, v in base.items() if k not in spec.env_unset}
    env.update(dict(spec.env_set))
    return env
