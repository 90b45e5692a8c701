"""The small things a person reads (issue 25, item 8), each observed: export's default
file and its mode, the help's metavars and examples, one "no reply within Ns" per timed
out turn, piped stderr without padding, resume's recap, ``collab attach``, one cost
format. Runs are real ones on the in-process runner; commands go through typer's runner
at 80 and 160 columns."""

from __future__ import annotations

import functools
import io
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from rich.console import Console

from collab.cli.console import stderr_console
from collab.cli.finish import resume_recap
from collab.cli.live import DebateView
from collab.orchestrator import Orchestrator
from collab.runners.inprocess import SCRIPTED_AGENTS, InProcessRunner, Reply, script
from collab.state import RunState
from collab.store import RunDir, new_run_id
from tests.helpers import whole_command
from tests.unit.test_orchestrator import config, fresh_point
from tests.unit.test_outcome_views import finished, interrupted

# Flags, arguments and groups of every kind (the fix is in the command classes all share).
COMMANDS = ["debate", "batch", "resume", "status", "attach", "export", "presets", "skill install"]


def cli(*args: str, width: int = 160) -> tuple[int, str]:
    env = {"COLUMNS": str(width), "NO_COLOR": "1"}
    res = CliRunner().invoke(whole_command(), list(args), env=env)
    return res.exit_code, res.output


@functools.cache
def help_of(*command: str, width: int) -> tuple[int, str]:
    """``cli(*command, "--help", width=width)``, rendered once a session: a command's help
    depends on the command and the width alone (no run, no home), and rich draws debate's
    in ~45 ms of CPU; two tests read it at each width, one of them twice."""
    return cli(*command, "--help", width=width)


# -- export ------------------------------------------------------------------------------


def test_export_without_o_writes_a_default_file_and_says_where_and_its_mode(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    state = finished().state
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    code, out = cli("export", state.run_id)
    assert code == 0
    (written,) = here.iterdir()
    assert written.name.startswith("collab-") and written.suffix == ".html"
    assert state.run_id.endswith(written.stem.removeprefix("collab-"))  # its short id
    assert f"wrote {written}" in out and "0600" in out
    assert written.stat().st_mode & 0o777 == 0o600
    code, out = cli("export", state.run_id, "-f", "md")
    assert code == 0 and (here / f"{written.stem}.md").is_file()


# -- --help ------------------------------------------------------------------------------


@pytest.mark.parametrize("width", [80, 160])
def test_help_shows_no_type_placeholders(width: int) -> None:
    for command in COMMANDS:
        code, out = help_of(*command.split(), width=width)
        assert code == 0, command
        for junk in ("<bool>", "<str>", "<path>"):
            assert junk not in out, (command, junk)
    code, out = help_of("debate", width=width)
    assert "TOPIC" in out and "--gate" in out  # the names stay


@pytest.mark.parametrize("width", [80, 160])
def test_debate_help_leads_with_rounds_and_ends_with_examples(width: int) -> None:
    code, out = help_of("debate", width=width)
    assert code == 0
    at = {flag: out.index(flag) for flag in ("--rounds", "--depth", "--preset", "--timeout")}
    assert at["--rounds"] < at["--depth"] < at["--preset"] < at["--timeout"]
    examples = out[out.index("Examples") :]
    assert 'collab debate "JWT vs sessions" --rounds 2' in examples
    assert examples.count("$ collab debate") >= 3


# -- what a run prints -----------------------------------------------------------------


def run_viewed(replies: dict[str, list[Reply | str]], **options: object) -> tuple[str, str]:
    """A run with the live view on non-terminal streams: (stderr, stdout)."""
    err, out = io.StringIO(), io.StringIO()
    saved = sys.stderr
    sys.stderr = err
    try:
        view = DebateView(out=Console(file=out))  # stderr: the console collab picks
    finally:
        sys.stderr = saved
    runner = InProcessRunner(script(replies, fresh_point))
    run_dir = RunDir(new_run_id())
    run_dir.create()
    state = RunState(run_id=run_dir.run_id, config=config(**options), status="pending")
    Orchestrator(
        state, run_dir, agents=SCRIPTED_AGENTS, runner_factory=runner.factory,
        event_sinks=[view.handle], clock=runner.clock,
    ).run()  # fmt: skip
    view.close()
    return err.getvalue(), out.getvalue()


def test_a_timed_out_turn_says_no_reply_once() -> None:
    err, _ = run_viewed({"r1-A": [Reply(hang=True), Reply(hang=True)]}, rounds=1, timeout=8.0)
    assert "retrying once" in err
    assert err.count("no reply within 8s") == 1


def test_piped_stderr_lines_end_without_padding() -> None:
    err, out = run_viewed({}, rounds=2)
    lines = err.splitlines()
    assert len(lines) > 20 and "My argument." in err  # the view was drawn
    padded = [line for line in lines if line != line.rstrip(" ")]
    assert not padded, padded[:3]
    assert "The Judge's summary." in out


def test_the_unpadded_stream_keeps_every_word() -> None:
    sink = io.StringIO()
    saved = sys.stderr
    sys.stderr = sink
    try:
        console = stderr_console()
    finally:
        sys.stderr = saved
    console.print("a line   \nand  a   second", "  ")
    assert sink.getvalue() == "a line\nand  a   second\n"  # only the padding goes


def test_resume_says_where_it_takes_the_run_up() -> None:
    state = interrupted().state
    recap = resume_recap(state).plain
    assert "(interrupted) at round 2/3, Role B's turn" in recap  # round 2 ends with A
    assert "1/3 rounds done, 2 turns kept" in recap
    assert "2 open (1 blocking) · 0 resolved · 0 dropped" in recap
    assert "cost so far $0.0200" in recap
    judged = finished().state
    judged.judge = None  # every turn kept, the summary not: the Judge is next
    assert "at the Judge's summary" in resume_recap(judged).plain


@pytest.mark.parametrize("width", [80, 160])
def test_attach_to_a_finished_run_shows_its_summary_not_a_replay(width: int) -> None:
    state = finished().state
    code, out = cli("attach", state.run_id[-6:], width=width)
    assert code == 0
    assert "The Judge's summary." in out
    assert "verdict split" in out
    assert "Round 1/" not in out  # not the whole debate again


def test_a_cost_reads_the_same_in_status_as_everywhere() -> None:
    state = finished().state
    code, out = cli("status", state.run_id)
    assert code == 0 and "$0.0500" in out  # not $0.05 here and $0.0500 elsewhere
