"""A turn's argv and environment for an agent: its setup (lean or the user's own), its
tools, per-turn settings; user text (model, paths) only ever one whole argument."""

from __future__ import annotations

import json
import os
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path

from collab.agents.builtin import CLAUDE_MAX_RETRIES, CODEX_MCP_OFF
from collab.agents.spec import AgentSetup, AgentSpec, ToolSet
from collab.errors import UsageError


def claude_settings(setup: AgentSetup, timeout: float) -> str:
    """The per-turn ``--settings`` JSON: flag settings outrank the user's settings.json, so
    its env cannot lift the retry bound; lean turns also drop hooks, styles and memory."""
    env = {
        "CLAUDE_CODE_MAX_RETRIES": str(CLAUDE_MAX_RETRIES),
        # Per request: an answer that does not start within the turn is a timeout anyway.
        "API_TIMEOUT_MS": str(max(1000, int(timeout * 1000))),
    }
    settings: dict[str, object] = {"env": env}
    if setup == "lean":
        env["CLAUDE_CODE_DISABLE_CLAUDE_MDS"] = "1"
        env["CLAUDE_CODE_DISABLE_AUTO_MEMORY"] = "1"
        settings["disableAllHooks"] = True
        settings["outputStyle"] = "default"
    return json.dumps(settings, sort_keys=True, separators=(",", ":"))


# An MCP server name codex accepts (and one a dotted -c path can address).
_CODEX_MCP_NAME = re.compile(r"[A-Za-z0-9_-]+")


def codex_mcp_overrides(env: Mapping[str, str], cwd: Path | None = None) -> list[str]:
    """``-c`` overrides that disable every MCP server in the user's codex config files.

    codex merges ``-c mcp_servers={}`` into config.toml's table instead of replacing it,
    so each server is disabled by name. The files read: ``$CODEX_HOME/config.toml`` and
    each ``.codex/config.toml`` from ``cwd`` up (codex loads those only for a trusted
    project). A server that is not defined in a layer codex loads would have no
    transport, and codex refuses such a config, so each override names one: a URL for a
    URL server, else a command — never run, the server is disabled.
    """
    home = env.get("CODEX_HOME") or str(Path(env.get("HOME") or Path.home()) / ".codex")
    files = [Path(home) / "config.toml"]
    here = (cwd or Path.cwd()).resolve()
    files += [d / ".codex" / "config.toml" for d in (here, *here.parents)]
    remote: dict[str, bool] = {}
    for path in files:
        for name, entry in _codex_mcp_servers(path).items():
            if _CODEX_MCP_NAME.fullmatch(name):
                remote[name] = remote.get(name, False) or "url" in entry
    out: list[str] = []
    for name in sorted(remote):
        transport = 'url="http://127.0.0.1:9/"' if remote[name] else 'command="true"'
        out += ["-c", f"mcp_servers.{name}={{enabled=false,{transport}}}"]
    return out


def _codex_mcp_servers(path: Path) -> dict[str, dict[str, object]]:
    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return {}
    servers = doc.get("mcp_servers")
    if not isinstance(servers, dict):
        return {}
    return {k: v for k, v in servers.items() if isinstance(v, dict)}


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
        if tok == "{settings}":
            out.append(claude_settings(setup, timeout))
            continue
        if tok == CODEX_MCP_OFF:
            out += codex_mcp_overrides(os.environ if env is None else env)
            continue
        out.append(tok.replace("{prompt_file}", str(prompt_file)).replace("{model}", model or ""))
    return out


def build_env(spec: AgentSpec, base: Mapping[str, str]) -> dict[str, str]:
    env = {k: v for k, v in base.items() if k not in spec.env_unset}
    env.update(dict(spec.env_set))
    return env
