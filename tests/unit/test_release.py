"""The installable name before and after the first upload: the README installs from a
clone and claims nothing about the package index until the release workflow's
``mark_published.py`` switches it (and the plugin's launcher) to ``collab-debate``."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / ".github" / "scripts" / "mark_published.py"
_SH = re.compile(r"```sh\n(.*?)```", re.DOTALL)
_BY_NAME = re.compile(r"\b(?:pipx?|uv tool|uv pip)\s+install\s+['\"]?collab(?:-debate)?\b")


def _commands(markdown: str) -> list[str]:
    return [line for block in _SH.findall(markdown) for line in block.splitlines()]


def test_before_the_first_upload_the_readme_installs_from_a_clone() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    lines = _commands(readme)
    assert any(line.startswith("git clone ") for line in lines)
    assert any(line.startswith("pipx install .") for line in lines)
    assert not [line for line in lines if _BY_NAME.search(line)]  # nothing installs by name
    assert 'PUBLISHED_VERSION=""' in (REPO / ".claude-plugin" / "launch").read_text()


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


def test_release_workflow_builds_checks_and_uploads_with_a_trusted_publisher() -> None:
    wf = yaml.safe_load((REPO / ".github" / "workflows" / "release.yml").read_text())
    jobs = wf["jobs"]
    build = "\n".join(str(s.get("run", "")) for s in jobs["build"]["steps"])
    assert "python -m build" in build and "twine check" in build
    publish = jobs["publish"]
    assert publish["permissions"] == {"id-token": "write"}  # OIDC, no stored token
    uses = [s.get("uses", "") for s in publish["steps"]]
    assert any(u.startswith("pypa/gh-action-pypi-publish") for u in uses)
    mark = "\n".join(str(s.get("run", "")) for s in jobs["mark-published"]["steps"])
    assert "mark_published.py" in mark
