"""Which agents there are: the built-ins plus ``[agents.NAME]`` from config.toml, the
``command`` agent from a user's argv template, and where each one's binary is."""

from __future__ import annotations

import os
import shlex
import shutil
from collections.abc import Mapping
from pathlib import Path

from collab.agents.builtin import BUILTIN
from collab.agents.spec import AgentSpec, PromptVia
from collab.errors import PrerequisiteError, UsageError
from collab.paths import config_table


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
