"""Test fakes for collab: a fake Anthropic API, a scripted agent CLI, claude env helpers.

- ``FakeAnthropic`` / ``Reply``: the Messages API on 127.0.0.1, for the real ``claude``.
  (``fake_http`` holds the server machinery it shares with the OpenAI and Gemini fakes.)
- ``claude_binary()`` / ``claude_env()``: find the real CLI and run it offline.
- ``fake_agent.py``: a scripted agent CLI; ``write_script`` / ``fake_agent_argv`` /
  ``read_calls`` / ``read_counts`` drive it from tests.
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
    "FakeAnthropic",
    "RecordedRequest",
    "Reply",
    "Rule",
    "claude_binary",
    "claude_env",
    "claude_full_env",
    "fake_agent_argv",
    "read_calls",
    "read_counts",
    "write_script",
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


def write_script(
    path: Path,
    rules: Sequence[tuple[str | Sequence[str], Sequence[Mapping[str, Any] | str]]] = (),
    default: Mapping[str, Any] | str | None = None,
) -> Path:
    """Write a fake agent script; ``rules`` is ``[(match, [ACTION, ...]), ...]``.

    Any state and call log from a previous script at ``path`` are removed.
    """
    script: dict[str, Any] = {
        "rules": [
            {
                "match": [match] if isinstance(match, str) else list(match),
                "replies": [dict(r) if not isinstance(r, str) else r for r in replies],
            }
            for match, replies in rules
        ]
    }
    if default is not None:
        script["default"] = default if isinstance(default, str) else dict(default)
    path.write_text(json.dumps(script, indent=1), encoding="utf-8")
    for suffix in (".state.json", ".calls.jsonl"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    return path


def read_calls(script: Path) -> list[dict[str, Any]]:
    """Every call the fake agent logged for ``script``, oldest first."""
    log = Path(f"{script}.calls.jsonl")
    if not log.exists():
        return []
    lines = log.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def read_counts(script: Path) -> dict[str, int]:
    """Calls answered per rule (keys ``"0"``, ``"1"``, … and ``"default"``)."""
    state = Path(f"{script}.state.json")
    if not state.exists():
        return {}
    text = state.read_text(encoding="utf-8")
    counts: dict[str, int] = json.loads(text).get("counts", {}) if text.strip() else {}
    return counts
