"""The configuration for each MCP host (docs/integrations.md), checked as far as each host's own CLI
can check it here: Claude Code (`claude mcp add`, the server connects), Gemini CLI (its
settings.json, the server connects), Codex CLI (its config.toml parses to our server),
Claude Desktop / Cursor (no CLI: the JSON starts the server as it says, and an MCP
session lists the tools)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.e2e.mcp_client import mcp_session
from tests.fakes.claude_env import claude_full_env

pytestmark = [pytest.mark.real_agent]

REPO = Path(__file__).resolve().parents[2]
TOOLS = {
    "debate_start", "debate_status", "debate_result", "debate_cancel", "debate",
    "runs_list", "presets_list", "server_info", "debate_ask", "debate_continue", "debate_decide",
}  # fmt: skip


def snippet(heading: str, lang: str) -> str:
    """The first ``lang`` code block under docs/integrations.md's ``## heading``."""
    text = (REPO / "docs" / "integrations.md").read_text(encoding="utf-8")
    section = text.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]
    found = re.search(rf"```{lang}\n(.*?)```", section, re.DOTALL)
    assert found, f"no {lang} block under {heading}"
    return found.group(1)


def host_env(tmp_path: Path, *bins: str | None) -> dict[str, str]:
    env = claude_full_env("http://127.0.0.1:9", tmp_path / "home")
    dirs = [str(Path(sys.executable).parent), *(str(Path(b).parent) for b in bins if b)]
    env["PATH"] = os.pathsep.join([*dirs, env.get("PATH", "")])
    env["COLLAB_HOME"] = str(tmp_path / "collab-home")
    env["MCP_CONNECT_TIMEOUT_MS"] = env["MCP_TIMEOUT"] = "30000"  # a loaded CI machine
    return env


def run(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        args, env=env, cwd=cwd, capture_output=True, text=True, timeout=180,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip


def test_claude_code_mcp_add(claude_bin: str, tmp_path: Path) -> None:
    text = snippet("Claude Code", "sh")
    (line,) = [ln for ln in text.splitlines() if ln.startswith("claude mcp add")]
    env = host_env(tmp_path, claude_bin)
    args = line.split()
    added = run([claude_bin, *args[1:]], env, tmp_path)
    assert added.returncode == 0, added.stdout + added.stderr
    listed = run([claude_bin, "mcp", "list"], env, tmp_path)
    assert re.search(r"^collab: collab mcp - ✔ Connected", listed.stdout, re.M), listed.stdout


def test_gemini_cli_settings(tmp_path: Path) -> None:
    gemini = shutil.which("gemini")
    if gemini is None:
        pytest.skip("gemini CLI not installed: npm install @google/gemini-cli")
    settings = json.loads(snippet("Gemini CLI", "json"))
    assert settings["mcpServers"]["collab"]["args"] == ["mcp"]
    env = host_env(tmp_path, gemini)
    home = Path(env["HOME"])
    (home / ".gemini").mkdir(parents=True)
    (home / ".gemini" / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    project = tmp_path / "project"
    project.mkdir()
    trusted = {str(project): "TRUST_FOLDER"}  # user servers load in trusted folders only
    (home / ".gemini" / "trustedFolders.json").write_text(json.dumps(trusted))
    listed = run([gemini, "mcp", "list"], env, project)
    out = listed.stdout + listed.stderr  # it prints the list on stderr
    assert re.search(r"collab: collab mcp \(stdio\) - Connected", out), out


def test_codex_cli_config(tmp_path: Path) -> None:
    codex = shutil.which("codex")
    if codex is None:
        pytest.skip("codex CLI not installed: npm install @openai/codex")
    text = snippet("Codex CLI", "toml")
    assert tomllib.loads(text)["mcp_servers"]["collab"]["command"] == "collab"
    env = host_env(tmp_path, codex)
    codex_home = Path(env["HOME"]) / ".codex"
    codex_home.mkdir(parents=True)
    (codex_home / "config.toml").write_text(text, encoding="utf-8")
    env["CODEX_HOME"] = str(codex_home)
    listed = run([codex, "mcp", "list", "--json"], env, tmp_path)
    assert listed.returncode == 0, listed.stderr
    (server,) = json.loads(listed.stdout)
    assert server["name"] == "collab" and server["enabled"]
    assert server["transport"] == {**server["transport"], "type": "stdio",
                                   "command": "collab", "args": ["mcp"]}  # fmt: skip
    assert server["tool_timeout_sec"] >= 900


def test_claude_desktop_and_cursor_json(tmp_path: Path) -> None:
    config = json.loads(snippet("Claude Desktop, Cursor", "json"))
    entry = config["mcpServers"]["collab"]
    assert set(entry) == {"command", "args", "env"}
    command = shutil.which(entry["command"], path=host_env(tmp_path)["PATH"])
    assert command is not None, "collab is not on PATH"
    # As the app would: that command and args, the snippet's env (PATH made real here).
    env = {**entry["env"], "PATH": host_env(tmp_path)["PATH"],
           "COLLAB_HOME": str(tmp_path / "collab-home")}  # fmt: skip

    async def go() -> set[str]:
        async with mcp_session(env=env, command=[command, *entry["args"]]) as s:
            return {t.name for t in (await s.list_tools()).tools}

    names: Any = anyio.run(go)
    assert names == TOOLS
