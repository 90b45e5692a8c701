"""``python -m pytest`` itself, in a fresh process, as a developer runs it: a run of
tests/unit alone forks a worker per core this process may use (tests/every_core.py), and a
run reaching beyond tests/unit or kept on one core runs one test at a time
(tests/conftest.py, ``unit_on_every_core``: its rule is tested in
tests/unit/test_unit_on_every_core.py; here, the hooks around it)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
UNIT_FILE = "tests/unit/test_text.py"
UNIT_FILES = (UNIT_FILE, "tests/unit/test_events.py", "tests/unit/test_run_ids.py")


def pytest_run(*args: str, preexec: Callable[[], None] | None = None) -> tuple[int, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env["PYTHONPATH"] = str(ROOT)
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, preexec_fn=preexec,
    )  # fmt: skip
    return proc.returncode, proc.stdout + proc.stderr


def test_tests_unit_alone_forks_a_worker_per_core_it_may_use() -> None:
    cores = len(os.sched_getaffinity(0))
    code, out = pytest_run(*UNIT_FILES)
    assert code == 0, out
    if cores >= 2:
        assert f"on every core: {min(cores, 3)} workers took 3 files" in out, out
    else:
        assert "on every core" not in out, out


def test_on_one_core_it_runs_one_test_at_a_time() -> None:
    one = min(os.sched_getaffinity(0))
    code, out = pytest_run(*UNIT_FILES, preexec=lambda: os.sched_setaffinity(0, {one}))
    assert code == 0 and "on every core" not in out and " passed" in out, out


def test_a_run_beyond_tests_unit_runs_one_test_at_a_time() -> None:
    here = str(Path(__file__).relative_to(ROOT))
    code, out = pytest_run(UNIT_FILE, f"{here}::test_nothing_at_all")
    assert code == 0 and "on every core" not in out and " passed" in out, out
    code, out = pytest_run(*UNIT_FILES, "-x")
    assert code == 0 and "on every core" not in out, out


def test_nothing_at_all() -> None:
    """The one test of this file the runs above take beside tests/unit."""
