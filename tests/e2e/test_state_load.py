"""A damaged state.json is refused under ``python -O`` as without it: load_state's checks
are code, not ``assert`` (a process of its own; moved from tests/unit: a unit test starts
no process). The run and its damage are tests/unit/test_state_load.py's."""

from __future__ import annotations

from pathlib import Path

from tests.helpers import Cli
from tests.unit.test_state_load import RUN_ID, STATUSES, damage, saved_state

REPO = Path(__file__).resolve().parents[2]


def test_damaged_state_is_refused_under_python_O(cli: Cli) -> None:
    """``python -O`` strips asserts; the checks are code, so the CLI still refuses.
    (A process of its own: PYTHONOPTIMIZE=1 is ``-O``.)"""
    saved_state()
    damage(("turns", 1, "status"), "maybe")
    env = {"PYTHONOPTIMIZE": "1", "COLUMNS": "250"}
    proc = cli.process("show", RUN_ID, cwd=REPO, env=env, timeout=60)
    assert proc.code == 2, proc.err
    assert proc.out == ""
    assert proc.err.splitlines() == [
        f"collab: run {RUN_ID}: state.json is damaged (state.turns[1].status: "
        f"expected one of {STATUSES}, got 'maybe')"
    ]
