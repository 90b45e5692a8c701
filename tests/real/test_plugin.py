"""The Claude Code plugin in this repository, checked by the REAL claude CLI: its
manifests validate, `/plugin marketplace add` and `/plugin install` work on the repo,
the plugin's MCP server (``collab mcp`` from PATH) connects, and a session offers the
collab tools and expands ``/collab:debate`` with the topic as written."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes import FakeAnthropic, Reply
from tests.fakes.claude_env import claude_full_env

pytestmark = [pytest.mark.real_agent]

REPO = Path(__file__).resolve().parents[2]
TOOLS = {
    "debate_start", "debate_status", "debate_result", "debate_cancel", "debate",
    "debate_ask", "debate_continue", "debate_decide",
    "runs_list", "presets_list", "server_info",
}  # fmt: skip
HOSTILE = 'Adopt JWT? It\'s "risky" — $(touch PWNED) `id`'


@pytest.fixture
def claude_home(claude_bin: str, tmp_path: Path) -> Iterator[dict[str, str]]:
    """An environment for the real CLI with a fresh HOME, collab (this venv's) on PATH,
    and the fake API as its only endpoint."""
    with FakeAnthropic() as api:
        api.default(Reply(text="ok"))
        env = claude_full_env(api.url, tmp_path / "home")
        bins = [str(Path(sys.executable).parent), str(Path(claude_bin).parent)]
        env["PATH"] = os.pathsep.join([*bins, env.get("PATH", "")])
        env["COLLAB_HOME"] = str(tmp_path / "collab-home")
        # claude -p may send its first request before the MCP servers are up: wait for
        # them, and on a loaded 2-core CI machine give `collab mcp` (~1.5 s to import the
        # SDK) more than the 5 s `claude mcp list` allows by default.
        env["MCP_CONNECTION_NONBLOCKING"] = "false"
        env["MCP_CONNECT_TIMEOUT_MS"] = env["MCP_TIMEOUT"] = "30000"
        yield env


def claude(
    env: dict[str, str], *args: str, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["claude", *args], env=env, cwd=cwd or REPO, capture_output=True, text=True,
        timeout=180, stdin=subprocess.DEVNULL,
    )  # fmt: skip


@pytest.mark.parametrize("target", [".", ".claude-plugin/plugin.json"])
def test_plugin_validate(claude_home: dict[str, str], target: str) -> None:
    res = claude(claude_home, "plugin", "validate", "--strict", target)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "Validation passed" in res.stdout


def test_the_mcp_server_has_a_timeout_for_a_blocking_debate_and_starts_by_the_launcher(
    claude_home: dict[str, str], tmp_path: Path
) -> None:
    """30 minutes, checked by the real validator — which does read the field: a copy with
    a timeout that is not a number fails it. (Whether the host honours a plugin server's
    timeout cannot be observed offline.)"""
    manifest = json.loads((REPO / ".claude-plugin" / "plugin.json").read_text())
    server = manifest["mcpServers"]["collab"]
    assert server["timeout"] == 1800000
    assert server["command"] == "${CLAUDE_PLUGIN_ROOT}/.claude-plugin/launch"
    copy = tmp_path / "plugin"
    shutil.copytree(REPO / ".claude-plugin", copy / ".claude-plugin")
    for rel in ("skills", "commands"):
        shutil.copytree(REPO / rel, copy / rel)
    server["timeout"] = "30 minutes"
    (copy / ".claude-plugin" / "plugin.json").write_text(json.dumps(manifest))
    res = claude(claude_home, "plugin", "validate", "--strict", str(copy))
    assert res.returncode != 0 and "mcpServers" in res.stdout + res.stderr


def test_marketplace_add_install_and_the_mcp_server_connects(
    claude_home: dict[str, str], tmp_path: Path
) -> None:
    added = claude(claude_home, "plugin", "marketplace", "add", str(REPO), cwd=tmp_path)
    assert added.returncode == 0, added.stdout + added.stderr
    installed = claude(claude_home, "plugin", "install", "collab@collab", cwd=tmp_path)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    listed = claude(claude_home, "plugin", "list", cwd=tmp_path)
    assert "collab@collab" in listed.stdout
    home = Path(claude_home["HOME"])
    plugins = json.loads((home / ".claude" / "plugins" / "installed_plugins.json").read_text())
    (entry,) = plugins["plugins"]["collab@collab"]
    copy = Path(entry["installPath"])
    # The plugin is a copy of the repository: the same skill and command, and the
    # package that installs collab where it is missing.
    for rel in ("skills/collab/SKILL.md", "commands/debate.md", "pyproject.toml"):
        assert (copy / rel).read_bytes() == (REPO / rel).read_bytes(), rel
    health = claude(claude_home, "mcp", "list", cwd=tmp_path)
    assert "plugin:collab:collab" in health.stdout and "Connected" in health.stdout, (
        health.stdout + health.stderr
    )


def test_a_session_offers_the_tools_and_expands_the_command(
    claude_home: dict[str, str], tmp_path: Path
) -> None:
    with FakeAnthropic() as api:
        api.default(Reply(text="ok"))
        env = dict(claude_home, ANTHROPIC_BASE_URL=api.url.rstrip("/"))
        res = claude(env, "-p", "--plugin-dir", str(REPO), "--output-format", "json",
                     f"/collab:debate {HOSTILE}", cwd=tmp_path)  # fmt: skip
        assert res.returncode == 0, res.stdout + res.stderr
        (req,) = api.requests
    offered = {t["name"]: t for t in req.body.get("tools", [])}
    prefix = "mcp__plugin_collab_collab__"
    assert {n.removeprefix(prefix) for n in offered if n.startswith(prefix)} == TOOLS
    start = offered[prefix + "debate_start"]["input_schema"]
    assert start["required"] == ["topic"] and "preset" in start["properties"]
    assert "<command-name>/collab:debate</command-name>" in req.prompt
    intro = "Run a collab debate on this, using the collab skill's instructions:"
    assert f"{intro}\n\n{HOSTILE}\n" in req.prompt
    assert f'pipx install "{REPO}"' in req.prompt  # ${CLAUDE_PLUGIN_ROOT}, filled in
    assert not list(tmp_path.rglob("PWNED"))
