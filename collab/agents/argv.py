"""A turn's argv and environment for an agent: its setup (lean or the user's own), its
tools, the placeholders its family expands per turn; user text (model, paths) only ever
one whole argument."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from collab.agents.catalogue import PLACEHOLDERS
from collab.agents.spec import AgentSetup, AgentSpec, ToolSet
from collab.errors import UsageError


def build_argv(
    spec: AgentSpec,
    binary: str,
    model: str | None,
    prompt_file: Path,
    *,
    setup: AgentSetup = "lean",
    tools: ToolSet = "none",
    timeout: float = 120.0,
    env: Mapping[str, str] | None = None,
) -> list[str]:
    """The argv list; user text (model, path) only ever becomes one whole argument.
    ``env`` is the environment the agent runs with (default: ours)."""
    if spec.needs_model and not model:
        raise UsageError(f"agent '{spec.name}' needs a model: pass --model")
    tokens = list(spec.argv[1:])
    tokens += spec.lean_argv if setup == "lean" else spec.inherit_argv
    tokens += spec.no_tools_argv if tools == "none" else spec.read_tools_argv
    if model and spec.model_argv and "{model}" not in " ".join(tokens):
        tokens += list(spec.model_argv)
    out = [binary]
    for tok in tokens:
        if "{model}" in tok and not model:
            continue
        expand = PLACEHOLDERS.get(tok)
        if expand is not None:
            out += expand(setup, timeout, os.environ if env is None else env)
            continue
        out.append(tok.replace("{prompt_file}", str(prompt_file)).replace("{model}", model or ""))
    return out


def build_env(spec: AgentSpec, base: Mapping[str, str]) -> dict[str, str]:
    env = {k: v for k, v in base.items() if k not in spec.env_unset}
    env.update(dict(spec.env_set))
    return env
