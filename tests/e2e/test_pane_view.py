"""The pane's view, in process: one turn shown from its files (no tmux, no terminal):
the seat's title set by the terminal's title sequence, prose wrapped to 80 columns, the
contract block as one line, the orchestrator's summary; a script that ends without its
exit status ends the view. The script is a real process (a child that exits), so these
moved from tests/unit: a unit test starts no process."""

from __future__ import annotations

import io
import json
import os
import re
import sys
from pathlib import Path

from collab.runners.pane_view import show_turn
from collab.runners.pane_view_text import RECORDING

WORDS = " ".join(f"w{n:02d}-authentication" for n in range(12))
REPLY = f"{WORDS}\n```json\n" + '{"new_points": [{"title": "SECRET"}]}\n```\n'


def turn(tmp_path: Path, *, exit_code: int | None) -> tuple[bool, str]:
    step = "r1-A-1"
    hostile = "A · Sec \x1b]0;x\x07 · codex"  # a role name that tries its own title
    header = {"title": "Role A · round 1/1", "pane_title": hostile, "output": "text"}
    (tmp_path / f"{step}.view").write_text(json.dumps(header))
    (tmp_path / f"{step}.out").write_text(REPLY)
    if exit_code is not None:
        (tmp_path / f"{step}.exit").write_text(f"{exit_code}\n")
        (tmp_path / f"{step}.summary").write_text("1 new point · 1.0s")
    pid = os.posix_spawn(sys.executable, [sys.executable, "-c", "pass"], dict(os.environ))
    out = io.StringIO()
    ok = show_turn(tmp_path, step, pid, out)
    return ok, out.getvalue()


def test_a_turn_is_shown_wrapped_with_its_title_and_summary(tmp_path: Path) -> None:
    ok, shown = turn(tmp_path, exit_code=0)
    assert ok
    # The pane title: seat and agent, control characters of the role name removed.
    title = re.match(r"\x1b\]2;([^\x1b\x07]*)\x1b\\", shown)
    assert title is not None and title.group(1).startswith("A · Sec")
    assert title.group(1).endswith(" · codex")
    plain = re.sub(r"\x1b\[[0-9;]*[A-Za-z]|\x1b\]2;[^\x1b]*\x1b\\|\r", "", shown)
    lines = plain.split("\n")
    prose = [ln for ln in lines if "authentication" in ln]
    assert len(prose) == 3 and all(len(ln) <= 80 for ln in prose)  # 12 words of 18 + 1
    assert " ".join(prose).split() == WORDS.split()
    assert f"⋯ {RECORDING}" in lines
    assert "SECRET" not in shown and "```" not in shown
    assert "── 1 new point · 1.0s" in lines


def test_a_script_that_died_without_its_exit_status_ends_the_view(tmp_path: Path) -> None:
    ok, shown = turn(tmp_path, exit_code=None)
    assert not ok
    assert "ended early" in shown
