"""store.atomic_write, the one write-then-rename: the mode it is asked for, never half a
file, no temp file left behind."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from collab.store import atomic_write


@pytest.mark.parametrize(("test_id", "kwargs", "mode"), [
    ("private by default", {}, 0o600),
    ("a skill may be committed", {"mode": 0o644}, 0o644),
])  # fmt: skip
def test_mode(tmp_path: Path, test_id: str, kwargs: dict[str, int], mode: int) -> None:
    (tmp_path / "d").mkdir()
    path = tmp_path / "d" / "f.json"
    path.write_text("old")
    atomic_write(path, "new ✓", **kwargs)
    assert path.read_text(encoding="utf-8") == "new ✓"
    assert stat.S_IMODE(path.stat().st_mode) == mode
    assert [p.name for p in path.parent.iterdir()] == ["f.json"]


def test_a_failed_write_keeps_the_old_file_and_no_temp(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    path = tmp_path / "d" / "f.json"
    path.write_text("old")
    with pytest.raises(UnicodeEncodeError):
        atomic_write(path, "\udcff")  # a lone surrogate cannot be written as UTF-8
    assert path.read_text() == "old"
    assert [p.name for p in path.parent.iterdir()] == ["f.json"]


def test_a_path_in_the_working_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    atomic_write(Path("f.json"), "here")
    assert [p.name for p in tmp_path.iterdir()] == ["f.json"]
    assert (tmp_path / "f.json").read_text() == "here"
