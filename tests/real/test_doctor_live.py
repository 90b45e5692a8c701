"""``collab doctor --live``: one tiny real call of the REAL ``claude`` CLI, here against the
fake Anthropic API (REAL_AGENTS.md), as a debate turn makes it. The call answers, or the
API refuses the key (401) and doctor says "Not logged in" with the fix, exit 3.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from libtmux import Server

from collab.agents import CLAUDE_LOGIN_HINT, CLAUDE_MAX_RETRIES
from tests.fakes import FakeAnthropic, Reply
from tests.real.conftest import use_fake_claude

pytestmark = [pytest.mark.real_agent]

PROBE = "Reply with the single word: ok"


@pytest.fixture
def api(
    claude_bin: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, server: Server
) -> Iterator[FakeAnthropic]:
    with FakeAnthropic() as fake:
        use_fake_claude(monkeypatch, claude_bin, fake.url, tmp_path / "claude-home", server)
        yield fake


def doctor(*args: str) -> tuple[int, dict[str, Any], str]:
    res = subprocess.run(
        [sys.executable, "-m", "collab", "doctor", *args],
        capture_output=True, text=True, env=dict(os.environ), timeout=300,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip
    doc = json.loads(res.stdout) if "--json" in args else {}
    return res.returncode, doc, res.stdout + res.stderr


def checks(doc: dict[str, Any]) -> dict[str, dict[str, str]]:
    return {c["name"]: c for c in doc["checks"]}


def test_doctor_live_call_answers(api: FakeAnthropic, claude_bin: str) -> None:
    rule = api.add_rule(PROBE, Reply(text="ok"))
    api.default(Reply(status=400, error_message="unexpected prompt"))
    code, doc, _ = doctor("--live", "--json")
    assert code == 0, doc
    assert doc["ok"] is True
    by_name = checks(doc)
    assert by_name["claude live call"] == {
        "name": "claude live call", "level": "ok", "detail": "answered", "fix": "",
    }  # fmt: skip
    assert by_name["claude login"]["level"] == "ok"
    assert claude_bin in by_name["agent claude"]["detail"]
    # One call, made as a debate turn makes it (the CLI puts its date reminder first).
    assert (rule.count, api.default_count) == (1, 0)
    (req,) = api.requests
    assert req.prompt.rstrip().endswith("\n" + PROBE) and req.path.startswith("/v1/messages")


def test_doctor_without_live_makes_no_call(api: FakeAnthropic) -> None:
    api.default(Reply(text="ok"))
    code, doc, _ = doctor("--json")
    assert code == 0, doc
    assert "claude live call" not in checks(doc)
    assert api.requests == []


def test_doctor_live_401_says_not_logged_in_with_the_fix(api: FakeAnthropic) -> None:
    rule = api.add_rule(PROBE, Reply(status=401, error_message="fake-401-marker"))
    code, doc, _ = doctor("--live", "--json")
    assert code == 3, doc
    assert doc["ok"] is False
    by_name = checks(doc)
    # The key is there (so the offline check passes); only the live call can tell.
    assert by_name["claude login"]["level"] == "ok"
    assert by_name["claude live call"] == {
        "name": "claude live call", "level": "fail", "detail": "Not logged in",
        "fix": CLAUDE_LOGIN_HINT,
    }  # fmt: skip
    assert [c["name"] for c in doc["checks"] if c["level"] == "fail"] == ["claude live call"]
    assert rule.count == 1 + CLAUDE_MAX_RETRIES  # the CLI's retries, bounded as in a turn

    # The same in the terminal: the table, and one line saying the path cannot run.
    code, _, text = doctor("--live")
    assert code == 3
    assert "claude live call" in text and "Not logged in" in text
    assert "collab: the default path cannot run here; see the fixes above" in text
