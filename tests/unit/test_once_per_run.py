"""Agents are loaded and binaries resolved once per run (issue 17): a panel whose seats
share an agent resolves its binary once, and ``--detach``, a batch and the MCP server's
checks read the catalogue the command already loaded."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import collab.agents
import collab.control.start
import collab.doctor
from collab.control.start import validate
from collab.doctor import check_prerequisites
from collab.errors import PrerequisiteError
from collab.request import DebateRequest
from collab.runners.inprocess import SCRIPTED, SCRIPTED_AGENTS
from tests.helpers import Cli
from tests.unit.test_orchestrator import config
from tests.unit.test_panels import ROLES


def counting(monkeypatch: pytest.MonkeyPatch, name: str, *modules: Any) -> list[object]:
    """Every call of ``name`` (as each of ``modules`` sees it), counted."""
    calls: list[object] = []
    real: Callable[..., Any] = getattr(collab.agents, name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(args[0] if args else None)
        return real(*args, **kwargs)

    for module in modules:
        monkeypatch.setattr(module, name, counted)
    return calls


@pytest.mark.parametrize("seats", [2, 5])
def test_seats_sharing_an_agent_resolve_its_binary_once(
    seats: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    resolved = counting(monkeypatch, "resolve_binary", collab.doctor)
    cfg = config(role=ROLES[:seats], agents=(SCRIPTED,))
    ready = check_prerequisites(cfg, SCRIPTED_AGENTS, env={})
    assert [spec.name for spec in resolved] == [SCRIPTED]  # type: ignore[attr-defined]
    assert set(ready.binaries) == {SCRIPTED}


def no_claude(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No claude CLI to be found: the checks stop the command (exit 3) once they ran."""
    empty = tmp_path / "empty-path"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    monkeypatch.delenv("COLLAB_CLAUDE_BIN", raising=False)


@pytest.mark.parametrize("how", ["detach", "batch"])
def test_the_cli_loads_the_catalogue_once(
    how: str, cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    loads = counting(monkeypatch, "load_agents", collab.agents, collab.doctor)
    no_claude(tmp_path, monkeypatch)
    topics = tmp_path / "topics.txt"
    topics.write_text("One\nTwo\nThree\n", encoding="utf-8")
    argv = ["debate", "T", "--detach"] if how == "detach" else ["batch", str(topics)]
    res = cli(*argv, "--agent", "claude", "--runner", "subprocess")
    assert res.code == 3 and "claude" in res.err, res.err
    assert len(loads) == 1


def test_the_checks_before_a_detached_start_load_the_catalogue_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    loads = counting(monkeypatch, "load_agents", collab.control.start, collab.doctor)
    no_claude(tmp_path, monkeypatch)
    with pytest.raises(PrerequisiteError, match="claude"):
        validate(DebateRequest(topic="T", agent_a="claude", runner="subprocess"), surface="mcp")
    assert len(loads) == 1
