"""The installable name before and after the first upload: the README installs from a
clone and claims nothing about the package index until the release workflow's
``mark_published.py`` switches it (and the plugin's launcher) to ``collab-debate`` (the
script run as a process of its own: tests/e2e/test_release.py)."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]
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
