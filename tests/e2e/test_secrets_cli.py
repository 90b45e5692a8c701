"""Secrets never leave by accident: a debate or a batch whose inputs hold a secret stops
before anything is sent (exit 2, the file, line and kind, never the value);
``--allow-secrets`` sends them knowingly. Values are assembled here, never literals."""

from __future__ import annotations

import json
import os
import random
import string
import subprocess
import sys
from pathlib import Path

from tests.conftest import FakeAgent, contract_block

_RNG = random.Random(20261201)
GITHUB = "ghp" + "_" + "".join(_RNG.choice(string.ascii_letters + string.digits) for _ in range(36))
PASSWORD = "".join(_RNG.choice(string.ascii_letters + string.digits) for _ in range(14))


def collab(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "collab", *args], capture_output=True, text=True, timeout=120,
        stdin=subprocess.DEVNULL, cwd=cwd, env=dict(os.environ) | {"COLUMNS": "200"},
    )  # fmt: skip


def runs() -> list[Path]:
    base = Path(os.environ["COLLAB_HOME"]) / "runs"
    return list(base.iterdir()) if base.is_dir() else []


def test_a_secret_in_a_context_file_stops_the_debate(fake_agent: FakeAgent, tmp_path: Path) -> None:
    fake_agent.script([], "A." + contract_block())
    ctx = tmp_path / "notes.md"
    ctx.write_text(f"# Deploy notes\n\nThe CI token is {GITHUB} for now.\n", encoding="utf-8")
    res = collab("debate", "Ship it?", "--agent", "fake", "--context", "notes.md",
                 "--runner", "subprocess", "--json", cwd=tmp_path)  # fmt: skip
    assert res.returncode == 2
    doc = json.loads(res.stdout)
    message = doc["error"]["message"]
    assert "notes.md:3" in message and "GitHub Token" in message and "--allow-secrets" in message
    assert GITHUB not in res.stdout + res.stderr
    assert fake_agent.calls() == [] and runs() == []  # nothing sent, nothing started

    ok = collab("debate", "Ship it?", "--agent", "fake", "--context", "notes.md",
                "--runner", "subprocess", "--json", "--rounds", "2", "--allow-secrets",
                cwd=tmp_path)  # fmt: skip
    assert ok.returncode == 0, ok.stderr
    assert len(fake_agent.calls()) >= 4


def test_a_dotenv_file_is_refused_by_name_and_a_password_in_the_topic(
    fake_agent: FakeAgent, tmp_path: Path
) -> None:
    (tmp_path / ".env").write_text("DEBUG=1\n", encoding="utf-8")
    res = collab("debate", "Ship it?", "--agent", "fake", "--context", ".env", cwd=tmp_path)
    assert res.returncode == 2
    assert ".env" in res.stderr and "dotenv" in res.stderr
    res = collab("debate", f"Rotate it? PASSWORD={PASSWORD}", "--agent", "fake", cwd=tmp_path)
    assert res.returncode == 2 and "topic line 1" in res.stderr
    assert PASSWORD not in res.stderr
    assert fake_agent.calls() == [] and runs() == []


def test_batch_applies_the_same_check_before_any_debate(
    fake_agent: FakeAgent, tmp_path: Path
) -> None:
    (tmp_path / "ok.md").write_text("plain notes\n", encoding="utf-8")
    (tmp_path / "leak.md").write_text(f"token: {GITHUB}\n", encoding="utf-8")
    topics = tmp_path / "topics.yaml"
    topics.write_text(
        "- topic: Fine one\n  context: [ok.md]\n- topic: Leaky one\n  context: [leak.md]\n",
        encoding="utf-8",
    )
    res = collab("batch", str(topics), "--agent", "fake", "--runner", "subprocess",
                 cwd=tmp_path)  # fmt: skip
    assert res.returncode == 2
    assert "topics.yaml:3" in res.stderr and "leak.md:1" in res.stderr
    assert GITHUB not in res.stderr
    assert fake_agent.calls() == [] and runs() == []
