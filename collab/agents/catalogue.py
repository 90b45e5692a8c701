"""Which agents there are: the built-in families (one module each), the user's
``[agents.NAME]`` from config.toml and the ``command`` agent; the decoder of each
output kind; where each agent's binary is; whether it is logged in.

Adding a family: its module (see CONTRIBUTING.md, "Adding an agent family") and its
entry in ``FAMILIES``.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Mapping
from dataclasses import replace
from functools import cache
from pathlib import Path

from collab.agents import claude, codex, gemini, llm, ollama
from collab.agents.command import command_spec, spec_from_toml
from collab.agents.decoding import AgentReply, Decoder, TextDecoder
from collab.agents.spec import AgentSpec, Family, Placeholder
from collab.errors import PrerequisiteError, UsageError
from collab.paths import config_table
from collab.suggest import did_you_mean
from collab.text import well_formed

# The built-in agents by name, in the order ``--judge-agent auto`` tries them.
FAMILIES: dict[str, Family] = {
    f.spec.name: f for f in (claude.FAMILY, codex.FAMILY, gemini.FAMILY, ollama.FAMILY, llm.FAMILY)
}
BUILTIN: dict[str, AgentSpec] = {name: f.spec for name, f in FAMILIES.items()}
# Each output kind's decoder; an unknown kind reads as text.
_DECODER_CLASSES: list[type[Decoder]] = [TextDecoder, *(f.decoder for f in FAMILIES.values())]
DECODERS: dict[str, type[Decoder]] = {d.kind: d for d in _DECODER_CLASSES}
# The argv placeholders the families expand per turn, whichever spec names them.
PLACEHOLDERS: dict[str, Placeholder] = {
    token: expand for f in FAMILIES.values() for token, expand in f.placeholders.items()
}


# The makers of models by the start of a model's name, for agents that run any model
# (ollama, llm, command, the user's own): "llama3.1:8b" → meta. Longest prefix first.
MODEL_PREFIXES: dict[str, str] = {
    "claude": "anthropic", "anthropic": "anthropic", "gpt": "openai", "chatgpt": "openai",
    "o1": "openai", "o3": "openai", "o4": "openai", "codex": "openai", "openai": "openai",
    "gemini": "google", "gemma": "google", "google": "google", "llama": "meta",
    "codellama": "meta", "mistral": "mistral", "mixtral": "mistral", "codestral": "mistral",
    "qwen": "alibaba", "deepseek": "deepseek", "phi": "microsoft", "grok": "xai",
    "command-r": "cohere", "smollm": "huggingface",
}  # fmt: skip
_LONGEST_FIRST = sorted(MODEL_PREFIXES, key=len, reverse=True)  # sorted once, not per call


UNKNOWN = "unknown:"


@cache  # a few (agent, model) pairs a process; every report asks per seat and per issue
def model_family(agent: str, model: str | None) -> str:
    """The family of models behind a seat: its agent's (claude → anthropic), or, for an
    agent that runs any model, the maker its model's name starts with (the part after the
    last ``/``). An unknown one is a family of its own (``agent:model``), never "the same"
    as another."""
    family = FAMILIES.get(agent)
    if family is not None and family.models is not None:
        return family.models
    name = (model or "").rsplit("/", 1)[-1].strip().lower()
    for prefix in _LONGEST_FIRST:
        if name.startswith(prefix):
            return MODEL_PREFIXES[prefix]
    return f"{UNKNOWN}{agent}:{model or 'default'}"


def decoder_for(
    output: str, limit: int | None = None, stderr_failures: tuple[str, ...] = ()
) -> Decoder:
    """A fresh decoder for an agent spec's ``output`` kind (one per turn: it keeps state)."""
    return DECODERS.get(output, TextDecoder)(limit, stderr_failures)


def reports_cost(spec: AgentSpec) -> bool:
    """Does this agent say what a turn cost (its output format carries it)?"""
    return DECODERS.get(spec.output, TextDecoder).reports_cost


def interpret(spec: AgentSpec, exit_code: int, stdout: str, stderr: str) -> AgentReply:
    """The reply of a finished turn of ``spec``'s agent (its decoder's ``reply``), well
    formed: a lone surrogate its JSON held (``\\ud800``) becomes U+FFFD."""
    decoder = decoder_for(spec.output, stderr_failures=spec.stderr_failures)
    reply = decoder.reply(exit_code, stdout, stderr)
    text, error = well_formed(reply.text), reply.error and well_formed(reply.error)
    if (text, error) == (reply.text, reply.error):
        return reply
    return replace(reply, text=text, error=error)


def stored_login(agent: str, env: Mapping[str, str]) -> str | None:
    """Is an agent CLI logged in? A best guess without spending a token (API keys in the
    environment, cloud-provider switches, the CLI's stored login file): where its login
    was found (e.g. "ANTHROPIC_API_KEY is set"), or None. Each family's module holds its
    check (``_stored_login``). ``collab doctor`` reports it; ``--judge-agent auto`` only
    picks a Judge that is logged in."""
    family = FAMILIES.get(agent)
    if family is None or family.login is None:
        return None
    return family.login(env)


def certainly_logged_out(agent: str, env: Mapping[str, str], platform: str = sys.platform) -> bool:
    """True only when the agent surely has no login, so a run would fail on its first
    call: the claude CLI off macOS (no keychain) with no key, token, cloud switch,
    gateway, stored credentials or settings that could hold one. Anything else is
    "cannot tell" (False): the run starts and its first call finds out."""
    return agent == "claude" and platform != "darwin" and stored_login(agent, env) is None


def load_agents(config_path: Path | None = None) -> dict[str, AgentSpec]:
    """Built-ins plus ``[agents.NAME]`` tables from the user's config.toml."""
    agents = dict(BUILTIN)
    path, table = config_table("agents", config_path)
    outputs = [kind for kind, d in DECODERS.items() if d.user_defined]
    for name, raw in table.items():
        agents[name] = spec_from_toml(path, name, raw, outputs)
    return agents


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
        hint = did_you_mean(name, agents, f"choose one of: {valid}")
        raise UsageError(f"unknown agent '{name}'; {hint}") from None


def resolve_binary(spec: AgentSpec, path: str | None = None) -> str:
    """Absolute path of the agent's executable, or a PrerequisiteError saying how to get it."""
    override = os.environ.get(f"COLLAB_{spec.name.upper().replace('-', '_')}_BIN")
    candidate = override or spec.binary
    found = shutil.which(candidate, path=path)
    if not found:
        hint = spec.install_hint or "install it or fix PATH"
        raise PrerequisiteError(f"agent CLI '{candidate}' not found on PATH", hint=hint)
    return os.path.abspath(found)
