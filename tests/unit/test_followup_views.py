"""What the views show after a debate ended: ``collab watch`` shows follow-ups (ask) and
continued rounds of a run, a flip of a seat's favoured option, and a continue's header
says it continues (not "Resuming"); an MCP ``debate_ask`` holds a concurrency slot."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pytest
from rich.console import Console

from collab.cli.live import DebateView
from collab.cli.watch import feed_view
from collab.errors import UsageError
from collab.events import (
    Event,
    FavoursFlipped,
    FollowupFinished,
    FollowupStarted,
    Logged,
    RoundsAdded,
    RunFinished,
    RunStarted,
    to_json,
)
from collab.events import Text as TextAdded
from collab.mcp_server.slots import holding_slot, live_runs, start_within_cap

ROLES = {"A": "Advocate", "B": "Critic"}


def view() -> tuple[DebateView, io.StringIO, io.StringIO]:
    err, out = io.StringIO(), io.StringIO()
    return DebateView(Console(file=err, width=120), Console(file=out, width=120)), err, out


def write_events(path: Path, *events: Event) -> None:
    lines = [json.dumps(to_json(Logged(n, 1.0 + n, ev))) for n, ev in enumerate(events, 1)]
    (path / "events.jsonl").write_text("\n".join(lines) + "\n")


def test_watch_shows_the_follow_ups_after_the_run_finished(tmp_path: Path) -> None:
    write_events(
        tmp_path,
        RunStarted("r", "Tabs?", "p", 2, "subprocess", None, False, ROLES),
        FavoursFlipped(2, "A", "O1", "O2"),
        RunFinished("done", 0, None),
        FollowupStarted("B", "What would change your mind?"),
        TextAdded("B", "A benchmark", followup=True),
        FollowupFinished("B", "A benchmark of **both**.", "ok"),
        FollowupStarted("judge", "Which is safer?"),
        FollowupFinished("judge", "Neither, yet.", "timeout"),
    )
    v, err, _ = view()
    assert feed_view(tmp_path, v) == 0  # the follow-ups keep the run finished
    shown = err.getvalue()
    assert "⇄ Role A now favours O2 (was O1) in round 2" in shown
    assert "Follow-up · Role B" in shown and "? What would change your mind?" in shown
    assert "↳ Role B" in shown and "A benchmark of both." in shown
    assert "Follow-up · the Judge" in shown and "↳ the Judge · timeout" in shown
    assert shown.index("What would change") < shown.index("A benchmark of both")


def test_watch_shows_the_rounds_a_continue_added(tmp_path: Path) -> None:
    write_events(
        tmp_path,
        RunFinished("done", 0, None),
        RoundsAdded(3, 2, "mind the cost"),
        RunStarted("r", "Tabs?", "p", 4, "subprocess", None, True, ROLES, continued=2,
                   note="mind the cost"),
        RunFinished("done", 0, None),
    )  # fmt: skip
    v, err, _ = view()
    assert feed_view(tmp_path, v) == 0
    shown = err.getvalue()
    assert "＋ 2 more round(s) from round 3 — note: mind the cost" in shown
    assert "Continuing debate (2 more rounds)" in shown and "Resuming" not in shown
    assert "note from the person who decides: mind the cost" in shown


@pytest.mark.parametrize(("continued", "title"), [(0, "Resuming debate"), (1, "Continuing debate")])
def test_a_continue_is_not_called_a_resume(continued: int, title: str) -> None:
    v, err, _ = view()
    v.handle(Logged(1, 1.0, RunStarted("r", "Tabs?", "p", 4, "tmux", None, True, ROLES,
                                       continued=continued)))  # fmt: skip
    assert title in err.getvalue()
    other = "Resuming debate" if continued else "Continuing debate"
    assert other not in err.getvalue()


def test_a_continue_drive_says_so_in_its_run_started() -> None:
    from collab.control.steer import extend
    from tests.unit.test_orchestrator import debate

    first = debate({}, rounds=2)
    state = extend(first.state, 1, "mind the cost")
    again = debate({}, state=state)
    started = [e for e in again.events if e["event"] == "run_started"]
    assert [(e["continued"], e["note"]) for e in started] == [(1, "mind the cost")]
    assert not any("continued" in e for e in first.events if e["event"] == "run_started")


# -- MCP: a follow-up holds a slot -----------------------------------------------------------


def test_an_ask_holds_a_slot_while_it_runs() -> None:
    with holding_slot(1, "20261201-120000-aaaaaa"):
        assert live_runs() == ["20261201-120000-aaaaaa"]
        with pytest.raises(UsageError, match="1 debates started over MCP are still running"):
            start_within_cap(1, lambda: ("never", None))
        with pytest.raises(UsageError, match="max_concurrent"), holding_slot(1, "b"):
            pass
        with holding_slot(2, "20261201-120000-bbbbbb"):
            assert len(live_runs()) == 2
    assert live_runs() == []  # given back
    assert start_within_cap(1, lambda: ("20261201-120000-cccccc", 7))[1] == 7


def test_a_dead_servers_hold_is_ignored(tmp_path: Path) -> None:
    from collab.paths import collab_home

    home = collab_home()
    home.mkdir(parents=True, exist_ok=True)
    dead = 2**22 + 12345  # above the default pid_max: never a live process
    assert not Path(f"/proc/{dead}").exists()
    (home / "mcp-holds.json").write_text(json.dumps([["r-dead", dead], ["r-me", os.getpid()]]))
    assert live_runs() == ["r-me"]
