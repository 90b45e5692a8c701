"""Test fakes for collab: a fake Anthropic API, a scripted agent CLI, claude env helpers.

- ``FakeAnthropic`` / ``Reply``: the Messages API on 127.0.0.1, for the real ``claude``.
  (``fake_http`` holds the server machinery it shares with the OpenAI and Gemini fakes.)
- ``claude_binary()`` / ``claude_env()``: find the real CLI and run it offline.
- ``fake_agent.py``: a scripted agent CLI; ``FakeAgent`` (the ``fake_agent`` fixture)
  scripts it and reads its calls, ``fake_agent_argv`` runs it by hand.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .anthropic_server import FakeAnthropic, RecordedRequest, Reply, Rule
from .claude_env import SKIP_REASON, claude_binary, claude_env, claude_full_env

__all__ = [
    "FAKE_AGENT",
    "SKIP_REASON",
    "FakeAgent",
    "FakeAnthropic",
    "RecordedRequest",
    "Reply",
    "Rule",
    "claude_binary",
    "claude_env",
    "claude_full_env",
    "fake_agent_argv",
]

FAKE_AGENT = Path(__file__).resolve().with_name("fake_agent.py")


def fake_agent_argv(fmt: str = "claude-json", model: str | None = None) -> list[str]:
    """The command line that runs the fake agent with this interpreter.

    ``-S`` (no site import) is safe for the stdlib-only fake and saves ~10-20 ms.
    """
    argv = [sys.executable, "-S", str(FAKE_AGENT), "--format", fmt]
    if model:
        argv += ["--model", model]
    return argv


class FakeAgent:
    """The one way tests script the fake agent (``fake_agent`` fixture in tests/conftest.py).

    ``script(rules, default)`` writes the script it answers from — ``rules`` is
    ``[{"match": [SUBSTRING, ...], "replies": [ACTION, ...]}, ...]``, see
    tests/fakes/fake_agent.py for ACTION — and forgets the previous script's counters and
    calls; ``calls()`` lists what it was asked, ``counts()`` how many calls each rule
    answered. With ``home``, agents ``fake``, ``fake-stream`` (claude's stream-json) and
    ``fake-text`` are registered in ``home/config.toml`` (``--agent fake``).
    """

    def __init__(self, directory: Path, home: Path | None = None) -> None:
        self.dir = directory
        self.dir.mkdir(parents=True, exist_ok=True)
        self.path = self.dir / "script.json"
        if home is not None:
            (home / "config.toml").write_text(_config(), encoding="utf-8")
        self.script([], "fallback reply")

    @property
    def env(self) -> dict[str, str]:
        """The environment variable that points the fake at this script."""
        return {"COLLAB_FAKE_SCRIPT": str(self.path)}

    def script(
        self,
        rules: Sequence[Mapping[str, Any]],
        default: Mapping[str, Any] | str | None = None,
        *,
        fresh: bool = True,
    ) -> Path:
        """Answer from now on by ``rules`` (else ``default``). ``fresh=False`` keeps the
        counters and the call log: a script changed while a run goes on."""
        doc: dict[str, Any] = {"rules": [dict(r) for r in rules]}
        if default is not None:
            doc["default"] = default if isinstance(default, str) else dict(default)
        self.path.write_text(json.dumps(doc), encoding="utf-8")
        for suffix in (".state.json", ".calls.jsonl") if fresh else ():
            Path(f"{self.path}{suffix}").unlink(missing_ok=True)
        return self.path

    def rules(self) -> list[dict[str, Any]]:
        """The rules of the script in force (to change one and script them again)."""
        rules: list[dict[str, Any]] = json.loads(self.path.read_text(encoding="utf-8"))["rules"]
        return rules

    def calls(self) -> list[dict[str, Any]]:
        """Every call the fake logged for this script, oldest first."""
        log = Path(f"{self.path}.calls.jsonl")
        if not log.exists():
            return []
        lines = log.read_text(encoding="utf-8").splitlines()
        return [json.loads(line) for line in lines if line.strip()]

    def counts(self) -> dict[str, int]:
        """Calls answered per rule (keys ``"0"``, ``"1"``, … and ``"default"``)."""
        state = Path(f"{self.path}.state.json")
        if not state.exists():
            return {}
        text = state.read_text(encoding="utf-8")
        counts: dict[str, int] = json.loads(text).get("counts", {}) if text.strip() else {}
        return counts


def _config() -> str:
    entry = f"argv = [{json.dumps(sys.executable)}, {json.dumps(str(FAKE_AGENT))}, "
    return (
        "[agents.fake]\n"
        f'{entry}"--format", "claude-json"]\n'
        'model_argv = ["--model", "{model}"]\n'
        'output = "claude-json"\n'
        "[agents.fake-stream]\n"
        f'{entry}"--format", "claude-stream"]\n'
        'model_argv = ["--model", "{model}"]\n'
        'output = "claude-json"\n'
        "[agents.fake-text]\n"
        f'{entry}"--format", "text"]\n'
        'output = "text"\n'
    )
