"""The live view as a person sees it: the preview fed text deltas (the contract never
shown, the Judge's labels mapped as they stream), seats in one place for a whole blind
round, each turn's clock, a clean stop; the compact per-round ledger and the full one at
the end. Rendered on rich's recorded consoles at 80 and 160 columns."""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterator, Sequence

import pytest
from rich.cells import cell_len
from rich.console import Console

from collab.cli.live import DebateView
from collab.cli.tables import SeatStance, clip_words, ledger_changes, ledger_table
from collab.events import (
    Event,
    JudgeStarted,
    LedgerUpdated,
    Logged,
    RoundStarted,
    RunStarted,
    Stopped,
    TurnFinished,
    TurnStarted,
)
from collab.events import Text as TextAdded
from collab.ledger import Issue, Ledger
from collab.live_text import RECORDING, shown

WIDTHS = (80, 160)
CONTRACT = {
    "new_points": [{"title": "Token revocation", "evidence": "stolen tokens live on"}],
    "stances": [{"id": "I1", "stance": "contest", "evidence": "still open"}],
    "abstain": None,
}
PROSE = "Stateless JWTs cannot be revoked before they expire.\n\nA denylist is state too.\n\n"
FENCED = PROSE + "```json\n" + json.dumps(CONTRACT) + "\n```\n"
UNTAGGED = PROSE + "```\n\n" + json.dumps(CONTRACT, indent=2) + "\n```\n"
BARE = PROSE + json.dumps(CONTRACT, indent=2) + "\n"
LABELS = {"Position 1": "Security engineer", "Position 2": "Performance engineer"}
JUDGE_TEXT = "## TL;DR\nPosition 2 wins on latency; Position 1's worry stands.\n"
# What must never be on screen while a reply streams.
LEAKS = re.compile(r'new_points|"stances"|"abstain"|\{\s*"|Position [0-9]')


def splits(text: str) -> Iterator[list[str]]:
    """The text cut into two deltas at every point, and into three at a few."""
    for i in range(len(text) + 1):
        yield [text[:i], text[i:]]
    for i in range(0, len(text), 7):
        for j in range(i, len(text), 11):
            yield [text[:i], text[i:j], text[j:]]


@pytest.mark.parametrize("reply", [FENCED, UNTAGGED, BARE], ids=["fenced", "untagged", "bare"])
def test_the_contract_is_never_shown_at_any_moment(reply: str) -> None:
    for i in range(len(reply) + 1):
        seen = shown(reply[:i])
        assert not LEAKS.search(seen.text), (i, seen.text)
        assert PROSE.startswith(seen.text.split(RECORDING)[0].rstrip()[:i] if i else "")
    final = shown(reply, done=True)
    assert final.recording and final.text.rstrip().endswith(RECORDING)
    assert "A denylist is state too." in final.text


def test_a_code_block_that_is_not_the_contract_is_shown() -> None:
    reply = "See:\n\n```python\nx = compute()\n```\nAfter the code.\n"
    assert shown(reply).text == reply
    assert not shown(reply).recording


def test_labels_become_names_as_they_stream_whatever_the_cut() -> None:
    for i in range(len(JUDGE_TEXT) + 1):
        seen = shown(JUDGE_TEXT[:i], LABELS).text
        assert "Position" not in seen, (i, seen)
    final = shown(JUDGE_TEXT, LABELS, done=True).text
    assert "Performance engineer wins" in final
    assert "Security engineer's worry" in final
    # A longer word is not a label.
    assert shown("Position 12 says", LABELS).text == "Position 12 says"


def test_a_list_of_positions_becomes_names_as_it_streams_whatever_the_cut() -> None:
    labels = {**LABELS, "Position 3": "Operator"}
    text = "Positions 1 and 3 agree; Positions 3, 2 and 1 differ; Positions 1, 2"
    for i in range(len(text) + 1):
        seen = shown(text[:i], labels).text
        assert "Position" not in seen, (i, seen)
    assert shown(text, labels, done=True).text == (
        "Security engineer and Operator agree; Operator, Performance engineer and "
        "Security engineer differ; Security engineer, Performance engineer"
    )


# -- the view --------------------------------------------------------------------------


_OPEN: list[DebateView] = []  # each Screen's view, closed after its test


@pytest.fixture(autouse=True)
def _closed() -> Iterator[None]:
    """A view on a terminal draws with a rich Live, whose thread redraws four times a
    second until the view is closed (the run's ``finally``), whatever the test asserted."""
    yield
    while _OPEN:
        _OPEN.pop().close()


class Screen:
    """A DebateView on a terminal-like console, its events numbered, and a clock."""

    def __init__(
        self, seats: Sequence[str] = ("A", "B"), width: int = 80, terminal: bool = True
    ) -> None:
        self.now = 1000.0
        self.err_file = io.StringIO()
        self.out_file = io.StringIO()
        self.err = Console(
            file=self.err_file, width=width, height=40, force_terminal=terminal, color_system=None
        )
        out = Console(file=self.out_file, width=width, color_system=None)
        self.view = DebateView(self.err, out, clock=lambda: self.now)
        _OPEN.append(self.view)
        self.seq = 0
        roles = {s: f"Role {s} name" for s in seats}
        self.feed(RunStarted("r1", "topic", "preset", 3, "tmux", None, False, roles))  # type: ignore[arg-type]

    def feed(self, ev: Event) -> None:
        self.seq += 1
        self.view.handle(Logged(self.seq, self.now, ev))

    def preview(self, width: int) -> str:
        c = Console(file=io.StringIO(), width=width, height=40, record=True, color_system=None)
        c.print(self.view.preview())
        return c.export_text()

    def printed(self) -> str:
        return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", self.err_file.getvalue())


def finished(seat: str, prose: str = "done.", stances: tuple[tuple[str, str], ...] = ()) -> Event:
    from collab.events import Stance

    return TurnFinished(
        round=1, side=seat, role=f"Role {seat} name", status="ok", duration_s=2.0,  # type: ignore[arg-type]
        cost_usd=None, cost_estimated=False, tokens=None, new_points=(),
        stances=tuple(Stance(i, s) for i, s in stances),  # type: ignore[arg-type]
        abstain=None, prose=prose, warnings=(),
    )  # fmt: skip


def near_the_block(text: str) -> Iterator[list[str]]:
    """Two deltas cut around the first fence and brace, three at a few of those (the
    pure function is fed every cut above)."""
    marks = [m.start() for m in (re.search(r"`{3}", text), re.search(r"\{", text)) if m]
    cuts = sorted({i for m in marks for i in range(m - 1, m + 7) if 0 <= i <= len(text)})
    for i in cuts:
        yield [text[:i], text[i:]]
    for i in cuts[::4]:
        yield [text[:i], text[i : i + 5], text[i + 5 :]]


def test_the_preview_never_shows_the_contract_fed_in_deltas() -> None:
    for reply in (FENCED, BARE):
        for parts in near_the_block(reply):
            screen = Screen(terminal=False)  # the preview drawn here, not by a Live thread
            screen.feed(RoundStarted(1, 3))
            screen.feed(TurnStarted(1, "A", "Advocate"))
            for part in parts:
                screen.feed(TextAdded("A", part, 1))
                for width in WIDTHS:
                    text = screen.preview(width)
                    assert not LEAKS.search(text), (parts, text)
            screen.view.close()


def test_the_judges_labels_are_names_in_the_preview_fed_in_deltas() -> None:
    at = [m.start() for m in re.finditer("Position", JUDGE_TEXT)]
    for parts in ([JUDGE_TEXT[:i], JUDGE_TEXT[i:]] for a in at for i in range(a, a + 12)):
        screen = Screen(terminal=False)
        screen.feed(JudgeStarted(LABELS))
        for part in parts:
            screen.feed(TextAdded("judge", part))
            for width in WIDTHS:
                text = screen.preview(width)
                assert "Position" not in text, (parts, text)
        assert "Performance engineer wins" in screen.preview(160)
        screen.view.close()


def positions(text: str, seats: Sequence[str]) -> list[tuple[int, int]]:
    """(line, column) of each seat's panel title, in seat order."""
    lines = text.splitlines()
    found = []
    for seat in seats:
        at = [(n, line.find(f"Role {seat} (")) for n, line in enumerate(lines)]
        found.append(next(p for p in at if p[1] >= 0))
    return found


@pytest.mark.parametrize("seats", ["AB", "ABC", "ABCDE"])
@pytest.mark.parametrize("width", [80, 160, 200])
def test_seats_keep_one_place_in_seat_order_for_the_whole_blind_round(
    seats: str, width: int
) -> None:
    screen = Screen(tuple(seats), width)
    screen.feed(RoundStarted(1, 3))
    frames = [screen.preview(width)]
    for seat in reversed(seats):  # the last seat starts first
        screen.feed(TurnStarted(1, seat, f"Role {seat} name"))  # type: ignore[arg-type]
        screen.feed(TextAdded(seat, "word " * 40, 1))  # type: ignore[arg-type]
        frames.append(screen.preview(width))
    for seat in reversed(seats[1:]):  # all but A finish, last first: nothing printed yet
        screen.feed(finished(seat))
        frames.append(screen.preview(width))
    layouts = {tuple(positions(f, seats)) for f in frames}
    assert len(layouts) == 1, layouts
    (layout,) = layouts
    assert list(layout) == sorted(layout)  # A first: left of, or above, the next
    beside = width // len(seats) >= 40
    assert len({line for line, _ in layout}) == (1 if beside else len(seats))
    assert "name)  2.0s" not in screen.printed()  # no finished turn printed before A's
    screen.feed(finished("A"))
    printed = screen.printed()
    order = [printed.rfind(f"Role {s} (Role {s} name)  2.0s") for s in seats]
    assert -1 not in order and order == sorted(order), order
    screen.view.close()


@pytest.mark.parametrize("width", [80, 200])
def test_a_seat_printed_early_keeps_its_place_until_the_round_is_done(width: int) -> None:
    seats = "ABCDE"
    screen = Screen(tuple(seats), width)
    screen.feed(RoundStarted(1, 3))
    for seat in seats:
        screen.feed(TurnStarted(1, seat, f"Role {seat} name"))  # type: ignore[arg-type]
    frames = [screen.preview(width)]
    for seat in "ACEDB":  # A first: printed at once; C, E, D wait for B
        screen.feed(finished(seat))
        if seat != "B":
            frames.append(screen.preview(width))
    assert len({tuple(positions(f, seats)) for f in frames}) == 1
    printed = screen.printed()
    order = [printed.rfind(f"Role {s} (Role {s} name)  2.0s") for s in seats]
    assert -1 not in order and order == sorted(order), order
    assert screen.view.slots == []  # the round done: the preview is gone
    screen.view.close()


def test_seats_at_once_after_round_1_still_show_in_seat_order() -> None:
    screen = Screen(("A", "B", "C"), 160)
    screen.feed(RoundStarted(2, 3))  # --depth auto's cross-check round: all at once
    for seat in "CAB":
        screen.feed(TurnStarted(1, seat, f"Role {seat} name"))  # type: ignore[arg-type]
    layout = positions(screen.preview(160), "ABC")
    assert layout == sorted(layout)
    screen.view.close()


def test_the_clock_runs_from_the_turns_start_before_any_word() -> None:
    screen = Screen()
    screen.feed(RoundStarted(2, 3))
    screen.feed(TurnStarted(2, "A", "Advocate"))
    screen.now += 12
    assert "12s" in screen.preview(80)
    screen.now += 30
    assert "42s" in screen.preview(80)
    screen.view.close()


def test_after_close_nothing_more_is_drawn_and_the_region_ends_on_an_empty_line() -> None:
    screen = Screen()
    screen.feed(RoundStarted(1, 3))
    screen.feed(TurnStarted(1, "A", "Advocate"))
    screen.feed(TextAdded("A", "some words", 1))
    assert screen.preview(80).endswith("\n\n")  # the cursor rests on an empty line
    screen.view.close()  # Ctrl-C: the run's finally
    assert screen.view.live is None
    drawn = screen.err_file.getvalue()
    assert drawn.endswith("\x1b[2K")  # the preview erased, the cursor back at its top
    # A turn's thread reporting after the stop draws nothing.
    screen.feed(TurnStarted(1, "B", "Devil"))
    screen.feed(TextAdded("B", "late words", 1))
    screen.feed(finished("B"))
    assert screen.err_file.getvalue() == drawn
    assert screen.view.live is None


@pytest.mark.parametrize("seats", ["A", "AB", "ABC", "ABCDE"])
@pytest.mark.parametrize("width", [60, 80, 81, 100, 160])
def test_an_echoed_ctrl_c_anywhere_in_a_redraw_cannot_wrap_a_line(seats: str, width: int) -> None:
    """The terminal echoes ^C where the cursor is, even between two pieces of one
    redraw: each line of the preview leaves two columns for it, so no line wraps and
    nothing below moves down (the panel would be erased one line off)."""
    screen = Screen(tuple(seats), width)
    screen.feed(RoundStarted(1, 3))
    for seat in seats:
        screen.feed(TurnStarted(1, seat, f"Role {seat} name"))  # type: ignore[arg-type]
        screen.feed(TextAdded(seat, "Stateless tokens cannot be withdrawn. " * 9, 1))  # type: ignore[arg-type]
    lines = screen.preview(width).splitlines()
    assert any("╭" in line for line in lines)
    assert max(cell_len(line) for line in lines) <= width - len("^C"), lines
    beside = len(seats) == 1 or width // len(seats) >= 40  # as wide a layout as before
    assert len({line.count("╭") for line in lines if "╭" in line}) == 1
    assert max(line.count("╭") for line in lines) == (len(seats) if beside else 1)


# -- the ledger ------------------------------------------------------------------------


def issue(i: str, title: str, by: str, status: str = "open", **kw: object) -> Issue:
    return Issue(i, title, by, status, kw.pop("ev_a", ""), kw.pop("ev_b", ""), 1, 1, **kw)  # type: ignore[arg-type]


def render(renderable: object, width: int) -> list[str]:
    c = Console(file=io.StringIO(), width=width, record=True, color_system=None)
    c.print(renderable)
    return c.export_text().splitlines()


BEFORE = Ledger((
    issue("I1", "Token revocation needs server state", "A"),
    issue("I2", "Session lookups add p99 latency to every request", "A"),
    issue("I3", "Key rotation", "B"),
))  # fmt: skip
AFTER = Ledger((
    issue("I1", "Token revocation needs server state", "A", "resolved"),
    issue("I2", "Session lookups add p99 latency to every request", "A"),
    issue("I3", "Key rotation", "B"),
    issue("I4", "A denylist cache keeps revocation cheap", "C", severity="blocking"),
))  # fmt: skip


@pytest.mark.parametrize("width", WIDTHS)
def test_a_rounds_ledger_lists_only_what_changed_one_line_each(width: int) -> None:
    stances = [SeatStance(s, "I1", "agree") for s in "BC"] + [
        SeatStance(s, "I2", "contest") for s in "BCDE"
    ]
    lines = render(ledger_changes(BEFORE, AFTER, stances, 2), width)
    rows = {line.split()[0]: line for line in lines if re.match(r"I\d", line)}
    assert set(rows) == {"I1", "I2", "I4"}  # I3: nothing happened to it
    assert "resolved by B, C" in rows["I1"] and "resolved" in rows["I1"].split()[1]
    assert "contested by B, C, D, E" in rows["I2"]
    assert "new" in rows["I4"] and "C" in rows["I4"] and "blocking" in rows["I4"]
    assert all(len(line) <= width for line in lines)
    assert any("1 other issue" in line for line in lines)


def test_the_full_ledger_cuts_evidence_after_a_whole_word() -> None:
    words = "revocation " * 30
    cut = clip_words(words + "tail", 60)
    assert cut.endswith("…") and len(cut) <= 60
    assert cut[:-1].rstrip().split()[-1] == "revocation"
    ledger = Ledger((issue("I1", "Token revocation", "A", ev_a=words + "tail", ev_b="short"),))
    text = "\n".join(render(ledger_table(ledger, seats=("A", "B")), 80))
    flat = " ".join(text.replace("│", " ").split())
    assert re.search(r"revocation…", flat) and "revocat…" not in flat
    assert "B: short" in flat


def test_a_debate_prints_compact_rounds_stance_titles_and_the_full_ledger_once() -> None:
    from collab.events import Stance

    for width in WIDTHS:
        screen = Screen(width=width)
        screen.feed(RoundStarted(2, 3))
        screen.feed(TurnStarted(2, "A", "Advocate"))
        turn = TurnFinished(
            round=2, side="A", role="Advocate", status="ok", duration_s=1.0, cost_usd=None,
            cost_estimated=False, tokens=None, new_points=(),
            stances=(Stance("I2", "contest"),), abstain=None, prose="No.", warnings=(),
        )  # fmt: skip
        screen.view.ledger = BEFORE
        screen.view.titles = {i.id: i.title for i in BEFORE.issues}
        screen.feed(turn)
        screen.feed(LedgerUpdated(2, AFTER))
        screen.feed(Stopped("max-rounds", "reached 3/3 rounds"))
        screen.feed(JudgeStarted(LABELS))
        printed = screen.printed()
        assert 'contest I2 "Session lookups add p99' in printed
        assert printed.count("with the evidence") == 1
        assert "after round 2: 3 changed" in printed
        screen.view.close()


def test_no_color_leaves_the_live_view_without_colour(monkeypatch: pytest.MonkeyPatch) -> None:
    colour = re.compile(r"\x1b\[(?:[0-9;]*;)?(?:3[0-9]|38;[0-9;]+)m")
    for no_color, coloured in (("", True), ("1", False)):
        monkeypatch.setenv("NO_COLOR", no_color)
        monkeypatch.setenv("TTY_COMPATIBLE", "1")
        err = io.StringIO()
        view = DebateView(Console(file=err, width=80), Console(file=io.StringIO(), width=80))
        view.handle(Logged(1, 1.0, RoundStarted(2, 3)))
        view.handle(Logged(2, 1.0, finished("B", "Some **bold** words.")))
        view.close()
        assert "Some" in err.getvalue()
        assert bool(colour.search(err.getvalue())) == coloured


def test_a_resumed_run_names_no_issue_it_cannot_know() -> None:
    from collab.events import Stance

    screen = Screen(terminal=False)
    screen.view.titles.clear()
    screen.feed(RunStarted("r1", "topic", "preset", 3, "tmux", None, True, {"A": "a", "B": "b"}))  # type: ignore[arg-type]
    screen.feed(RoundStarted(3, 3))
    a = TurnFinished(
        round=3, side="A", role="a", status="ok", duration_s=1.0, cost_usd=None,
        cost_estimated=False, tokens=None, new_points=("Fresh point",), stances=(),
        abstain=None, prose="x", warnings=(),
    )  # fmt: skip
    screen.feed(a)
    b = TurnFinished(
        round=3, side="B", role="b", status="ok", duration_s=1.0, cost_usd=None,
        cost_estimated=False, tokens=None, new_points=(), stances=(Stance("I1", "contest"),),
        abstain=None, prose="y", warnings=(),
    )  # fmt: skip
    screen.feed(b)
    printed = screen.printed()
    assert "contest I1" in printed and 'Fresh point"' not in printed


def test_a_turn_done_before_the_stop_is_printed_at_the_stop() -> None:
    screen = Screen()
    screen.feed(RoundStarted(1, 3))
    for seat in "AB":
        screen.feed(TurnStarted(1, seat, f"Role {seat} name"))  # type: ignore[arg-type]
    screen.feed(finished("B", "B's whole answer."))
    assert "B's whole answer" not in screen.printed()  # waits for A
    screen.view.close()  # Ctrl-C while A still writes
    assert "B's whole answer" in screen.printed()
