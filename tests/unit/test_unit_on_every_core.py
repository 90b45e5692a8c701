"""When ``python -m pytest`` runs tests/unit on every core (tests/conftest.py), and when it
keeps one test at a time."""

from __future__ import annotations

import io
import os
import pickle
import signal
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from tests import every_core
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


def worker(into: int = -1) -> Any:
    """A worker's message-sending part, without a session to run."""
    run = object.__new__(every_core._Run)
    run.into, run.interrupted, run.sending, run.stopping = into, False, False, False
    run.known = frozenset(sys.modules)
    return run


def read_all(fd: int) -> bytearray:
    out = bytearray()
    while chunk := os.read(fd, 1 << 16):
        out += chunk
    return out


@pytest.mark.parametrize("stopping", [False, True], ids=["at-work", "sending-what-was-done"])
def test_a_ctrl_c_while_a_message_is_written_comes_after_it_whole(
    monkeypatch: pytest.MonkeyPatch, stopping: bool
) -> None:
    """^C reaches a worker between two partial writes of a message (a pipe takes what it
    has room for): the message is still written whole, then the interrupt is raised (not
    while the worker is already sending what it did after one), and the main process reads
    the messages as they were sent."""
    out, into = os.pipe()
    run = worker(into)
    run.stopping = stopping
    real_write = os.write

    def write_in_pieces(fd: int, data: Any) -> int:
        if not run.interrupted:  # the signal, as it comes between two writes
            run._on_interrupt(signal.SIGINT, None)
        return real_write(fd, bytes(data[:7]))

    monkeypatch.setattr(every_core.os, "write", write_in_pieces)
    first = ("results", [("test", {"nodeid": "t::a", "outcome": "passed"})])
    if stopping:
        run._send(first)
    else:
        with pytest.raises(KeyboardInterrupt):
            run._send(first)
    run.stopping = True  # (as the worker's handler of ^C does)
    run._send(("done",))
    os.close(into)
    buffer = read_all(out)
    os.close(out)
    assert every_core._messages(buffer) == [first, ("done",)] and not buffer


class OfThisModule:
    def __str__(self) -> str:
        return "of this module"


def test_a_value_the_main_process_cannot_have_is_sent_as_its_text() -> None:
    """record_property's values: as they are when they pickle and the main process has
    their classes' modules; else their text (what --junitxml writes of any value)."""

    class Local:
        def __str__(self) -> str:
            return "local"

    run = worker()
    plain = {"a": [1, 2.5, None], "b": ("x", b"y")}
    assert run._travels(plain) is plain
    assert run._travels(Local()) == "local"  # does not pickle
    mine = OfThisModule()
    assert run._travels(mine) is mine
    run.known = frozenset(sys.modules) - {__name__}  # as forked: this module not imported
    assert run._travels(mine) == "of this module"
    assert run._travels(plain) is plain
    path = Path("x")  # a class of a module the main process has: itself
    assert run._travels(path) is path
    assert every_core._Known(io.BytesIO(pickle.dumps(path)), run.known).load() == path
