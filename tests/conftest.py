"""Hermetic tests: private COLLAB_HOME and HOME, no inherited tmux or Claude Code session."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers import processes_of, wait_until

_LEAKY = ("TMUX", "TMUX_PANE", "CLAUDECODE", "CLAUDE_CODE_ENTRYPOINT", "COLLAB_TMUX_SOCKET")


_KINDS = {"unit": "unit", "e2e": "e2e", "real": "real"}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Each test is marked by its directory: ``-m unit``, ``-m "not real"``, ..."""
    root = Path(__file__).parent
    for item in items:
        parts = Path(str(item.fspath)).relative_to(root).parts
        kind = _KINDS.get(parts[0]) if len(parts) > 1 else None
        if kind is not None:
            item.add_marker(kind)


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
def no_agent_processes(hermetic_env: Path) -> Iterator[None]:
    """Fail a test that leaves a process of its own behind: an agent, a pane's shell, a
    collab (anything that inherited this test's COLLAB_HOME; tmux servers aside, which
    the ``server`` fixture reaps). Other tests' processes never count. Name it first
    among a test's fixtures, so that it checks after the others have cleaned up."""
    yield
    if not wait_until(lambda: not processes_of(hermetic_env), 10):
        left = {pid: _cmdline(pid) for pid in processes_of(hermetic_env)}
        pytest.fail(f"processes left behind: {left}")


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return "?"


FAKE_AGENT = Path(__file__).parent / "fakes" / "fake_agent.py"


class FakeAgent:
    """A scripted agent registered as ``fake`` in the test's COLLAB_HOME/config.toml.

    ``script(rules, default)`` writes the script the fake answers from (see
    tests/fakes/fake_agent.py); ``calls()`` lists what it was asked.
    """

    def __init__(self, home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        self.dir = home / "fake"
        self.dir.mkdir(exist_ok=True)
        self.path = self.dir / "script.json"
        monkeypatch.setenv("COLLAB_FAKE_SCRIPT", str(self.path))
        (home / "config.toml").write_text(
            "[agents.fake]\n"
            f"argv = [{json.dumps(sys.executable)}, {json.dumps(str(FAKE_AGENT))},"
            ' "--format", "claude-json"]\n'
            'model_argv = ["--model", "{model}"]\n'
            'output = "claude-json"\n'
            "[agents.fake-stream]\n"
            f"argv = [{json.dumps(sys.executable)}, {json.dumps(str(FAKE_AGENT))},"
            ' "--format", "claude-stream"]\n'
            'model_argv = ["--model", "{model}"]\n'
            'output = "claude-json"\n'
            "[agents.fake-text]\n"
            f"argv = [{json.dumps(sys.executable)}, {json.dumps(str(FAKE_AGENT))},"
            ' "--format", "text"]\n'
            'output = "text"\n',
            encoding="utf-8",
        )
        self.script([], "fallback reply")

    def script(self, rules: list[dict[str, object]], default: object = None) -> Path:
        doc: dict[str, object] = {"rules": rules}
        if default is not None:
            doc["default"] = default
        self.path.write_text(json.dumps(doc), encoding="utf-8")
        for suffix in (".state.json", ".calls.jsonl"):
            Path(str(self.path) + suffix).unlink(missing_ok=True)
        return self.path

    def calls(self) -> list[dict[str, object]]:
        p = Path(str(self.path) + ".calls.jsonl")
        if not p.exists():
            return []
        return [json.loads(line) for line in p.read_text().splitlines() if line.strip()]


@pytest.fixture
def fake_agent(hermetic_env: Path, monkeypatch: pytest.MonkeyPatch) -> FakeAgent:
    return FakeAgent(hermetic_env, monkeypatch)


def contract_block(
    new: list[tuple[str, str]] | None = None,
    stances: list[tuple[str, str, str]] | None = None,
    abstain: str | None = None,
) -> str:
    """A reply's closing ```json block, as a debater must write it."""
    doc = {
        "new_points": [{"title": t, "evidence": e} for t, e in (new or [])],
        "stances": [{"id": i, "stance": s, "evidence": e} for i, s, e in (stances or [])],
        "abstain": abstain,
    }
    return "\n\n```json\n" + json.dumps(doc) + "\n```\n"
