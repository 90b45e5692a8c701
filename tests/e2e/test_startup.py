"""What the quick commands (called by scripts and skills, polled by status loops) import:
none of the heavy libraries a debate, a report or the help needs. CPU time itself is
measured by ``python -m bench --only cpu``; this keeps the cause from coming back. Each
case is a fresh interpreter (moved from tests/unit: a unit test starts no process)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.unit.test_startup import a_run  # a saved run, in this test's COLLAB_HOME

HEAVY = ("pydantic", "rich", "jinja2", "markdown_it", "nh3", "detect_secrets", "mcp", "httpx")
ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import contextlib, io, json, sys
args, heavy_names = json.loads(sys.argv[1]), json.loads(sys.argv[2])
sys.argv = ["collab", *args]
from collab.cli import main
out = io.StringIO()
with contextlib.suppress(SystemExit), contextlib.redirect_stdout(out):
    main()
heavy = sorted({m.split(".")[0] for m in sys.modules} & set(heavy_names))
frozen = sorted(  # frozen dataclasses whose methods were compiled at start-up
    f"{name}.{c.__qualname__}"
    for name, mod in list(sys.modules.items()) if name.startswith("collab")
    for c in vars(mod).values()
    if isinstance(c, type) and c.__module__ == name
    and getattr(getattr(c, "__dataclass_params__", None), "frozen", False)
    and c.__setattr__.__code__.co_filename != sys.modules["collab.records"].__file__
)
print(json.dumps({"out": out.getvalue(), "heavy": heavy, "compiled_frozen": frozen,
                  "commands": sorted(m for m in sys.modules if m.startswith("collab.cli."))}))
"""


def imported(args: list[str]) -> dict[str, object]:
    env = dict(os.environ) | {"PYTHONPATH": str(ROOT)}
    res = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(args), json.dumps(HEAVY)],
        capture_output=True, text=True, env=env, check=True, timeout=60,
    )  # fmt: skip
    doc: dict[str, object] = json.loads(res.stdout)
    return doc


@pytest.mark.parametrize("args", [["--version"], ["list", "--json"], ["status", "ID", "--json"]])
def test_the_quick_commands_import_no_heavy_library(args: list[str]) -> None:
    if "ID" in args:
        args = [a_run() if a == "ID" else a for a in args]
    got = imported(args)
    assert got["heavy"] == []
    # @record, not @dataclass(frozen=True): ~0.4 ms less CPU a class (collab.records);
    # but a ledger issue, made over a thousand times a debate, keeps dataclass's __init__
    compiled = got["compiled_frozen"]
    assert isinstance(compiled, list) and set(compiled) <= {"collab.ledger.Issue"}
    assert "collab.cli.debate" not in got["commands"]  # only the command's own module
    assert str(got["out"]).startswith("collab " if args == ["--version"] else "{")


def test_a_number_typed_on_the_command_line_is_still_checked_by_typer() -> None:
    """Values that need converting keep typer's own conversion (built when needed)."""
    run_id = a_run()
    env = dict(os.environ) | {"PYTHONPATH": str(ROOT)}
    bad = subprocess.run(
        [sys.executable, "-m", "collab", "status", run_id, "--wait", "soon"],
        capture_output=True, text=True, env=env, timeout=60,
    )  # fmt: skip
    assert bad.returncode == 2 and "--wait" in bad.stderr
    ok = imported(["status", run_id, "--wait", "0.05", "--json"])
    assert json.loads(str(ok["out"]))["run_id"] == run_id
