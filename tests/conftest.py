"""Hermetic tests: private COLLAB_HOME and HOME, no inherited tmux or Claude Code session."""

from __future__ import annotations

import gc
import importlib.abc
import importlib.machinery
import json
import os
import sys
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from importlib.machinery import ModuleSpec
from pathlib import Path

import pytest

from tests.every_core import EveryCore
from tests.fakes import FakeAgent
from tests.helpers import LEAKY, Cli, processes_of, wait_until

__all__ = ["Cli", "FakeAgent", "contract_block"]


_KINDS = {"unit": "unit", "e2e": "e2e", "real": "real"}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Each test is marked by its directory: ``-m unit``, ``-m "not real"``, ..."""
    root = Path(__file__).parent
    kinds: dict[Path, str | None] = {}  # a module's kind, worked out once for its tests
    for item in items:
        if item.path not in kinds:
            parts = item.path.relative_to(root).parts
            kinds[item.path] = _KINDS.get(parts[0]) if len(parts) > 1 else None
        kind = kinds[item.path]
        if kind is not None:
            item.add_marker(kind)


UNIT = Path(__file__).parent / "unit"


def unit_on_every_core(config: pytest.Config, cores: int, env: Mapping[str, str]) -> bool:
    """Whether this run is whole files or folders of ``tests/unit`` alone, to be run on every
    core (tests/every_core.py: forked workers that each collect the files they take). Not
    when the run must stop at a failure (``-x``, ``--maxfail``, ``--sw``/``--stepwise``:
    a worker finishes the file it took), debugs (``--pdb``, ``--trace``: two workers would
    share one terminal), picks tests by what failed before (``--lf``, ``--ff``, ``--nf``:
    that choice is made over the whole collection), only collects, names tests inside a
    file (``file::test``), or runs under mutmut (whose per-test bookkeeping lives in one
    process); nor on one core, nor when any path given lies outside tests/unit (the whole
    suite, e2e: tmux servers and processes stay one test at a time)."""
    opt = config.option
    if getattr(opt, "numprocesses", None) or opt.maxfail or opt.collectonly:
        return False
    stepwise = ("stepwise", "stepwise_skip", "stepwise_reset")  # (read before it sets the first)
    picks = ("lf", "failedfirst", "newfirst")  # the cache provider's, when it is loaded
    if opt.usepdb or opt.trace or any(getattr(opt, name, False) for name in (*stepwise, *picks)):
        return False
    if cores < 2 or "MUTANT_UNDER_TEST" in env or not config.args:
        return False
    here = Path(config.invocation_params.dir)
    return all(
        "::" not in arg and (here / arg).resolve().is_relative_to(UNIT) for arg in config.args
    )


# Libraries that ship a pytest plugin. pytest marks every module of such a distribution for
# assertion rewriting, and PYTHONDONTWRITEBYTECODE=1 (this machine's, CI's) keeps no cache of
# it: importing Hypothesis rewritten cost ~1.3 s of CPU more than importing it as Python does
# (1.47 s against 0.15 s), in every run, since its pytest plugin imports it at the end of
# any run (and tests/every_core.py before the fork, where the other core waits for it).
# Their asserts are their own invariants, not our tests'; our tests and conftests are
# rewritten as before.
NOT_REWRITTEN = frozenset({"hypothesis", "libtmux", "anyio"})


class ImportedAsPythonDoes(importlib.abc.MetaPathFinder):
    """Finds the modules of the ``packages`` as Python's own path finder does, ahead of
    pytest's assertion-rewriting import hook (which then never sees them)."""

    def __init__(self, packages: frozenset[str]) -> None:
        self.packages = packages

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: object = None
    ) -> ModuleSpec | None:
        if fullname.partition(".")[0] not in self.packages:
            return None
        return importlib.machinery.PathFinder.find_spec(fullname, path)


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    """Third-party plugins' libraries imported without assertion rewriting (see
    :data:`NOT_REWRITTEN`); ``python -m pytest tests/unit`` on every core (see
    :func:`unit_on_every_core`); ``-p no:every_core`` runs it one test at a time."""
    finder = ImportedAsPythonDoes(NOT_REWRITTEN)
    sys.meta_path.insert(0, finder)
    config.add_cleanup(lambda: sys.meta_path.remove(finder))
    cores = len(os.sched_getaffinity(0))  # this process's, not the machine's (a cpuset)
    if unit_on_every_core(config, cores, os.environ):
        config.pluginmanager.register(EveryCore(cores), "every_core")


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_collection(session: pytest.Session) -> Iterator[None]:
    """Collection with the cyclic garbage collector off: importing and rewriting every test
    module makes millions of short-lived AST nodes, freed by their counts, over which the
    collector's passes found nothing to free (~0.5 s of ~3 s, --collect-only of tests/unit).
    Then what is imported and collected by now, which lives to the end of the session, is
    frozen out of its way: a full collection while tests run walks only what the tests
    made, not every imported module and collected item again (~1 s of 2,000 unit tests)."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        return (yield)
    finally:
        if was_on:
            gc.enable()
        gc.freeze()


@pytest.fixture
def private_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A new empty folder under the session's base temp (mkdtemp): not ``tmp_path``, whose
    numbered folder and "current" symlink cost every test ~ms, most of which never use it.
    tests/unit/conftest.py has a hermetic_env of its own, on tmpfs."""
    return Path(tempfile.mkdtemp(prefix="collab-home-", dir=tmp_path_factory.getbasetemp()))


@pytest.fixture(autouse=True)
def hermetic_env(private_home: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("COLLAB_HOME", str(private_home))
    monkeypatch.setenv("SHELL", "/bin/bash")
    for name in LEAKY:
        monkeypatch.delenv(name, raising=False)
    yield private_home


@pytest.fixture
def no_agent_processes(hermetic_env: Path) -> Iterator[None]:
    """Fail a test that leaves a process of its own behind: an agent, a pane's shell, a
    collab (anything that inherited this test's COLLAB_HOME; tmux servers aside, which
    the ``server`` fixture reaps). Other tests' processes never count. Name it first
    among a test's fixtures, so that it checks after the others have cleaned up."""
    yield
    if not wait_until(lambda: not processes_of(hermetic_env), 10):
        left = {pid: _cmdline(pid) for pid in processes_of(hermetic_env)}
        pytest.fail(f"processes left behind: {left}")


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return "?"


@pytest.fixture
def fake_agent(hermetic_env: Path, monkeypatch: pytest.MonkeyPatch) -> FakeAgent:
    """The scripted agent, registered as ``fake`` (see tests.fakes.FakeAgent)."""
    agent = FakeAgent(hermetic_env / "fake", home=hermetic_env)
    monkeypatch.setenv("COLLAB_FAKE_SCRIPT", str(agent.path))
    return agent


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Cli:
    """``collab ARGS``: ``cli(...)`` in this process, ``cli.process(...)`` / ``cli.popen(...)``
    as its own (see tests.helpers.Cli). Rich wraps at 200 columns; temp files go under
    the test's tmp_path unless the test set its own temp dir first."""
    monkeypatch.setenv("COLUMNS", "200")  # rich wraps at 80 columns when not on a terminal
    if tempfile.tempdir is None:  # a test's own temp dir (set by a fixture before) stays
        tmp = tmp_path / "cli-tmp"
        tmp.mkdir()
        monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    return Cli(capsys, monkeypatch)


def contract_block(
    new: list[tuple[str, str]] | None = None,
    stances: list[tuple[str, str, str]] | None = None,
    abstain: str | None = None,
) -> str:
    """A reply's closing ```json block, as a debater must write it."""
    doc = {
        "new_points": [{"title": t, "evidence": e} for t, e in (new or [])],
        "stances": [{"id": i, "stance": s, "evidence": e} for i, s, e in (stances or [])],
        "abstain": abstain,
    }
    return "\n\n```json\n" + json.dumps(doc) + "\n```\n"
