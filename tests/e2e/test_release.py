"""``mark_published.py``, as the release workflow runs it (a process of its own; moved
from tests/unit: a unit test starts no process), switches the README and the plugin's
launcher to ``collab-debate`` and refuses a bad version."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from tests.unit.test_release import REPO, _commands

SCRIPT = REPO / ".github" / "scripts" / "mark_published.py"


def test_mark_published_switches_readme_and_launcher(tmp_path: Path) -> None:
    (tmp_path / ".claude-plugin").mkdir()
    shutil.copy2(REPO / ".claude-plugin" / "launch", tmp_path / ".claude-plugin" / "launch")
    shutil.copy2(REPO / "README.md", tmp_path / "README.md")
    for _ in range(2):  # idempotent
        subprocess.run([sys.executable, str(SCRIPT), "1.2.3", str(tmp_path)], check=True)
    readme = (tmp_path / "README.md").read_text(encoding="utf-8")
    lines = _commands(readme)
    assert any(line.startswith("pipx install collab-debate") for line in lines)
    assert "uv tool install collab-debate" in readme
    assert not any(line.startswith(("git clone", "pipx install .")) for line in lines)
    assert readme.count("<!-- install:end -->") == 1
    launcher = (tmp_path / ".claude-plugin" / "launch").read_text()
    assert 'PUBLISHED_VERSION="1.2.3"' in launcher


def test_mark_published_refuses_a_bad_version(tmp_path: Path) -> None:
    res = subprocess.run([sys.executable, str(SCRIPT), "latest", str(tmp_path)],
                         capture_output=True, text=True)  # fmt: skip
    assert res.returncode == 1 and "not a version" in res.stderr
