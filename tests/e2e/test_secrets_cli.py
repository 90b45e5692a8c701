"""Secrets never leave by accident: a debate or a batch whose inputs hold a secret stops
before anything is sent (exit 2, the file, line and kind, never the value);
``--allow-secrets`` sends them knowingly. Values are assembled here, never literals."""

from __future__ import annotations

import os
import random
import string
from pathlib import Path

from tests.conftest import Cli, FakeAgent, contract_block
from tests.helpers import Outcome

_RNG = random.Random(20261201)
GITHUB = "ghp" + "_" + "".join(_RNG.choice(string.ascii_letters + string.digits) for _ in range(36))
PASSWORD = "".join(_RNG.choice(string.ascii_letters + string.digits) for _ in range(14))


def collab(cli: Cli, *args: str, cwd: Path) -> Outcome:
    return cli.process(*args, cwd=cwd, env={"COLUMNS": "200"})


def runs() -> list[Path]:
    base = Path(os.environ["COLLAB_HOME"]) / "runs"
    return list(base.iterdir()) if base.is_dir() else []


def test_a_secret_in_a_context_file_stops_the_debate(
    cli: Cli, fake_agent: FakeAgent, tmp_path: Path
) -> None:
    fake_agent.script([], "A." + contract_block())
    ctx = tmp_path / "notes.md"
    ctx.write_text(f"# Deploy notes\n\nThe CI token is {GITHUB} for now.\n", encoding="utf-8")
    res = collab(cli, "debate", "Ship it?", "--agent", "fake", "--context", "notes.md",
                 "--runner", "subprocess", "--json", cwd=tmp_path)  # fmt: skip
    assert res.code == 2
    doc = res.json()
    message = doc["error"]["message"]
    assert "notes.md:3" in message and "GitHub Token" in message and "--allow-secrets" in message
    assert GITHUB not in res.out + res.err
    assert fake_agent.calls() == [] and runs() == []  # nothing sent, nothing started

    ok = collab(cli, "debate", "Ship it?", "--agent", "fake", "--context", "notes.md",
                "--runner", "subprocess", "--json", "--rounds", "2", "--allow-secrets",
                cwd=tmp_path)  # fmt: skip
    assert ok.code == 0, ok.err
    assert len(fake_agent.calls()) >= 4


def test_a_dotenv_file_is_refused_by_name_and_a_password_in_the_topic(
    cli: Cli, fake_agent: FakeAgent, tmp_path: Path
) -> None:
    (tmp_path / ".env").write_text("DEBUG=1\n", encoding="utf-8")
    res = collab(cli, "debate", "Ship it?", "--agent", "fake", "--context", ".env", cwd=tmp_path)
    assert res.code == 2
    assert ".env" in res.err and "dotenv" in res.err
    res = collab(cli, "debate", f"Rotate it? PASSWORD={PASSWORD}", "--agent", "fake", cwd=tmp_path)
    assert res.code == 2 and "topic line 1" in res.err
    assert PASSWORD not in res.err
    assert fake_agent.calls() == [] and runs() == []


def test_batch_applies_the_same_check_before_any_debate(
    cli: Cli, fake_agent: FakeAgent, tmp_path: Path
) -> None:
    (tmp_path / "ok.md").write_text("plain notes\n", encoding="utf-8")
    (tmp_path / "leak.md").write_text(f"token: {GITHUB}\n", encoding="utf-8")
    topics = tmp_path / "topics.yaml"
    topics.write_text(
        "- topic: Fine one\n  context: [ok.md]\n- topic: Leaky one\n  context: [leak.md]\n",
        encoding="utf-8",
    )
    res = collab(cli, "batch", str(topics), "--agent", "fake", "--runner", "subprocess",
                 cwd=tmp_path)  # fmt: skip
    assert res.code == 2
    assert "topics.yaml:3" in res.err and "leak.md:1" in res.err
    assert GITHUB not in res.err
    assert fake_agent.calls() == [] and runs() == []
