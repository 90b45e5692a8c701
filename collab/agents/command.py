"""Agents the user defines, as data: ``[agents.NAME]`` tables in config.toml and the
``command`` agent's argv template (``--agent-command``). Their stdout is read by a
decoder a user may name (``Decoder.user_defined``): ``text`` unless they say otherwise."""

from __future__ import annotations

import shlex
from collections.abc import Collection
from pathlib import Path

from collab.agents.spec import AgentSpec, PromptVia
from collab.errors import UsageError


def spec_from_toml(path: Path, name: str, raw: object, outputs: Collection[str]) -> AgentSpec:
    """One ``[agents.NAME]`` table; ``outputs``: the decoder kinds a user may name."""
    where = f"{path}: [agents.{name}]"
    if not isinstance(raw, dict):
        raise UsageError(f"{where} must be a table")
    argv = raw.get("argv")
    if not _str_list(argv) or not argv:
        raise UsageError(f"{where}: argv must be a non-empty list of strings")
    model_argv = raw.get("model_argv", [])
    if not _str_list(model_argv):
        raise UsageError(f"{where}: model_argv must be a list of strings")
    _model_whole(where, [*argv, *model_argv])
    prompt = raw.get("prompt", "file" if "{prompt_file}" in argv else "stdin")
    if prompt not in ("stdin", "file"):
        raise UsageError(f"{where}: prompt must be 'stdin' or 'file'")
    if prompt == "file" and "{prompt_file}" not in argv:
        raise UsageError(f"{where}: prompt = 'file' needs a '{{prompt_file}}' item in argv")
    output = raw.get("output", "text")
    if output not in outputs:
        kinds = " or ".join(f"'{k}'" for k in sorted(outputs))
        raise UsageError(f"{where}: output must be {kinds}")
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
        output=str(output),
        env_unset=tuple(unset),
        env_set=tuple(sorted(env.items())),
        needs_model=bool(raw.get("needs_model", False)),
        install_hint=str(raw.get("install_hint", "")),
    )


def _model_whole(where: str, tokens: list[str]) -> None:
    """A model name is only ever an argv item of its own: inside a larger token (a
    ``sh -c`` string, ``--model={model}``) a caller's model could become shell code or
    another option."""
    for tok in tokens:
        if "{model}" in tok and tok != "{model}":
            raise UsageError(
                f"{where}: {tok!r} puts {{model}} inside a larger argument; make it an item "
                'of its own, e.g. model_argv = ["--model", "{model}"] instead of '
                '"--model={model}", and never inside a sh -c string'
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
    _model_whole("--agent-command", list(argv))
    prompt: PromptVia = "file" if any("{prompt_file}" in a for a in argv) else "stdin"
    return AgentSpec(name="command", argv=argv, prompt=prompt)
