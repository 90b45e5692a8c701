"""The app built for one command has that command as the whole app has it, and the root
help lists every command as the whole app does. What the quick commands import (a fresh
interpreter each) is in tests/e2e/test_startup.py."""

from __future__ import annotations

from collab.request import DebateRequest, build_config
from collab.state import RunState
from collab.store import RunDir, new_run_id
from tests.helpers import whole_command


def a_run() -> str:
    cfg = build_config(
        DebateRequest(topic="t", agent_a="claude", agent_b="claude", judge_agent="claude"),
        {"claude"},
    )
    run_dir = RunDir(new_run_id())
    run_dir.create()
    run_dir.save(RunState(run_id=run_dir.run_id, config=cfg).to_dict())
    return run_dir.run_id


def test_an_app_built_for_one_command_has_that_command_as_the_whole_app_has_it() -> None:
    import typer.main

    from collab.cli import COMMANDS, GROUPS, build_app

    whole = whole_command()  # get_command(build_app()), made once a session (~30 ms)
    assert set(whole.commands) == {name for name, *_ in COMMANDS} | set(GROUPS)  # type: ignore[attr-defined]

    def described(command: object) -> object:
        params = [
            (p.name, p.opts, p.required, p.default, getattr(p, "help", None))
            for p in command.params
        ]  # type: ignore[attr-defined]
        return (params, command.help, getattr(command, "commands", {}).keys())  # type: ignore[attr-defined]

    for name in whole.commands:  # type: ignore[attr-defined]
        alone = typer.main.get_command(build_app(name))
        assert list(alone.commands) == [name]  # type: ignore[attr-defined]
        assert described(alone.commands[name]) == described(whole.commands[name])  # type: ignore[attr-defined]
        assert described(alone)[0] == described(whole)[0]  # the root's own options


def test_the_root_help_lists_every_command_as_the_whole_app_does() -> None:
    """``collab --help`` is made from the commands' stand-ins (name, help, panel)."""
    from click.testing import CliRunner as WholeRunner
    from typer.testing import CliRunner

    from collab.cli import build_app

    env = {"COLUMNS": "120", "NO_COLOR": "1"}
    # typer's runner on build_app() would make the whole command anew (~30 ms)
    whole = WholeRunner().invoke(whole_command(), ["--help"], prog_name="collab", env=env)
    listed = CliRunner().invoke(build_app(listed=True), ["--help"], prog_name="collab", env=env)
    assert whole.exit_code == listed.exit_code == 0
    assert listed.output == whole.output
    assert "debate" in whole.output and "presets" in whole.output
