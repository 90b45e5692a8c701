"""collab.lazy: a deferred module loads on its first use, not on ``import``; a module
imported with postponed annotations does not evaluate a signature's names."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from collab.lazy import _Deferred, deferred, postponed_annotations


@pytest.fixture
def modules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A directory on sys.path for this test's own modules, forgotten afterwards."""
    monkeypatch.syspath_prepend(str(tmp_path))
    before = set(sys.modules)
    yield tmp_path
    for name in set(sys.modules) - before:
        del sys.modules[name]


def test_a_deferred_module_loads_on_first_use(modules: Path) -> None:
    (modules / "h_house_heavy.py").write_text("import sys\nLOADS = 1\nVALUE = 42\n")
    (modules / "h_house_user.py").write_text("import h_house_heavy\n")
    deferred("h_house_heavy")
    import h_house_user  # type: ignore[import-not-found]

    assert isinstance(sys.modules["h_house_heavy"], _Deferred)  # imported, not loaded
    assert h_house_user.h_house_heavy.VALUE == 42  # first use: loaded
    assert not isinstance(sys.modules["h_house_heavy"], _Deferred)
    assert sys.modules["h_house_heavy"].LOADS == 1
    assert h_house_user.h_house_heavy.LOADS == 1  # the stand-in keeps answering


def test_a_deferred_modules_file_is_read_without_loading_it(modules: Path) -> None:
    """What walks sys.modules reading each module's ``__file__`` (inspect.getmodule,
    Hypothesis's search for constants in local modules) loads no deferred module."""
    heavy = modules / "h_house_file.py"
    heavy.write_text("VALUE = 42\n")
    deferred("h_house_file")
    stand_in = sys.modules["h_house_file"]
    assert getattr(stand_in, "__file__", None) == str(heavy)
    assert isinstance(sys.modules["h_house_file"], _Deferred)  # still not loaded
    assert stand_in.VALUE == 42
    assert stand_in.__file__ == sys.modules["h_house_file"].__file__ == str(heavy)


def test_deferring_a_loaded_or_missing_module_changes_nothing(modules: Path) -> None:
    import json

    deferred("json")
    deferred("h_house_no_such_module")
    assert sys.modules["json"] is json
    assert "h_house_no_such_module" not in sys.modules


def test_a_failed_load_raises_and_can_be_retried(modules: Path) -> None:
    heavy = modules / "h_house_broken.py"
    heavy.write_text("raise RuntimeError('not yet')\n")
    deferred("h_house_broken")
    stand_in = sys.modules["h_house_broken"]
    with pytest.raises(RuntimeError, match="not yet"):
        stand_in.anything  # noqa: B018
    assert sys.modules["h_house_broken"] is stand_in
    heavy.write_text("anything = 1\n")
    assert stand_in.anything == 1


def test_postponed_annotations_leave_a_deferred_module_unloaded(modules: Path) -> None:
    (modules / "h_house_http.py").write_text("class Response:\n    pass\n")
    package = modules / "h_house_pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "plugin.py").write_text(
        "import h_house_http\n\n"
        "def fetch() -> h_house_http.Response:\n    return h_house_http.Response()\n"
    )
    deferred("h_house_http")
    postponed_annotations("h_house_pkg.plugin")
    import h_house_pkg.plugin  # type: ignore[import-not-found]

    assert isinstance(sys.modules["h_house_http"], _Deferred)
    assert h_house_pkg.plugin.fetch.__annotations__ == {"return": "h_house_http.Response"}
    assert sys.modules["h_house_pkg"].plugin is sys.modules["h_house_pkg.plugin"]
    assert type(h_house_pkg.plugin.fetch()).__name__ == "Response"  # works when called
