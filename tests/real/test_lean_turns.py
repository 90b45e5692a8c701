"""Lean, isolated, live turns with the REAL ``claude`` CLI in tmux against the fake API.

The user's setup is planted the way a user has it: hooks in ~/.claude/settings.json, an
MCP server in ~/.claude.json, a ~/.claude/CLAUDE.md and a project CLAUDE.md, and the
provider (a gateway's base URL) in settings.json's ``env`` block. By default none of it
but the provider reaches a turn; ``--agent-setup inherit`` brings the hooks back.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from libtmux import Server

from tests.conftest import contract_block
from tests.fakes import FakeAnthropic, Reply
from tests.helpers import JUDGE_REST, wait_until
from tests.real.conftest import use_fake_claude

pytestmark = [pytest.mark.real_agent, pytest.mark.tmux]

TOPIC = "JWT vs sessions"
ROLE_A = "(Role A) in a structured debate"
ROLE_B = "(Role B) in a structured debate"
JUDGE = "neutral judge"
MEMORY = ("USER-MEMORY-MARKER-5512", "PROJECT-MEMORY-MARKER-7781")


class Planted:
    """A user's Claude Code setup in a throwaway HOME and project dir."""

    def __init__(self, home: Path, project: Path, base_url: str) -> None:
        self.home, self.project = home, project
        self.hooks = {e: home / f"hook-{e}" for e in ("SessionStart", "UserPromptSubmit", "Stop")}
        self.mcp = home / "mcp-started"
        claude_dir = home / ".claude"
        claude_dir.mkdir(parents=True, exist_ok=True)
        settings = {
            "hooks": {
                event: [{"hooks": [{"type": "command", "command": f"touch {path}"}]}]
                for event, path in self.hooks.items()
            },
            # The gateway: the process env points nowhere; only this reaches the fake.
            "env": {"ANTHROPIC_BASE_URL": base_url},
        }
        (claude_dir / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
        server = {"command": "sh", "args": ["-c", f"touch {self.mcp}; sleep 30"]}
        (home / ".claude.json").write_text(json.dumps({"mcpServers": {"planted": server}}))
        (claude_dir / "CLAUDE.md").write_text(MEMORY[0] + "\n", encoding="utf-8")
        project.mkdir(parents=True, exist_ok=True)
        (project / "CLAUDE.md").write_text(MEMORY[1] + "\n", encoding="utf-8")

    def fired(self) -> list[str]:
        return [name for name, path in self.hooks.items() if path.exists()]


@pytest.fixture
def api(
    claude_bin: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, server: Server
) -> Iterator[tuple[FakeAnthropic, Planted]]:
    with FakeAnthropic() as fake:
        home = tmp_path / "claude-home"
        # The process env points nowhere: only the user's settings.json reaches the fake.
        use_fake_claude(monkeypatch, claude_bin, "http://127.0.0.1:9", home, server)
        planted = Planted(home, tmp_path / "project", fake.url)
        yield fake, planted


def script(fake: FakeAnthropic, **reply: Any) -> None:
    fake.add_rule(JUDGE, Reply(text="## TL;DR\n- Sessions." + JUDGE_REST))
    fake.add_rule(ROLE_A, Reply(text="A argues." + contract_block(new=[("A1", "e")]), **reply))
    fake.add_rule(ROLE_B, Reply(text="B argues." + contract_block(new=[("B1", "e")]), **reply))
    fake.default(Reply(status=400, error_message="unexpected prompt"))


def collab(cwd: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "collab", *args],
        cwd=cwd, env=dict(os.environ), stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip


def debate(cwd: Path, *extra: str) -> tuple[int, dict[str, Any], str]:
    proc = collab(
        cwd, "debate", TOPIC, "--rounds", "2", "--runner", "tmux", "--timeout", "60", "--json",
        *extra,
    )  # fmt: skip
    out, err = proc.communicate(timeout=300)
    return proc.returncode, json.loads(out), err


def our_prompt(body: dict[str, Any]) -> str:
    """collab's prompt: the last text block of the last user message."""
    blocks = body["messages"][-1]["content"]
    return str(blocks[-1]["text"]) if isinstance(blocks, list) else str(blocks)


def test_default_turns_are_lean_and_isolated(api: tuple[FakeAnthropic, Planted]) -> None:
    fake, planted = api
    script(fake)
    code, doc, err = debate(planted.project)
    assert code == 0, err
    assert doc["status"] == "done" and fake.default_count == 0
    assert len(fake.requests) == 5  # reached the fake: the settings.json gateway was used
    for req in fake.requests:
        body = json.dumps(req.body, ensure_ascii=False)
        assert req.body.get("tools", []) == [], "a debate turn is offered no tools"
        for marker in MEMORY:
            assert marker not in body, f"{marker} reached the model"
        system = json.dumps(req.body["system"])
        assert "collab" in system and "Claude Code" not in system
        overhead = len(body.encode()) - len(our_prompt(req.body).encode())
        assert overhead <= 2048, f"{overhead} bytes beyond our prompt"
    assert planted.fired() == [], "a user hook ran inside a turn"
    assert not planted.mcp.exists(), "the user's MCP server was started"


def test_inherit_brings_back_the_user_setup(api: tuple[FakeAnthropic, Planted]) -> None:
    fake, planted = api
    script(fake)
    code, doc, err = debate(planted.project, "--agent-setup", "inherit")
    assert code == 0, err
    assert doc["status"] == "done"
    assert "SessionStart" in planted.fired()
    assert any(MEMORY[1] in json.dumps(r.body) for r in fake.requests)


def test_pane_shows_the_reply_while_it_is_written(
    api: tuple[FakeAnthropic, Planted], server: Server
) -> None:
    fake, planted = api
    words = " ".join(f"w{n:02d}" for n in range(40))
    fake.add_rule(JUDGE, Reply(text="## TL;DR\n- done." + JUDGE_REST))
    fake.add_rule(ROLE_A, Reply(text=words + contract_block(new=[("A1", "e")]), word_delay=0.1))
    b_words = " ".join(f"b{n:02d}" for n in range(30))
    fake.add_rule(ROLE_B, Reply(text=b_words + contract_block(), word_delay=0.1))
    proc = collab(planted.project, "debate", TOPIC, "--rounds", "2", "--runner", "tmux", "--json")
    try:

        def pane() -> str:
            names = server.cmd("list-sessions", "-F", "#{session_name}").stdout
            for name in [n for n in names if n.startswith("collab-")]:
                return "\n".join(server.cmd("capture-pane", "-p", "-t", name).stdout)
            return ""

        seen: list[str] = []

        def mid_turn() -> bool:
            text = pane()
            if "w05" in text:
                seen.append(text)
                return True
            return False

        assert wait_until(mid_turn, 60), pane()
        shown = seen[0]
        # Mid-turn: the first words are on screen, rendered as text, the last not yet.
        assert "w39" not in shown and '"type"' not in shown and "stream_event" not in shown
        assert "Role A" in shown
        first_sent = fake.first_text_at[0]
        assert time.time() - first_sent < 4.0 - 0.5  # 40 words at 0.1 s: well before the end
        # When A's turn has ended the pane says what it brought, while B still writes.
        assert wait_until(lambda: "1 new point" in pane() and "b03" in pane(), 60), pane()
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
        assert json.loads(out)["status"] == "done"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
