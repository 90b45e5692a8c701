"""Environments that point the real ``codex`` and ``gemini`` CLIs at our fake servers.

``codex_env`` / ``gemini_env`` return only the variables to *set* (an overlay), so
several agents can share one environment (use the same ``home`` for all of them).
``agent_env(*overlays)`` builds a whole environment: ours minus the variables that
would let a CLI reach a real account, plus the overlays.

``plant_codex_setup`` / ``plant_gemini_setup`` add a user's setup on top (MCP servers,
hooks, a skill, an extension, instruction files with marker text): what a lean turn
must keep out. Servers and hooks only touch a file in ``Planted.markers`` when they run.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "CREDENTIAL_VARS",
    "STUB_API_KEY",
    "Planted",
    "agent_env",
    "codex_binary",
    "codex_env",
    "gemini_binary",
    "gemini_env",
    "plant_codex_setup",
    "plant_gemini_setup",
]

STUB_API_KEY = "stub-key-not-secret"

# Never hand these to a CLI under test: each could send it to a real API.
CREDENTIAL_VARS = (
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "CODEX_API_KEY",
    "CODEX_HOME",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "GOOGLE_GEMINI_BASE_URL",
    "GOOGLE_GENAI_USE_VERTEXAI",
    "GOOGLE_GENAI_USE_GCA",
    "GOOGLE_CLOUD_PROJECT",
    "GOOGLE_CLOUD_LOCATION",
    "GOOGLE_APPLICATION_CREDENTIALS",
    "CLOUD_SHELL",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "ANTHROPIC_BASE_URL",
    "CLAUDE_CODE_OAUTH_TOKEN",
    # A proxy could see (or swallow) our 127.0.0.1 traffic.
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "http_proxy",
    "https_proxy",
    "all_proxy",
)

_NO_PROXY = {"NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost"}

# Where the npm packages are installed on the development machine.
_DEV_BIN = Path("/opt/agents/node_modules/.bin")


def _binary(name: str) -> str | None:
    """``COLLAB_<NAME>_BIN``, then PATH, then the dev install; None when absent."""
    override = os.environ.get(f"COLLAB_{name.upper()}_BIN")
    for cand in (override, shutil.which(name), str(_DEV_BIN / name)):
        if cand and os.path.isfile(cand) and os.access(cand, os.X_OK):
            return os.path.abspath(cand)
    return None


def codex_binary() -> str | None:
    return _binary("codex")


def gemini_binary() -> str | None:
    return _binary("gemini")


def codex_env(base_url: str, home: Path, *, max_retries: int = 0) -> dict[str, str]:
    """Write ``home/.codex/config.toml`` with a ``stub`` provider at ``base_url``.

    ``max_retries`` 0 makes codex fail fast on an HTTP error or a broken stream
    (collab retries on its own); codex's defaults retry with backoff.
    """
    codex_home = home / ".codex"
    codex_home.mkdir(parents=True, exist_ok=True)
    url = base_url.rstrip("/") + "/v1"
    (codex_home / "config.toml").write_text(
        "# Written by tests/fakes/agent_envs.py: every call goes to a local fake.\n"
        'model_provider = "stub"\n'
        'model = "gpt-fake"\n'
        'approval_policy = "never"\n'
        'sandbox_mode = "read-only"\n'
        "check_for_update_on_startup = false\n"
        "\n"
        "[model_providers.stub]\n"
        'name = "stub"\n'
        f"base_url = {json.dumps(url)}\n"
        'env_key = "STUB_API_KEY"\n'
        'wire_api = "responses"\n'
        f"request_max_retries = {max_retries}\n"
        f"stream_max_retries = {max_retries}\n"
        "stream_idle_timeout_ms = 60000\n"
        "\n"
        "[analytics]\n"
        "enabled = false\n"
        "\n"
        # Measured with strace: the plugin marketplace sync runs `git ls-remote
        # https://github.com/openai/plugins` and something resolves DNS; with these
        # off the only connection is to 127.0.0.1. The shell snapshot spawns `bash -lc`.
        "[features]\n"
        "plugins = false\n"
        "remote_plugin = false\n"
        "apps = false\n"
        "shell_snapshot = false\n"
        "in_app_updates = false\n"
        "tool_suggest = false\n"
        "skill_mcp_dependency_install = false\n",
        encoding="utf-8",
    )
    return {
        "HOME": str(home),
        "CODEX_HOME": str(codex_home),
        "STUB_API_KEY": STUB_API_KEY,
        **_NO_PROXY,
    }


def gemini_env(base_url: str, home: Path, *, max_attempts: int = 1) -> dict[str, str]:
    """Write ``home/.gemini/settings.json`` (API-key auth, no usage statistics, no
    update checks) and point the CLI at ``base_url``.

    ``max_attempts`` 1 makes a 5xx fail at once; the CLI's default is 10 attempts with
    5-30 s backoff (minutes). ``TMPDIR`` keeps its error reports
    (``gemini-client-error-*.json``) inside ``home``.
    """
    gdir = home / ".gemini"
    gdir.mkdir(parents=True, exist_ok=True)
    tmp = home / "tmp"
    tmp.mkdir(exist_ok=True)
    settings = {
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        # Usage statistics are what made the CLI resolve DNS (measured with strace).
        "privacy": {"usageStatisticsEnabled": False},
        "telemetry": {"enabled": False},
        "general": {
            "maxAttempts": max_attempts,
            "enableAutoUpdate": False,
            "enableAutoUpdateNotification": False,
        },
    }
    (gdir / "settings.json").write_text(json.dumps(settings, indent=2), encoding="utf-8")
    return {
        "HOME": str(home),
        "GEMINI_API_KEY": STUB_API_KEY,
        "GOOGLE_GEMINI_BASE_URL": base_url.rstrip("/"),
        "GEMINI_CLI_TRUST_WORKSPACE": "true",
        "TMPDIR": str(tmp),
        **_NO_PROXY,
    }


def agent_env(
    *overlays: Mapping[str, str], base: Mapping[str, str] | None = None
) -> dict[str, str]:
    """``base`` (default: ours) without credentials, then each overlay in turn."""
    src = os.environ if base is None else base
    env = {k: v for k, v in src.items() if k not in CREDENTIAL_VARS}
    for overlay in overlays:
        env.update(overlay)
    return env


# -- a user's setup, planted --------------------------------------------------------------


@dataclass(frozen=True)
class Planted:
    """A planted user setup: marker text per instruction source, marker files per process."""

    markers: Path  # MCP servers and hooks touch a file named after themselves here
    text: Mapping[str, str]  # source ("project", "global", "skill", ...) -> marker text

    def started(self) -> set[str]:
        """Which planted servers and hooks ran."""
        return {p.name for p in self.markers.iterdir()} if self.markers.is_dir() else set()

    def leaked(self, body: str) -> set[str]:
        """Which sources' marker text is in ``body`` (a request body as sent)."""
        return {source for source, text in self.text.items() if text in body}


def _touch_server(marker: Path) -> list[str]:
    """argv of a stdio "MCP server" that only records that it was started."""
    code = "import pathlib, sys; pathlib.Path(sys.argv[1]).touch()"
    return [sys.executable, "-c", code, str(marker)]


def _touch_hook(marker: Path) -> dict[str, object]:
    return {"hooks": [{"type": "command", "command": f"touch {shlex.quote(str(marker))}"}]}


def _skill(root: Path, text: str) -> None:
    skill = root / "planted-skill"
    skill.mkdir(parents=True, exist_ok=True)
    (skill / "SKILL.md").write_text(
        f"---\nname: planted-skill\ndescription: {text} a planted skill\n---\nBody.\n",
        encoding="utf-8",
    )


def plant_codex_setup(home: Path, workdir: Path) -> Planted:
    """After ``codex_env(…, home)``: an MCP server in config.toml and one in the
    project's .codex/config.toml, SessionStart/UserPromptSubmit/Stop hooks in hooks.json,
    a skill, and AGENTS.md in $CODEX_HOME (global) and in ``workdir`` (project).

    codex runs a hook only once the user has trusted it: pass
    ``--dangerously-bypass-hook-trust`` to stand in for that trust."""
    codex_home = home / ".codex"
    markers = home / "planted-markers"
    markers.mkdir(parents=True, exist_ok=True)
    argv = _touch_server(markers / "mcp")
    with (codex_home / "config.toml").open("a", encoding="utf-8") as fh:
        fh.write(
            f"\n[mcp_servers.planted]\ncommand = {json.dumps(argv[0])}\n"
            f"args = {json.dumps(argv[1:])}\nstartup_timeout_sec = 5\n"
            '\n[mcp_servers.planted_remote]\nurl = "http://127.0.0.1:9/mcp"\n'
        )
    project = workdir / ".codex"
    project.mkdir(parents=True, exist_ok=True)
    (project / "config.toml").write_text(
        f"[mcp_servers.planted_project]\ncommand = {json.dumps(sys.executable)}\n"
        f"args = {json.dumps(_touch_server(markers / 'mcp-project')[1:])}\n",
        encoding="utf-8",
    )
    hooks = {event: [_touch_hook(markers / f"hook-{event}")] for event in
             ("SessionStart", "UserPromptSubmit", "Stop")}  # fmt: skip
    (codex_home / "hooks.json").write_text(json.dumps({"hooks": hooks}), encoding="utf-8")
    _skill(codex_home / "skills", "SKILL-MARKER-C")
    (codex_home / "AGENTS.md").write_text("GLOBAL-MARKER-C: say banana.\n", encoding="utf-8")
    (workdir / "AGENTS.md").write_text("PROJECT-MARKER-C: say cherry.\n", encoding="utf-8")
    return Planted(
        markers,
        {"global": "GLOBAL-MARKER-C", "project": "PROJECT-MARKER-C", "skill": "SKILL-MARKER-C"},
    )


def plant_gemini_setup(home: Path, workdir: Path) -> Planted:
    """After ``gemini_env(…, home)``: an MCP server and SessionStart/BeforeAgent/
    BeforeModel hooks in ~/.gemini/settings.json, an MCP server in the project's
    .gemini/settings.json, an extension with its own MCP server and context file, a
    skill, and GEMINI.md in ~/.gemini (global) and in ``workdir`` (project)."""
    gdir = home / ".gemini"
    markers = home / "planted-markers"
    markers.mkdir(parents=True, exist_ok=True)

    def server(name: str) -> dict[str, object]:
        argv = _touch_server(markers / name)
        return {"command": argv[0], "args": argv[1:], "timeout": 5000}

    settings = json.loads((gdir / "settings.json").read_text(encoding="utf-8"))
    settings["mcpServers"] = {"planted": server("mcp")}
    settings["hooks"] = {event: [_touch_hook(markers / f"hook-{event}")] for event in
                         ("SessionStart", "BeforeAgent", "BeforeModel")}  # fmt: skip
    (gdir / "settings.json").write_text(json.dumps(settings, indent=2), encoding="utf-8")
    (workdir / ".gemini").mkdir(parents=True, exist_ok=True)
    (workdir / ".gemini" / "settings.json").write_text(
        json.dumps({"mcpServers": {"planted_project": server("mcp-project")}}), encoding="utf-8"
    )
    ext = gdir / "extensions" / "planted"
    ext.mkdir(parents=True, exist_ok=True)
    manifest = {
        "name": "planted",
        "version": "1.0.0",
        "contextFileName": "PLANTED.md",
        "mcpServers": {"planted_ext": server("mcp-extension")},
    }
    (ext / "gemini-extension.json").write_text(json.dumps(manifest), encoding="utf-8")
    (ext / "PLANTED.md").write_text("EXTENSION-MARKER-G: say kiwi.\n", encoding="utf-8")
    _skill(gdir / "skills", "SKILL-MARKER-G")
    (gdir / "GEMINI.md").write_text("GLOBAL-MARKER-G: say banana.\n", encoding="utf-8")
    (workdir / "GEMINI.md").write_text("PROJECT-MARKER-G: say cherry.\n", encoding="utf-8")
    return Planted(
        markers,
        {
            "global": "GLOBAL-MARKER-G",
            "project": "PROJECT-MARKER-G",
            "skill": "SKILL-MARKER-G",
            "extension": "EXTENSION-MARKER-G",
        },
    )
