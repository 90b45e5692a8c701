"""The ``collab`` command line: the app wired from one module per group of commands, and
``main``, which turns every known error into one line (or one JSON document) and an
exit code.

``debate`` runs debates (debate, batch, resume), ``runs`` reads kept runs (list, show,
export), ``background`` follows a detached run (status, result, cancel) and serves MCP
(mcp), ``watch`` and ``stats`` their commands, ``info`` says what collab knows (presets,
schema, doctor, skill, --version); ``options`` holds what they share,
``live``/``batch_view``/``tables`` what they show. rich and typer are imported nowhere
else in collab.
"""

from __future__ import annotations

import contextlib
import sys
import traceback

import typer

from collab.cli import background, ci, debate, info, runs, stats, steer, watch
from collab.cli.command_classes import Command, Group
from collab.cli.options import echo_json, echo_json_line
from collab.errors import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_USAGE, CollabError

try:  # typer >= 0.2x vendors click as typer._click; older typer uses click itself
    from typer._click import exceptions as click_exc
except ImportError:  # pragma: no cover
    from click import exceptions as click_exc  # type: ignore[no-redef,import-not-found,unused-ignore]

DEBATES, RUNS, INFO = "Debates", "Runs", "Setup and reference"
CI = "Pull requests and CI"

app = typer.Typer(
    name="collab",
    help="Autonomous multi-round debates between AI agent CLIs, ended by a neutral Judge.",
    pretty_exceptions_show_locals=False,
    add_completion=False,
    rich_markup_mode="rich",
    cls=Group,
)
app.callback(invoke_without_command=True)(info.root)
app.command(cls=Command, rich_help_panel=DEBATES, epilog=debate.DEBATE_EXAMPLES)(debate.debate)
app.command(cls=Command, rich_help_panel=DEBATES)(debate.batch)
app.command(cls=Command, rich_help_panel=DEBATES)(debate.resume)
app.command(cls=Command, rich_help_panel=DEBATES)(watch.watch)
app.command(cls=Command, rich_help_panel=DEBATES)(watch.attach)
app.command(cls=Command, rich_help_panel=DEBATES)(background.status)
app.command(cls=Command, rich_help_panel=DEBATES)(background.result)
app.command(cls=Command, rich_help_panel=DEBATES)(background.cancel)
app.command("continue", cls=Command, rich_help_panel=DEBATES)(debate.continue_debate)
app.command(cls=Command, rich_help_panel=DEBATES)(steer.ask)
app.command(cls=Command, rich_help_panel=DEBATES)(steer.decide)
app.command("list", cls=Command, rich_help_panel=RUNS)(runs.list_runs)
app.command(cls=Command, rich_help_panel=RUNS)(runs.show)
app.command(cls=Command, rich_help_panel=RUNS)(runs.export)
app.command(cls=Command, rich_help_panel=RUNS)(stats.stats)
app.command(cls=Command, rich_help_panel=CI)(ci.gate)
app.command(cls=Command, rich_help_panel=CI)(ci.comment)
app.command(cls=Command, rich_help_panel=INFO)(info.doctor)
app.command(cls=Command, rich_help_panel=INFO)(info.schema)
app.command(cls=Command, rich_help_panel=INFO)(background.mcp)

presets_app = typer.Typer(help="List the built-in and user presets, or show one.", cls=Group)
presets_app.callback(invoke_without_command=True)(info.presets_list)
presets_app.command("show", cls=Command)(info.presets_show)
app.add_typer(presets_app, name="presets", rich_help_panel=INFO)

skill_app = typer.Typer(
    help="The Claude Code skill that lets Claude run collab for you.", cls=Group
)
skill_app.command("install", cls=Command)(info.skill_install)
skill_app.command("show", cls=Command)(info.skill_show)
app.add_typer(skill_app, name="skill", rich_help_panel=INFO)


def main(argv: list[str] | None = None) -> None:
    """Known errors: one line and an exit code. Unknown ones keep their traceback (and
    under --json, like every other path, still print exactly one document)."""
    args = sys.argv[1:] if argv is None else argv
    if not args:  # no command: the help, as the usage error it is (on stderr, exit 2)
        with contextlib.redirect_stdout(sys.stderr):
            app(args=["--help"], prog_name="collab", standalone_mode=False)
        sys.exit(EXIT_USAGE)
    as_json = "--json" in args
    ndjson = "--events" in args
    try:
        rv = app(args=args, prog_name="collab", standalone_mode=False)
    except CollabError as exc:
        _fail(str(exc), exc.exit_code, exc.kind, as_json, ndjson)
    except click_exc.ClickException as exc:
        # Bad usage is one line too; say where the help is instead of printing it.
        ctx = getattr(exc, "ctx", None)
        hint = f" (see: {ctx.command_path} --help)" if ctx is not None else ""
        _fail(exc.format_message() + hint, EXIT_USAGE, "usage", as_json, ndjson)
    except (typer.Abort, KeyboardInterrupt):
        _fail("interrupted", EXIT_INTERRUPTED, "interrupted", as_json, ndjson)
    except Exception as exc:
        if not (as_json or ndjson):
            raise
        # A bug: its traceback still goes to stderr, and stdout still gets its one document.
        traceback.print_exc()
        _fail(f"internal error: {type(exc).__name__}: {exc}", EXIT_FAILED, "internal", as_json,
              ndjson)  # fmt: skip
    sys.exit(rv if isinstance(rv, int) else 0)


def _fail(message: str, code: int, kind: str, as_json: bool, ndjson: bool = False) -> None:
    if as_json or ndjson:
        from collab.report import error_document

        doc = error_document(kind, message, code)
        echo_json_line(doc) if ndjson and not as_json else echo_json(doc)
    else:
        from rich.text import Text

        from collab.cli.console import stderr_console

        stderr_console().print(Text(f"collab: {message}", style="red"), soft_wrap=True)
    sys.exit(code)
