"""A missing login is found before a run is created, with the REAL ``claude`` CLI against
the fake Anthropic API (no key anywhere, or a key the API rejects with 401 on the very
first call): exit 3, nothing started, nothing listed. A run started detached keeps its
id, so it stays, ``failed``, with the login hint. Skipped only without the binary."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from libtmux import Server

from tests.conftest import contract_block
from tests.fakes import FakeAnthropic, Reply
from tests.helpers import JUDGE_REST, needs_no_machine_login, wait_until

# ``api`` (the fake API, the real claude pointed at it): tests/real/conftest.py
pytestmark = [pytest.mark.real_agent, pytest.mark.tmux]

ROLE_A = "(Role A) in a structured debate"
ROLE_B = "(Role B) in a structured debate"
JUDGE = "neutral judge"
TOPIC = "JWT vs sessions"


def collab(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "collab", *args],
        capture_output=True, text=True, env=dict(os.environ), timeout=300,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip


def debate(*extra: str) -> subprocess.CompletedProcess[str]:
    return collab(
        "debate", TOPIC, "--rounds", "2", "--runner", "tmux", "--opening", "sequential",
        "--timeout", "90", "--judge-timeout", "90", "--json", *extra,
    )  # fmt: skip


def listed() -> list[Any]:
    res = collab("list", "--json")
    assert res.returncode == 0, res.stderr
    runs: list[Any] = json.loads(res.stdout)["runs"]
    return runs


def run_dirs() -> list[Path]:
    runs = Path(os.environ["COLLAB_HOME"]) / "runs"
    return sorted(runs.iterdir()) if runs.is_dir() else []


def test_no_login_anywhere_refuses_before_anything_starts(
    api: FakeAnthropic, monkeypatch: pytest.MonkeyPatch, server: Server
) -> None:
    needs_no_machine_login()
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    monkeypatch.delenv("ANTHROPIC_BASE_URL")  # a gateway would be "cannot tell"
    sessions = {s.name for s in server.sessions}
    res = debate()
    assert res.returncode == 3, res.stderr
    err = json.loads(res.stdout)["error"]
    assert err["kind"] == "prerequisite"
    assert "claude: no login or API key found" in err["message"]
    assert "collab resume" not in err["message"]
    assert api.requests == []  # no call was made
    assert run_dirs() == [] and listed() == []
    assert {s.name for s in server.sessions} == sessions  # no tmux session appeared
    # --detach refuses the same way: no id is handed out
    res = debate("--detach")
    assert res.returncode == 3 and run_dirs() == [] and api.requests == []


def test_a_key_in_settings_env_counts_as_a_login(
    api: FakeAnthropic, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The key and the base URL only in ~/.claude/settings.json's ``env``: the run starts
    (and the real CLI uses them)."""
    key, url = os.environ["ANTHROPIC_API_KEY"], os.environ["ANTHROPIC_BASE_URL"]
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    monkeypatch.delenv("ANTHROPIC_BASE_URL")
    settings = Path(os.environ["HOME"]) / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(
        json.dumps({"env": {"ANTHROPIC_API_KEY": key, "ANTHROPIC_BASE_URL": url}}),
        encoding="utf-8",
    )
    api.add_rule(JUDGE, Reply(text="## TL;DR\n- done" + JUDGE_REST))
    api.add_rule(ROLE_A, Reply(text="A." + contract_block(new=[("A1", "e")])))
    api.add_rule(ROLE_B, Reply(text="B." + contract_block(stances=[("I1", "contest", "no")])))
    res = debate()
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["status"] == "done"
    assert len(api.requests) == 5 and len(listed()) == 1


def test_a_401_on_the_first_call_leaves_nothing_listed(api: FakeAnthropic) -> None:
    """The login could not be told apart beforehand (a key is set); the API rejects it on
    the very first call: the run it created is removed, exit 3."""
    role_a = api.add_rule(ROLE_A, Reply(status=401, error_message="fake-401-marker"))
    role_b = api.add_rule(ROLE_B, Reply(text="B." + contract_block(new=[("B1", "e")])))
    res = debate()
    assert res.returncode == 3, res.stderr
    err = json.loads(res.stdout)["error"]
    assert err["kind"] == "prerequisite"
    assert "claude login failed" in err["message"] and "fake-401-marker" in err["message"]
    assert "collab resume" not in err["message"]  # there is nothing to resume
    assert role_a.count >= 1 and role_b.count == 0
    assert run_dirs() == [] and listed() == []


def test_a_401_on_the_first_call_of_a_detached_run_keeps_it_failed(
    api: FakeAnthropic,
) -> None:
    """A detached run's id was already handed out: it stays, failed, with the hint."""
    api.add_rule(ROLE_A, Reply(status=401, error_message="fake-401-marker"))
    res = debate("--detach")
    assert res.returncode == 0, res.stderr
    run_id = json.loads(res.stdout)["run_id"]

    def failed() -> bool:
        return any(r["run_id"] == run_id and r["status"] == "failed" for r in listed())

    assert wait_until(failed, 120, 0.5)
    status = json.loads(collab("status", run_id, "--json").stdout)
    assert "claude login failed" in str(status["error"]) and "claude" in str(status["error"])
    state = json.loads((run_dirs()[0] / "state.json").read_text(encoding="utf-8"))
    assert state["status"] == "failed" and "login" in state["error"]
