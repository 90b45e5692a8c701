"""When ``python -m pytest`` runs tests/unit on every core (tests/conftest.py), and when it
keeps one test at a time."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from tests.conftest import UNIT, unit_on_every_core

ROOT = UNIT.parent.parent


def config(*args: str, here: Path = ROOT, **options: Any) -> Any:
    option = {
        "maxfail": 0, "usepdb": False, "trace": False, "collectonly": False,
        "stepwise": False, "stepwise_skip": False, "stepwise_reset": False,
        "lf": False, "failedfirst": False, "newfirst": False,
    }  # fmt: skip
    return SimpleNamespace(
        option=SimpleNamespace(**{**option, **options}),
        args=list(args),
        invocation_params=SimpleNamespace(dir=here),
    )


@pytest.mark.parametrize(
    "args",
    [
        ("tests/unit",),
        ("tests/unit/",),
        ("tests/unit/test_text.py",),
        ("tests/unit/test_text.py", "tests/unit/test_events.py"),
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
    "args",
    [
        ("tests/unit/test_text.py::test_clean",),
        ("tests/unit/test_text.py::test_clean", "tests/unit/test_events.py"),
        ("tests/unit/test_text.py::test_x[a/b::c]",),
    ],
)
def test_tests_named_inside_a_file_run_one_at_a_time(args: tuple[str, ...]) -> None:
    """Picking a file's tests means importing it to find them: that stays one process's."""
    assert not unit_on_every_core(config(*args), 2, {})


@pytest.mark.parametrize(
    ("options", "cores", "env"),
    [
        ({"numprocesses": 2}, 2, {}),  # xdist's -n, were it installed
        ({"maxfail": 1}, 2, {}),  # -x
        ({"usepdb": True}, 2, {}),
        ({"trace": True}, 2, {}),
        ({"stepwise": True}, 2, {}),
        ({"stepwise_skip": True}, 2, {}),
        ({"stepwise_reset": True}, 2, {}),
        ({"lf": True}, 2, {}),
        ({"failedfirst": True}, 2, {}),
        ({"newfirst": True}, 2, {}),
        ({"collectonly": True}, 2, {}),
        ({}, 1, {}),
        ({}, 2, {"MUTANT_UNDER_TEST": "stats"}),
    ],
    ids=[
        "-n",
        "-x",
        "--pdb",
        "--trace",
        "--sw",
        "--sw-skip",
        "--sw-reset",
        "--lf",
        "--ff",
        "--nf",
        "--collect-only",
        "one-core",
        "mutmut",
    ],
)
def test_one_test_at_a_time(options: dict[str, Any], cores: int, env: dict[str, str]) -> None:
    assert unit_on_every_core(config("tests/unit"), 2, {})  # the same run, otherwise
    assert not unit_on_every_core(config("tests/unit", **options), cores, env)
