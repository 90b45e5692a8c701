"""``collab show`` longer than the screen goes through $PAGER: a script that keeps what it
was given (a process of its own; moved from tests/unit: a unit test starts no process).
The run, the terminal and ``show`` are tests/unit/test_show.py's."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest

from tests.unit.test_show import COLOUR, on_a_terminal, show, wordy

PAGER = (
    "import os, sys\n"
    "open(sys.argv[1], 'w').write(os.environ.get('LESS', '-') + '\\n' + sys.stdin.read())\n"
)


@pytest.fixture
def run_id() -> str:
    return wordy().state.run_id


@pytest.fixture
def terminal(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    return on_a_terminal(monkeypatch)


def test_longer_than_the_screen_it_goes_through_the_pager(
    run_id: str, terminal: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    script, paged = tmp_path / "pager.py", tmp_path / "paged.txt"
    script.write_text(PAGER, encoding="utf-8")
    terminal.setenv("PAGER", f"{shlex.quote(sys.executable)} {shlex.quote(str(script))} "
                             f"{shlex.quote(str(paged))}")  # fmt: skip
    terminal.setenv("LINES", "20")
    terminal.setenv("COLUMNS", "80")
    out = show([run_id], capsys)
    less, text = paged.read_text(encoding="utf-8").split("\n", 1)
    assert less == "-FRX"  # LESS unset: colours kept, quits if it fits
    assert "Stateless tokens" in text and COLOUR.search(text)
    assert "Stateless tokens" not in out
    paged.unlink()
    out = show([run_id, "--no-pager"], capsys)
    assert "Stateless tokens" in out and not paged.exists()
    terminal.setenv("LESS", "-i")  # the user's LESS is theirs
    show([run_id], capsys)
    less, text = paged.read_text(encoding="utf-8").split("\n", 1)
    assert less == "-i" and "Stateless tokens" in text
