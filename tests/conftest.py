"""Hermetic tests: private COLLAB_HOME and HOME, no inherited tmux or Claude Code session."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

_LEAKY = ("TMUX", "TMUX_PANE", "CLAUDECODE", "CLAUDE_CODE_ENTRYPOINT", "COLLAB_TMUX_SOCKET")


@pytest.fixture(autouse=True)
def hermetic_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    home = tmp_path / "collab-home"
    home.mkdir()
    monkeypatch.setenv("COLLAB_HOME", str(home))
    monkeypatch.setenv("SHELL", "/bin/bash")
    for name in _LEAKY:
        monkeypatch.delenv(name, raising=False)
    yield home


@pytest.fixture
def no_agent_processes() -> Iterator[None]:
    """Fail a test that leaves a process of ours behind."""
    before = _our_pids()
    yield
    left = _our_pids() - before
    assert not left, f"processes left behind: {left}"


def _our_pids() -> set[int]:
    out: set[int] = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmd = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if b"fake_agent.py" in cmd or b"collab-test-sleeper" in cmd:
            out.add(int(entry.name))
    return out - {os.getpid()}
