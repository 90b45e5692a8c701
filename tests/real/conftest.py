"""Fixtures of the real-CLI tests: the real claude binary, pointed at a local fake API."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from libtmux import Server

# libtmux's fixtures (``server`` …), as tests/e2e/conftest.py takes them: its plugin is not
# loaded for every run
from tests.e2e.conftest import *  # noqa: F403
from tests.fakes import SKIP_REASON, FakeAnthropic, claude_binary, claude_env
from tests.fakes.claude_env import CLAUDE_ENV_UNSET


@pytest.fixture
def claude_bin() -> str:
    binary = claude_binary()
    if binary is None:
        pytest.skip(SKIP_REASON)
    return binary


def use_fake_claude(
    monkeypatch: pytest.MonkeyPatch,
    claude_bin: str,
    base_url: str,
    home: Path,
    server: Server,
) -> None:
    """This process's environment set to run the real claude against ``base_url``, with the
    CLI's own retry settings as a user has them (collab bounds them itself)."""
    for name in CLAUDE_ENV_UNSET:
        monkeypatch.delenv(name, raising=False)
    for name, value in claude_env(base_url, home).items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("CLAUDE_CODE_MAX_RETRIES", raising=False)
    monkeypatch.delenv("API_TIMEOUT_MS", raising=False)
    monkeypatch.setenv("COLLAB_CLAUDE_BIN", claude_bin)
    monkeypatch.setenv("COLLAB_TMUX_SOCKET", str(server.socket_name))


@pytest.fixture
def api(
    claude_bin: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, server: Server
) -> Iterator[FakeAnthropic]:
    """The fake API, and this process's environment set to run the real claude against it
    (temp files in the test's own folder)."""
    with FakeAnthropic() as fake:
        use_fake_claude(monkeypatch, claude_bin, fake.url, tmp_path / "claude-home", server)
        tmp = tmp_path / "tmp"
        tmp.mkdir()
        monkeypatch.setenv("TMPDIR", str(tmp))
        yield fake


__all__ = ["FakeAnthropic", "api", "claude_bin", "use_fake_claude"]
