"""When ``python -m pytest`` runs tests/unit on every core (tests/conftest.py), and when it
keeps one test at a time."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from tests.conftest import UNIT, unit_on_every_core

ROOT = UNIT.parent.parent


def config(*args: str, here: Path = ROOT, plugin: bool = True, **options: Any) -> Any:
    option = {
        "parallel_mode": None, "maxfail": 0, "usepdb": False, "trace": False,
        "collectonly": False, "stepwise": False, "stepwise_skip": False, "stepwise_reset": False,
    }  # fmt: skip
    return SimpleNamespace(
        option=SimpleNamespace(**{**option, **options}),
        pluginmanager=SimpleNamespace(hasplugin=lambda name: plugin and name == "parallex"),
        args=list(args),
        invocation_params=SimpleNamespace(dir=here),
    )


@pytest.mark.parametrize(
    "args",
    [
        ("tests/unit",),
        ("tests/unit/",),
        ("tests/unit/test_text.py",),
        ("tests/unit/test_text.py::test_clean", "tests/unit/test_events.py"),
        ("tests/unit/test_text.py::test_x[a/b::c]",),
        (str(UNIT),),
    ],
)
def test_tests_unit_alone_runs_on_every_core(args: tuple[str, ...]) -> None:
    assert unit_on_every_core(config(*args), 2, {})


def test_a_path_is_read_from_where_pytest_was_started() -> None:
    assert unit_on_every_core(config("unit", here=ROOT / "tests"), 2, {})
    assert unit_on_every_core(config(".", here=UNIT), 2, {})
    assert not unit_on_every_core(config("unit", here=ROOT), 2, {})


@pytest.mark.parametrize(
    "args",
    [
        (),
        ("tests",),
        ("tests/e2e",),
        (".",),
        ("tests/unit", "tests/e2e/test_batch.py"),
        ("tests/unit/../e2e",),
        ("tests/unitx",),
    ],
)
def test_anything_beyond_tests_unit_runs_one_test_at_a_time(args: tuple[str, ...]) -> None:
    assert not unit_on_every_core(config(*args), 2, {})


@pytest.mark.parametrize(
    ("options", "cores", "env", "plugin"),
    [
        ({"parallel_mode": "thread"}, 2, {}, True),  # chosen on the command line
        ({"numprocesses": 2}, 2, {}, True),  # xdist's -n
        ({"maxfail": 1}, 2, {}, True),  # -x
        ({"usepdb": True}, 2, {}, True),
        ({"trace": True}, 2, {}, True),
        ({"stepwise": True}, 2, {}, True),
        ({"stepwise_skip": True}, 2, {}, True),
        ({"stepwise_reset": True}, 2, {}, True),
        ({"collectonly": True}, 2, {}, True),
        ({}, 1, {}, True),
        ({}, 2, {"MUTANT_UNDER_TEST": "stats"}, True),
        ({}, 2, {}, False),  # -p no:parallex, or not installed
    ],
    ids=[
        "--parallel",
        "-n",
        "-x",
        "--pdb",
        "--trace",
        "--sw",
        "--sw-skip",
        "--sw-reset",
        "--collect-only",
        "one-core",
        "mutmut",
        "no-plugin",
    ],
)
def test_one_test_at_a_time(
    options: dict[str, Any], cores: int, env: dict[str, str], plugin: bool
) -> None:
    assert unit_on_every_core(config("tests/unit"), 2, {})  # the same run, otherwise
    assert not unit_on_every_core(config("tests/unit", plugin=plugin, **options), cores, env)
