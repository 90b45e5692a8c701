"""What a run's setup keeps instead of doing again, and that it gives what doing it again
gives: a seat's prompt before anything was said (rendered once for the plan and the
turn), the preset files' text (read again only when a file changed) and their listing."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import pytest

from collab import presets
from collab.config import DebateConfig, Role
from collab.ledger import Issue, Ledger
from collab.planning import plan_for
from collab.prompt_views import TurnView
from collab.prompts import Prompts
from collab.request import DebateRequest, build_config

CFG = DebateConfig(
    topic="Should the cache be keyed on mtime?",
    role_a=Role("A", "Skeptic", "Distrusts caches."),
    role_b=Role("B", "Builder", "Wants it fast."),
    rounds=3,
)
ISSUE = Issue("I1", "a point", "A", "open", "evidence", "", round_opened=1, round_updated=1)


def test_a_bare_prompt_is_rendered_once_and_is_what_a_new_render_gives() -> None:
    p = Prompts("en")
    first = p.role(CFG, "A", 1, Ledger(), [], None, blind=True)
    template = p._templates["role.md.j2"]
    del p._templates["role.md.j2"]  # a render now fails: what comes back was kept
    assert p.role(CFG, "A", 1, Ledger(), [], None) == first
    p._templates["role.md.j2"] = template
    assert first == Prompts("en").role(CFG, "A", 1, Ledger(), [], None)


@pytest.mark.parametrize(
    "call",
    [
        lambda p, c: p.role(c, "B", 1, Ledger(), [], None),
        lambda p, c: p.role(c, "A", 2, Ledger(), [], None),
        lambda p, c: p.role(replace(c, topic="Another topic?"), "A", 1, Ledger(), [], None),
        lambda p, c: p.role(c, "A", 1, Ledger((ISSUE,)), [], None),
        lambda p, c: p.role(c, "A", 1, Ledger(), [TurnView(1, "B", "Builder", "x", "ok")], None),
        lambda p, c: p.role(c, "A", 1, Ledger(), [], "Think of the users."),
        lambda p, c: p.role(c, "A", 1, Ledger(), [], None, note="One more round."),
        lambda p, c: p.role(c, "A", 2, Ledger(), [], None, cross_check=True),
    ],
)
def test_a_kept_prompt_is_never_another_prompts(call: object) -> None:
    """Another seat, round, config, ledger, history, angle, note or a cross-check: the
    prompt a new Prompts renders, never the kept one."""
    p = Prompts("en")
    kept = p.role(CFG, "A", 1, Ledger(), [], None)
    got = call(p, CFG)  # type: ignore[operator]
    assert got == call(Prompts("en"), CFG)  # type: ignore[operator]
    assert got != kept
    assert p.role(CFG, "A", 1, Ledger(), [], None) == kept


def test_the_plan_renders_round_1_with_the_runs_prompts() -> None:
    p = Prompts("en")
    plan = plan_for(CFG, states=[], prompts=p)
    assert plan == plan_for(CFG, states=[])
    del p._templates["role.md.j2"]  # the turn's prompt is the one the plan measured
    assert p.role(CFG, "A", 1, Ledger(), [], None) == Prompts("en").role(
        CFG, "A", 1, Ledger(), [], None
    )


def _preset(name: str, desc: str = "Values alpha.") -> str:
    return (
        f'title = "T"\nsummary = "s"\n[role_a]\nname = "{name}"\ndescription = "{desc}"\n'
        '[role_b]\nname = "Beta"\ndescription = "Values beta."\n'
    )


def test_a_preset_edited_between_runs_is_read_again(hermetic_env: Path) -> None:
    """Same size, at once (its times may not have ticked): the new text, every time."""
    path = hermetic_env / "presets" / "mine.toml"
    path.parent.mkdir(parents=True)
    for name in ("Alpha", "Gamma", "Delta", "Alpha"):
        path.write_text(_preset(name), encoding="utf-8")
        assert presets.get_preset("mine").role_a.name == name
    path.write_text(_preset("Alpha", "Values alpha a lot."), encoding="utf-8")
    assert presets.get_preset("mine").role_a.description == "Values alpha a lot."
    path.unlink()
    with pytest.raises(presets.UsageError, match="unknown preset 'mine'"):
        presets.get_preset("mine")


def test_a_file_changed_as_it_was_read_is_read_again(
    hermetic_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its times had not ticked since (the same stat before and after the edit): a file
    changed so soon before its reading is never taken as kept."""
    path = hermetic_env / "presets" / "mine.toml"
    path.parent.mkdir(parents=True)
    path.write_text(_preset("Alpha"), encoding="utf-8")
    first = os.stat(path)
    real = os.stat

    def frozen(name: object, *args: object, **kwargs: object) -> os.stat_result:
        return first if str(name) == str(path) else real(name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(presets.os, "stat", frozen)
    assert presets.get_preset("mine").role_a.name == "Alpha"
    path.write_text(_preset("Gamma"), encoding="utf-8")
    assert presets.get_preset("mine").role_a.name == "Gamma"


def test_an_unchanged_preset_file_is_not_read_again(
    hermetic_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file last changed long before it was read is kept, until it changes."""
    path = hermetic_env / "presets" / "mine.toml"
    path.parent.mkdir(parents=True)
    path.write_text(_preset("Alpha"), encoding="utf-8")
    later = os.stat(path).st_ctime_ns + 10 * presets._RACY_NS
    monkeypatch.setattr(presets.time, "time_ns", lambda: later)
    before = presets.load_presets()
    reads: list[Path] = []
    read_text = Path.read_text

    def counted(self: Path, *args: object, **kwargs: object) -> str:
        reads.append(self)
        return read_text(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Path, "read_text", counted)
    assert presets.load_presets() == before
    assert reads == []
    path.write_text(_preset("Gamma"), encoding="utf-8")
    os.utime(path, ns=(0, 0))  # whatever its mtime says, it changed (its ctime)
    assert presets.get_preset("mine").role_a.name == "Gamma"
    assert reads == [path]


def test_the_preset_files_listed(hermetic_env: Path) -> None:
    """Links to files count, broken links, folders and other names do not; by name."""
    d = hermetic_env / "presets"
    d.mkdir()
    for name in ("b.toml", "a.toml", ".hidden.toml", "c.TOML", "notes.txt"):
        (d / name).write_text(_preset("Alpha"), encoding="utf-8")
    (d / "dir.toml").mkdir()
    (d / "link.toml").symlink_to(d / "a.toml")
    (d / "broken.toml").symlink_to(d / "missing.toml")
    (d / "loop.toml").symlink_to(d / "loop.toml")
    listed = presets._toml_files(d)
    assert [p.name for p in listed] == [".hidden.toml", "a.toml", "b.toml", "link.toml"]
    assert all(p.parent == d for p in listed)
    assert presets._toml_files(d / "none") == []


@pytest.mark.parametrize("preset", [None, "architecture-review", "nope"])
def test_build_config_names_the_preset_it_read(preset: str | None) -> None:
    req = DebateRequest(topic="Tabs or spaces?", preset=preset)
    if preset == "nope":
        with pytest.raises(presets.UsageError, match="unknown preset 'nope'"):
            build_config(req, ["claude", "codex"])
        return
    cfg = build_config(req, ["claude", "codex"])
    assert cfg.preset == presets.get_preset(preset or presets.DEFAULT_PRESET).key
