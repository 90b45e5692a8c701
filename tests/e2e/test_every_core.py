"""tests/every_core.py, the forked runner of tests/unit, on a small suite of its own: what a run
reports on every core is what the same run reports one test at a time (outcomes, summary,
exit code, the terminal's lines), whatever its tests do — fail, error in setup or teardown,
skip, xfail, warn, print; a module-scoped fixture is set up once, each worker's session
fixtures are torn down; a file that fails to import, and a worker that dies, are reported."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.helpers import wait_until

ROOT = Path(__file__).resolve().parents[2]

CONFTEST = """
import os
import pytest
from tests.every_core import EveryCore

def pytest_configure(config):
    config.pluginmanager.register(EveryCore(2), "every_core")

@pytest.fixture(scope="session", autouse=True)
def session_marker(tmp_path_factory):
    yield
    marks = os.environ["MARKS"]
    with open(os.path.join(marks, f"session-{os.getpid()}"), "w") as fh:
        fh.write("torn down")
"""

FILES = {
    "test_outcomes.py": """
        import sys, warnings, pytest

        def test_passes():
            assert True

        def test_fails_with_a_diff():
            print("captured before the failure")
            assert {"a": 1, "b": [1, 2]} == {"a": 1, "b": [1, 3]}

        @pytest.fixture
        def broken_setup():
            raise RuntimeError("setup went wrong")

        def test_errors_in_setup(broken_setup):
            pass

        @pytest.fixture
        def broken_teardown():
            yield
            raise RuntimeError("teardown went wrong")

        def test_errors_in_teardown(broken_teardown):
            pass

        @pytest.mark.skip(reason="not today")
        def test_skipped():
            pass

        @pytest.mark.xfail(reason="known")
        def test_xfails():
            assert False

        @pytest.mark.xfail(reason="known")
        def test_xpasses():
            pass

        def test_warns():
            warnings.warn("mind this", UserWarning)

        @pytest.mark.parametrize("n", range(12))
        def test_many(n):
            assert n >= 0
    """,
    "test_module_scope.py": """
        import os, pytest

        @pytest.fixture(scope="module")
        def once():
            path = os.path.join(os.environ["MARKS"], f"module-{os.getpid()}-{id(object())}")
            open(path, "w").close()
            return path

        @pytest.mark.parametrize("n", range(20))
        def test_uses_it(once, n, tmp_path):
            assert os.path.exists(once)
            (tmp_path / "made").write_text(str(n))
    """,
    "test_more.py": """
        import pytest

        @pytest.mark.parametrize("n", range(30))
        def test_more(n, tmp_path):
            assert n < 30 and not list(tmp_path.iterdir())
            (tmp_path / "made").write_text(str(n))

        def test_selected_by_k_only():
            pass
    """,
    "test_skipped_whole.py": """
        import pytest
        pytest.skip("this file is not for here", allow_module_level=True)
    """,
}


def run(tree: Path, *args: str, marks: Path, cache: bool = False) -> tuple[int, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env.update(PYTHONPATH=str(ROOT), MARKS=str(marks), PYTEST_DEBUG_TEMPROOT=str(marks))
    no_cache = [] if cache else ["-p", "no:cacheprovider"]
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", *no_cache, "-rA", str(tree), *args],
        cwd=tree, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    return proc.returncode, proc.stdout + proc.stderr


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "suite"
    root.mkdir()
    (root / "conftest.py").write_text(CONFTEST, encoding="utf-8")
    (root / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    for name, text in FILES.items():
        (root / name).write_text(textwrap.dedent(text), encoding="utf-8")
    return root


def marks_dir(tmp_path: Path, name: str) -> Path:
    path = tmp_path / name
    path.mkdir()
    return path


def summary(out: str) -> str:
    """The last line, without its time."""
    return re.sub(r" in [\d.]+s", "", out.strip().splitlines()[-1]).strip("= ")


def collected(out: str) -> str:
    return next(line for line in out.splitlines() if line.startswith("collected"))


def outcomes(out: str) -> list[str]:
    """The short test summary's lines, sorted (the workers' order is not one process's)."""
    start = out.index("short test summary info")
    lines = out[start:].splitlines()[1:]
    return sorted(
        line for line in lines if re.match(r"(PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)", line)
    )


def test_a_run_on_every_core_reports_what_a_run_in_one_process_does(
    tree: Path, tmp_path: Path
) -> None:
    one_code, one = run(tree, "-p", "no:every_core", marks=marks_dir(tmp_path, "one"))
    marks = marks_dir(tmp_path, "every")
    code, out = run(tree, marks=marks)
    assert "on every core: 2 workers took 4 files" in out, out
    assert "on every core" not in one, one
    assert (code, summary(out)) == (one_code, summary(one)) == (1, summary(one)), out
    assert "1 failed" in summary(out) and "2 errors" in summary(out) and "1 warning" in summary(out)
    assert outcomes(out) == outcomes(one), out
    assert collected(out) == collected(one) == "collected 71 items / 1 skipped", out
    for text in (one, out):
        assert "test_outcomes.py::test_warns" in text and "UserWarning: mind this" in text, text
        assert "captured before the failure" in text, text
        assert "AssertionError: assert {'a': 1, 'b': [1, 2]} == {'a': 1, 'b': [1, 3]}" in text, text
        assert "RuntimeError: setup went wrong" in text and "teardown went wrong" in text, text
    # Each file's tests under its own name, as pytest writes them in one process.
    assert re.search(r"^test_more\.py \.{31}", out, re.M), out
    # A module-scoped fixture once for its module; a session fixture torn down per worker.
    names = sorted(p.name for p in marks.iterdir())
    assert len([n for n in names if n.startswith("module-")]) == 1, names
    assert len([n for n in names if n.startswith("session-")]) == 2, names
    # One base temp folder for the run (its tests' tmp_path folders in it), its lock gone:
    # a later run may clean it up.
    (base,) = marks.glob("pytest-of-*/pytest-[0-9]*")
    assert not (base / ".lock").exists(), sorted(base.iterdir())
    made = [p for p in base.glob("test_*") if not p.is_symlink()]  # (not the "current" links)
    assert len(made) == 50, sorted(base.iterdir())


def test_the_cache_keeps_what_a_run_in_one_process_keeps(tree: Path, tmp_path: Path) -> None:
    """``--nf`` runs first the tests that are not in ``cache/nodeids``, ``--lf`` those in
    ``cache/lastfailed``: a run on every core leaves both as one process does (its main
    process collects no test itself)."""
    one_tree = tmp_path / "one-suite"
    shutil.copytree(tree, one_tree)
    run(one_tree, "-p", "no:every_core", marks=marks_dir(tmp_path, "one"), cache=True)
    _, out = run(tree, marks=marks_dir(tmp_path, "every"), cache=True)
    assert "on every core: 2 workers took 4 files" in out, out
    for name in ("nodeids", "lastfailed"):
        ours, theirs = (json.loads((t / ".pytest_cache/v/cache" / name).read_text())
                        for t in (tree, one_tree))  # fmt: skip
        assert ours == theirs and len(ours) >= 3, name
    assert len(json.loads((tree / ".pytest_cache/v/cache/nodeids").read_text())) == 71


def test_k_and_deselection_are_counted_as_in_one_process(tree: Path, tmp_path: Path) -> None:
    _, one = run(tree, "-k", "more", "-p", "no:every_core", marks=marks_dir(tmp_path, "one"))
    code, out = run(tree, "-k", "more", marks=marks_dir(tmp_path, "every"))
    assert code == 0, out
    assert collected(out) == collected(one), out
    assert summary(out) == summary(one), out
    assert re.search(r"^test_more\.py \.{31} +\[100%\]$", out, re.M), out  # of those selected
    assert summary(out) == "31 passed, 1 skipped, 40 deselected", out


def test_a_file_that_fails_to_import_is_a_collection_error(tree: Path, tmp_path: Path) -> None:
    (tree / "test_broken.py").write_text("import no_such_module_here\n", encoding="utf-8")
    code, out = run(tree, marks=marks_dir(tmp_path, "every"))
    assert code == 2, out
    assert "ERROR collecting test_broken.py" in out and "no_such_module_here" in out, out
    assert "Interrupted: 1 error during collection" in out, out


def test_a_worker_that_dies_is_reported_and_fails_the_run(tree: Path, tmp_path: Path) -> None:
    (tree / "test_dies.py").write_text(
        "import os\n\ndef test_leaves():\n    os._exit(3)\n", encoding="utf-8"
    )
    code, out = run(tree, marks=marks_dir(tmp_path, "every"))
    assert code == 1, out
    assert re.search(r"worker \d ended early \(exit code 3\) in test_dies\.py", out), out
    assert "31 passed" not in out or "test_more.py" in out  # the other files still reported
    assert re.search(r"^test_more\.py \.{31}", out, re.M), out


WAITS = """
import os, select, time

def test_absorbs_a_ctrl_c():
    open(os.path.join(os.environ["MARKS"], f"started-{os.getpid()}"), "w").close()
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline:
            select.select([], [], [], 0.05)
    except KeyboardInterrupt:  # as a run does: it saves its state and stops
        return

def test_after_it():
    open(os.path.join(os.environ["MARKS"], "ran-after"), "w").close()
"""


def test_ctrl_c_stops_each_worker_after_its_test_and_tears_down(tree: Path, tmp_path: Path) -> None:
    """^C reaches every worker (one process group). One whose test takes it as its own (as
    an in-process run does: it saves and stops) stops after that test all the same; each
    tears its fixtures down; what was done is reported, as pytest does on ^C."""
    (tree / "test_waits.py").write_text(WAITS, encoding="utf-8")
    (tree / "test_waits_too.py").write_text(WAITS, encoding="utf-8")
    marks = marks_dir(tmp_path, "every")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env.update(PYTHONPATH=str(ROOT), MARKS=str(marks))
    proc = subprocess.Popen(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", str(tree)],
        cwd=tree, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        start_new_session=True,
    )  # fmt: skip
    try:
        started = lambda: len(list(marks.glob("started-*"))) == 2  # noqa: E731
        assert wait_until(started, 60), list(marks.iterdir())
        os.killpg(proc.pid, signal.SIGINT)
        out, _ = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 2, out
    assert "KeyboardInterrupt" in out and "ended early" not in out, out
    assert not (marks / "ran-after").exists(), out
    assert len(list(marks.glob("session-*"))) == 2, list(marks.iterdir())
    assert "passed" in out.strip().splitlines()[-1], out


PRINTS = """
import os
from tests.helpers import wait_until

def test_prints_then_fails():
    me, other = os.path.basename(__file__)[:-3], "{other}"
    print(f"printed by {{me}}")
    open(os.path.join(os.environ["MARKS"], f"printed-{{me}}"), "w").close()
    # (the other worker prints too before either's output is read)
    printed = os.path.join(os.environ["MARKS"], f"printed-{{other}}")
    assert wait_until(lambda: os.path.exists(printed), 60)
    assert False, me

def test_after_it():  # (a worker takes the next file before its file's last test)
    pass
"""


def test_each_worker_captures_its_own_tests_output(tree: Path, tmp_path: Path) -> None:
    """Two tests that print at once in two workers: each failure shows what its own test
    printed, as in one process (not the other's, not nothing)."""
    for name in FILES:
        (tree / name).unlink()
    (tree / "test_one.py").write_text(PRINTS.format(other="test_two"), encoding="utf-8")
    (tree / "test_two.py").write_text(PRINTS.format(other="test_one"), encoding="utf-8")
    code, out = run(tree, marks=marks_dir(tmp_path, "every"))
    assert code == 1 and summary(out) == "2 failed, 2 passed", out
    sections = dict(
        re.findall(
            r"_ test_prints_then_fails _+\n.*?AssertionError: (test_\w+)\n"
            r".*?Captured stdout call -+\n(.*?)(?=\n_|\n=|\non every core)",
            out,
            re.S,
        )
    )
    assert sections == {"test_one": "printed by test_one", "test_two": "printed by test_two"}, out


def test_a_warning_while_collecting_is_in_the_summary_as_in_one_process(
    tree: Path, tmp_path: Path
) -> None:
    (tree / "test_warns_on_import.py").write_text(
        'import warnings\n\nwarnings.warn("given on import", UserWarning)\n\n'
        "def test_imported():\n    pass\n",
        encoding="utf-8",
    )
    _, one = run(tree, "-p", "no:every_core", marks=marks_dir(tmp_path, "one"))
    _, out = run(tree, marks=marks_dir(tmp_path, "every"))
    assert "2 warnings" in summary(one), one
    assert summary(out) == summary(one), out
    for text in (one, out):
        assert "test_warns_on_import.py:3: UserWarning: given on import" in text, text


def test_a_worker_that_dies_is_reported_in_the_file_it_died_in(tree: Path, tmp_path: Path) -> None:
    """One worker: it takes the next file (test_more.py) before its file's last test, which
    ends the worker; the report names the file of that test."""
    (tree / "conftest.py").write_text(CONFTEST.replace("EveryCore(2)", "EveryCore(1)"), "utf-8")
    for name in FILES:
        if name != "test_more.py":
            (tree / name).unlink()
    (tree / "test_dies.py").write_text(  # the largest file: taken first
        "import os\n\n" + "# padding\n" * 500 + "def test_leaves():\n    os._exit(3)\n",
        encoding="utf-8",
    )
    code, out = run(tree, marks=marks_dir(tmp_path, "every"))
    assert code == 1, out
    assert "worker 1 ended early (exit code 3) in test_dies.py:" in out, out


OWN_WARNINGS = """
import warnings

class OfItsOwn(UserWarning):
    pass

class TakesTwo(UserWarning):
    def __init__(self, a, b):
        super().__init__(f"{a} and {b}")

def test_warns_its_own():
    warnings.warn(OfItsOwn("a class of this module"))

def test_warns_one_that_takes_two():
    warnings.warn(TakesTwo("one", "two"))
"""


def test_a_warning_of_a_class_the_main_process_cannot_unpickle_is_reported(
    tree: Path, tmp_path: Path
) -> None:
    """A warning class of a test module (the main process never imports it), or one that
    does not unpickle: reported by its text, and the run goes on as in one process."""
    for name in FILES:
        (tree / name).unlink()
    (tree / "sub").mkdir()  # (a folder: "prepend" puts it on sys.path of the worker only)
    (tree / "sub" / "test_own_warnings.py").write_text(OWN_WARNINGS, encoding="utf-8")
    _, one = run(tree, "-p", "no:every_core", marks=marks_dir(tmp_path, "one"))
    code, out = run(tree, marks=marks_dir(tmp_path, "every"))
    assert code == 0 and summary(out) == summary(one) == "2 passed, 2 warnings", out
    assert "OfItsOwn: a class of this module" in out and "TakesTwo: one and two" in out, out


ENDS = """
import os, pytest
from tests.helpers import wait_until

@pytest.fixture(scope="module")
def torn_down():
    yield
    open(os.path.join(os.environ["MARKS"], f"module-torn-down-{{os.getpid()}}"), "w").close()

def test_ends_the_session(request, torn_down):
    # (once the other worker is at its tests: it is stopped after the one it is at)
    assert wait_until(lambda: os.path.exists(os.path.join(os.environ["MARKS"], "waiting")), 60)
    {end}

def test_never_reached():
    open(os.path.join(os.environ["MARKS"], "reached"), "w").close()
"""

WAITING = """
import os
from tests import every_core
from tests.helpers import wait_until

def test_first():
    open(os.path.join(os.environ["MARKS"], "waiting"), "w").close()
    # at work until the session is ended on the other core: the stop has reached us
    assert wait_until(lambda: every_core._stop_asked, 60)

def test_second():
    open(os.path.join(os.environ["MARKS"], "reached"), "w").close()
"""


@pytest.mark.parametrize(
    ("end", "code", "line"),
    [
        (
            'pytest.exit("enough for today", returncode=3)',
            3,
            "_pytest.outcomes.Exit: enough for today",
        ),
        ('request.session.shouldstop = "enough for today"', 2, "Interrupted: enough for today"),
        ('request.session.shouldfail = "enough for today"', 1, "enough for today"),
    ],
    ids=["pytest.exit", "shouldstop", "shouldfail"],
)
def test_a_test_that_ends_the_session_ends_it_on_every_core(
    tree: Path, tmp_path: Path, end: str, code: int, line: str
) -> None:
    """pytest.exit() (or a test that sets the session's shouldstop or shouldfail) ends the
    run as in one process: its exit code and line, no test after it. The other worker
    finishes the test it is at, then stops; both tear their fixtures down. Not a worker
    "ended early"."""
    for name in FILES:
        (tree / name).unlink()
    (tree / "test_ends.py").write_text(ENDS.format(end=end), encoding="utf-8")
    one = marks_dir(tmp_path, "one")
    (one / "waiting").touch()  # (alone: no other worker's test to wait for)
    one_code, one_out = run(tree, "-p", "no:every_core", marks=one)
    (tree / "test_waiting.py").write_text(WAITING, encoding="utf-8")
    marks = marks_dir(tmp_path, "every")
    got, out = run(tree, marks=marks)
    ended = re.compile(rf"^!+ {re.escape(line)} !+$", re.M)
    assert one_code == got == code and ended.findall(one_out) == ended.findall(out), (one_out, out)
    assert len(ended.findall(out)) == 1, out
    assert "ended early" not in out and "Traceback" not in out, out
    assert not (marks / "reached").exists(), out
    assert re.search(r"^test_waiting\.py \.", out, re.M), out  # the test at work: reported
    assert len(list(marks.glob("session-*"))) == 2, list(marks.iterdir())
    assert len(list(marks.glob("module-torn-down-*"))) == 1, list(marks.iterdir())


PROPERTIES = """
class OfThisModule:
    def __str__(self):
        return "of this module"

def test_records(record_property):
    class Local:
        def __str__(self):
            return "local"
    record_property("local", Local())  # (does not pickle)
    record_property("module", OfThisModule())  # (the main process cannot import its module)
    record_property("plain", {"a": [1, 2]})
"""


def test_record_property_values_reach_the_junit_xml_as_in_one_process(
    tree: Path, tmp_path: Path
) -> None:
    """Whatever a test gives record_property: --junitxml has the same properties as from a
    run in one process (the text of a value that cannot travel to the main process)."""
    (tree / "sub").mkdir()  # (a folder: "prepend" puts it on sys.path of the worker only)
    (tree / "sub" / "test_properties.py").write_text(PROPERTIES, encoding="utf-8")
    xml = {}
    for name, args in (("one", ["-p", "no:every_core"]), ("every", [])):
        code, out = run(tree, f"--junitxml={tmp_path / name}.xml", *args,
                        marks=marks_dir(tmp_path, name))  # fmt: skip
        assert code == 1 and "ended early" not in out, out
        xml[name] = re.findall(r'<property name="(\w+)" value="([^"]*)" />',
                               (tmp_path / f"{name}.xml").read_text(encoding="utf-8"))  # fmt: skip
    assert xml["every"] == xml["one"] == [
        ("local", "local"), ("module", "of this module"), ("plain", "{'a': [1, 2]}"),
    ], xml  # fmt: skip
