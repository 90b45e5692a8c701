"""--judge-agent auto: another agent family than the debaters', installed and logged in."""

from __future__ import annotations

import stat
from pathlib import Path
from typing import NamedTuple

import pytest

from collab.agents import BUILTIN
from collab.judge.pick import pick_judge


def fake_bin(d: Path, name: str) -> None:
    p = d / name
    p.write_text("#!/bin/sh\nexit 0\n")
    p.chmod(p.stat().st_mode | stat.S_IXUSR)


class Row(NamedTuple):
    test_id: str
    debaters: tuple[str, str]
    installed: tuple[str, ...]
    env: dict[str, str]
    files: tuple[str, ...]  # relative to HOME
    expect: str


ROWS = [
    Row("claude-debaters-codex-logged-in", ("claude", "claude"), ("claude", "codex"),
        {}, (".codex/auth.json",), "codex"),
    Row("codex-installed-but-not-logged-in", ("claude", "claude"), ("claude", "codex"),
        {}, (), "claude"),
    Row("gemini-by-api-key", ("claude", "claude"), ("gemini",), {"GEMINI_API_KEY": "k"},
        (), "gemini"),
    Row("codex-preferred-over-gemini", ("claude", "claude"), ("codex", "gemini"),
        {"OPENAI_API_KEY": "k", "GEMINI_API_KEY": "k"}, (), "codex"),
    Row("not-installed-falls-back", ("claude", "claude"), (), {"OPENAI_API_KEY": "k"}, (),
        "claude"),
    Row("mixed-debaters-take-the-third-family", ("claude", "codex"),
        ("claude", "codex", "gemini"), {"OPENAI_API_KEY": "k", "GEMINI_API_KEY": "k"}, (),
        "gemini"),
    Row("codex-debaters-claude-by-key", ("codex", "codex"), ("claude", "codex"),
        {"ANTHROPIC_API_KEY": "k"}, (), "claude"),
]  # fmt: skip


@pytest.mark.parametrize("row", ROWS, ids=[r.test_id for r in ROWS])
def test_pick_judge(row: Row, tmp_path: Path) -> None:
    bindir, home = tmp_path / "bin", tmp_path / "home"
    bindir.mkdir()
    home.mkdir()
    for name in row.installed:
        fake_bin(bindir, name)
    for rel in row.files:
        (home / rel).parent.mkdir(parents=True, exist_ok=True)
        (home / rel).write_text("{}")
    env = {"PATH": str(bindir), "HOME": str(home), **row.env}
    assert pick_judge(row.debaters, BUILTIN.keys(), env) == row.expect


def test_auto_through_validation(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from collab.request import DebateRequest, build_config

    bindir = tmp_path / "bin"
    bindir.mkdir()
    fake_bin(bindir, "gemini")
    monkeypatch.setenv("PATH", str(bindir))  # gemini is the only agent CLI here
    monkeypatch.setenv("GEMINI_API_KEY", "k")
    for var in ("OPENAI_API_KEY", "CODEX_API_KEY", "CODEX_HOME"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    req = DebateRequest(topic="Judge me", judge_agent="auto", lang="en")
    cfg = build_config(req, BUILTIN.keys())
    assert cfg.judge.agent == "gemini"
    assert (cfg.agent_a.agent, cfg.agent_b.agent) == ("claude", "claude")


def test_a_debater_of_a_configured_agent_excludes_no_family(tmp_path: Path) -> None:
    """A debater from the user's [agents] table has no family: any logged-in family judges."""
    fake_bin(tmp_path, "claude")
    env = {"PATH": str(tmp_path), "HOME": str(tmp_path), "ANTHROPIC_API_KEY": "k"}
    assert pick_judge(("my-wrapper", "my-wrapper"), [*BUILTIN, "my-wrapper"], env) == "claude"


def test_an_agent_installed_under_its_override_counts(tmp_path: Path) -> None:
    """COLLAB_CODEX_BIN names codex's binary; it need not be on PATH under its own name."""
    elsewhere = tmp_path / "opt"
    elsewhere.mkdir()
    fake_bin(elsewhere, "codex-nightly")
    env = {"PATH": str(tmp_path / "empty"), "HOME": str(tmp_path), "OPENAI_API_KEY": "k",
           "COLLAB_CODEX_BIN": str(elsewhere / "codex-nightly")}  # fmt: skip
    assert pick_judge(("claude", "claude"), BUILTIN.keys(), env) == "codex"
