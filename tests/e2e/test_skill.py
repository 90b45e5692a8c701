"""The Claude Code skill: one source (skills/collab/SKILL.md, the plugin's) that
``collab skill install`` writes, its text, and installing it without clobbering edits."""

from __future__ import annotations

import re
import stat
from pathlib import Path

import pytest

from collab.errors import UsageError
from collab.presets import load_presets
from collab.skill import InstallResult, default_skill_dir, install_skill, skill_path, skill_text
from tests.helpers import PRESET_KEYS, Cli

PRESETS = PRESET_KEYS
REPO = Path(__file__).resolve().parents[2]
PLUGIN_SKILL = REPO / "skills" / "collab" / "SKILL.md"


@pytest.fixture(autouse=True)
def tmp_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    return home


def front_matter(text: str) -> tuple[dict[str, str], str]:
    """Parse the ``---`` block; with PyYAML present, it must agree with a YAML parser."""
    m = re.match(r"\A---\n(.*?)\n---\n(.*)\Z", text, re.DOTALL)
    assert m, "SKILL.md must start with a --- front matter block"
    fields: dict[str, str] = {}
    for line in m[1].splitlines():
        key, sep, value = line.partition(":")
        assert sep and key.strip() == key and key, f"not a simple key: value line: {line!r}"
        fields[key] = value.strip()
    try:
        import yaml
    except ImportError:
        return fields, m[2]
    assert yaml.safe_load(m[1]) == fields
    return fields, m[2]


def test_front_matter_has_name_and_description() -> None:
    fields, body = front_matter(skill_text())
    assert fields["name"] == "collab"
    desc = fields["description"]
    assert 40 <= len(desc) <= 1024
    assert "design decision" in desc and "trade-off" in desc
    assert body.strip()


def test_body_covers_the_contract() -> None:
    _, body = front_matter(skill_text())
    for must in (
        "--preset NAME --runner subprocess --detach --json",
        "--topic-file",
        "debate_start",
        "debate_status",
        "debate_result",
        "wait_s",
        "collab status RUN_ID --wait",
        "collab result RUN_ID",
        "collab cancel RUN_ID",
        "--role-a",
        "--role-b",
        "--context PATH",
        "collab.result/2",
        "collab.error/1",
        "collab resume",
        "collab batch topics.txt --json",
        "cost_usd_by_role",
        "stop_reason",
        "paths.transcript",
        "judge.fallback",
        "130",
        "tmux",
    ):
        assert must in body, must
    for code in ("| 0 |", "| 1 |", "| 2 |", "| 3 |", "| 130 |"):
        assert code in body


@pytest.mark.parametrize("preset", PRESETS)
def test_body_names_every_preset(preset: str) -> None:
    assert f"`{preset}`" in skill_text()


def test_presets_in_skill_match_the_shipped_ones() -> None:
    """The skill's preset table lists exactly the presets collab ships."""
    _, body = front_matter(skill_text())
    section = body.split("## Pick a preset", 1)[1].split("\n## ", 1)[0]
    table = re.findall(r"^\| `([a-z0-9-]+)`(?: \(default\))? \|", section, re.MULTILINE)
    shipped = {k for k, p in load_presets().items() if p.source == "builtin"}
    assert sorted(table) == sorted(shipped) == sorted(PRESETS)
    assert "`advocate-vs-devils-advocate` (default)" in body


def test_no_shell_quoting_lessons() -> None:
    """The topic never goes on a command line, so the skill teaches no quoting."""
    body = skill_text()
    assert "single quote" not in body and "'\\''" not in body
    assert 'collab debate "TOPIC"' not in body


def test_one_source_for_the_plugin_and_skill_install(cli: Cli, tmp_path: Path) -> None:
    """``collab skill show``/``install``, run as the installed command (from a directory
    where the source tree is not importable), give the plugin's SKILL.md byte for byte."""
    assert skill_path().read_bytes() == PLUGIN_SKILL.read_bytes()
    env = {"HOME": str(tmp_path)}
    shown = cli.popen("skill", "show", cwd=tmp_path, env=env, text=False)  # bytes, as written
    out, err = shown.communicate(timeout=60)
    assert shown.returncode == 0, err
    assert out == PLUGIN_SKILL.read_bytes()
    dest = str(tmp_path / "s")
    done = cli.process("skill", "install", "--dir", dest, cwd=tmp_path, env=env, timeout=60)
    assert done.code == 0, done.err
    assert (tmp_path / "s" / "SKILL.md").read_bytes() == PLUGIN_SKILL.read_bytes()


def test_default_dirs(tmp_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert default_skill_dir() == tmp_home / ".claude" / "skills" / "collab"
    project = tmp_path / "proj"
    project.mkdir()
    monkeypatch.chdir(project)
    assert default_skill_dir(project=True) == project / ".claude" / "skills" / "collab"


def test_install_then_unchanged(tmp_home: Path) -> None:
    dest = default_skill_dir()
    first = install_skill(dest, force=False)
    assert first == InstallResult(dest / "SKILL.md", "installed")
    assert first.path.read_text(encoding="utf-8") == skill_text()
    assert stat.S_IMODE(first.path.stat().st_mode) == 0o644
    second = install_skill(dest, force=False)
    assert second.action == "unchanged"
    assert [p.name for p in dest.iterdir()] == ["SKILL.md"]  # no temp files left


def test_refuses_to_overwrite_an_edited_file(tmp_path: Path) -> None:
    dest = tmp_path / "skills" / "collab"
    install_skill(dest, force=False)
    edited = "---\nname: collab\ndescription: mine\n---\nmy notes\n"
    (dest / "SKILL.md").write_text(edited, encoding="utf-8")
    with pytest.raises(UsageError, match="exists and differs; pass --force to overwrite"):
        install_skill(dest, force=False)
    assert (dest / "SKILL.md").read_text(encoding="utf-8") == edited
    assert [p.name for p in dest.iterdir()] == ["SKILL.md"]


def test_force_overwrites(tmp_path: Path) -> None:
    dest = tmp_path / "skills" / "collab"
    dest.mkdir(parents=True)
    (dest / "SKILL.md").write_text("old", encoding="utf-8")
    result = install_skill(dest, force=True)
    assert result.action == "updated"
    assert result.path.read_text(encoding="utf-8") == skill_text()
    assert install_skill(dest, force=True).action == "unchanged"


def test_a_directory_in_the_way_is_a_usage_error(tmp_path: Path) -> None:
    dest = tmp_path / "collab"
    (dest / "SKILL.md").mkdir(parents=True)
    with pytest.raises(UsageError, match="is a directory"):
        install_skill(dest, force=True)


def test_unwritable_destination_is_a_usage_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x", encoding="utf-8")
    with pytest.raises(UsageError, match="cannot write"):
        install_skill(blocker / "collab", force=False)
