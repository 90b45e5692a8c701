"""``collab show`` for a person: on a terminal the Markdown rendered (wrapped at words, to
the width) and paged through $PAGER when longer than the screen; piped or with --format md
the Markdown as it is stored; NO_COLOR honoured. The terminal is rich's (TTY_COMPATIBLE);
the pager (a process: tests/e2e/test_show.py) a script that keeps what it was given."""

from __future__ import annotations

import re

import pytest

from collab.cli import main
from tests.unit.test_orchestrator import JUDGE, Run, debate, said, shared

WORDS = "revocation " * 3 + "Stateless tokens cannot be withdrawn before they expire, " * 12
COLOUR = re.compile(r"\x1b\[(?:[0-9;]*;)?(?:3[0-9]|38;[0-9;]+)m")


@shared  # driven once; each test gets a copy in its own home
def wordy() -> Run:
    replies = {f"r{r}-{s}": [said([f"point {r}{s}"], prose=WORDS)] for r in (1, 2, 3) for s in "AB"}
    return debate({**replies, "judge": [JUDGE]}, rounds=3)


@pytest.fixture
def run_id() -> str:
    return wordy().state.run_id


def show(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as end:
        main(["show", *argv])
    assert end.value.code == 0
    return capsys.readouterr().out


def on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    monkeypatch.setenv("TTY_COMPATIBLE", "1")
    monkeypatch.setenv("LINES", "5000")  # taller than the run: no pager
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("LESS", raising=False)
    return monkeypatch


@pytest.fixture
def terminal(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    return on_a_terminal(monkeypatch)


@pytest.mark.parametrize("width", [80, 160])
def test_on_a_terminal_it_is_rendered_to_the_width_at_words(
    width: int, run_id: str, terminal: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    terminal.setenv("COLUMNS", str(width))
    raw = show([run_id, "--format", "md"], capsys)
    out = show([run_id], capsys)
    plain = re.sub(r"\x1b\[[0-9;]*m", "", out)
    assert out != raw and COLOUR.search(out)
    assert not re.search(r"^#+ ", plain, re.M)  # headings rendered, not as Markdown marks
    assert max(len(line) for line in plain.splitlines()) <= width
    for line in plain.splitlines():  # wrapped between words, never inside one
        assert not re.search(r"revocat$|Statel$|withdraw$", line.rstrip()), line


def test_piped_or_with_format_md_it_is_the_markdown_as_stored(
    run_id: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TTY_COMPATIBLE", "0")
    piped = show([run_id], capsys)
    assert piped.startswith("# ") and "\x1b[" not in piped
    monkeypatch.setenv("TTY_COMPATIBLE", "1")
    assert show([run_id, "--format", "md"], capsys) == piped


def test_no_color_is_honoured(
    run_id: str, terminal: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert COLOUR.search(show([run_id], capsys))
    terminal.setenv("NO_COLOR", "1")
    out = show([run_id], capsys)
    assert "Stateless tokens" in out and not COLOUR.search(out)
