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

import gc

# No cyclic garbage collection while the command line's modules load (typer, click,
# collab's options): they make ~100,000 objects that live as long as the process, and
# the collector would walk them again and again as they grow (~20 ms of CPU, a sixth of
# `collab --version`); once loaded they are frozen out of its sight (gc.freeze).
_COLLECTING = gc.isenabled()
gc.disable()

import contextlib  # noqa: E402
import importlib  # noqa: E402
import sys  # noqa: E402
import traceback  # noqa: E402
from collections.abc import Callable  # noqa: E402

import typer  # noqa: E402
import typer.core  # noqa: E402
import typer.main  # noqa: E402

from collab.cli import info  # noqa: E402
from collab.cli.command_classes import Command, Group  # noqa: E402
from collab.cli.options import echo_json, echo_json_line  # noqa: E402
from collab.errors import (  # noqa: E402
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_USAGE,
    CollabError,
    InputRefused,
)

try:  # typer >= 0.2x vendors click as typer._click; older typer uses click itself
    from typer._click import exceptions as click_exc
except ImportError:  # pragma: no cover
    from click import exceptions as click_exc  # type: ignore[no-redef,import-not-found,unused-ignore]

if _COLLECTING:
    gc.freeze()
    gc.enable()

DEBATES, RUNS, INFO = "Debates", "Runs", "Setup and reference"
CI = "Pull requests and CI"

# Every command: its name, the module (collab.cli.<module>) and function that run it, and
# its panel in the help. A command's module is imported only when the app is built with
# it: ``collab list --json`` builds (and imports) ``list`` alone; the help, a mistyped
# name and no command build them all.
COMMANDS: tuple[tuple[str, str, str, str], ...] = (
    ("debate", "debate", "debate", DEBATES),
    ("batch", "debate", "batch", DEBATES),
    ("resume", "debate", "resume", DEBATES),
    ("watch", "watch", "watch", DEBATES),
    ("attach", "watch", "attach", DEBATES),
    ("status", "background", "status", DEBATES),
    ("result", "background", "result", DEBATES),
    ("cancel", "background", "cancel", DEBATES),
    ("continue", "debate", "continue_debate", DEBATES),
    ("ask", "steer", "ask", DEBATES),
    ("decide", "steer", "decide", DEBATES),
    ("list", "runs", "list_runs", RUNS),
    ("show", "runs", "show", RUNS),
    ("export", "runs", "export", RUNS),
    ("stats", "stats", "stats", RUNS),
    ("gate", "ci", "gate", CI),
    ("comment", "ci", "comment", CI),
    ("doctor", "info", "doctor", INFO),
    ("schema", "info", "schema", INFO),
    ("mcp", "background", "mcp", INFO),
)
GROUPS = ("presets", "skill")
EPILOGS = {"debate": "DEBATE_EXAMPLES"}  # a command's epilog: a name in its module


def build_app(only: str | None = None, *, listed: bool = False) -> typer.Typer:
    """The app with every command, or with the command (or group) ``only`` alone: the
    same command, the same root options, the same help for it. ``listed``: each command
    as the root's help lists it (name, help, panel) without its options, for that help
    alone (making every command's options is most of what it would cost)."""
    app = typer.Typer(
        name="collab",
        help="Autonomous multi-round debates between AI agent CLIs, ended by a neutral Judge.",
        pretty_exceptions_show_locals=False,
        add_completion=False,
        rich_markup_mode="rich",
        cls=Group,
    )
    app.callback(invoke_without_command=True)(info.root)
    for name, module, function, panel in COMMANDS:
        if only in (None, name):
            home = importlib.import_module(f"collab.cli.{module}")
            run = getattr(home, function)
            epilog = getattr(home, EPILOGS[name]) if name in EPILOGS else None
            app.command(None if run.__name__ == name else name, cls=Command,
                        rich_help_panel=panel, epilog=epilog)(
                _listed(run) if listed else run)  # fmt: skip
    if only in (None, "presets"):
        presets_app = typer.Typer(
            help="List the built-in and user presets, or show one.", cls=Group
        )
        presets_app.callback(invoke_without_command=True)(info.presets_list)
        presets_app.command("show", cls=Command)(info.presets_show)
        app.add_typer(presets_app, name="presets", rich_help_panel=INFO)
    if only in (None, "skill"):
        skill_app = typer.Typer(
            help="The Claude Code skill that lets Claude run collab for you.", cls=Group
        )
        skill_app.command("install", cls=Command)(info.skill_install)
        skill_app.command("show", cls=Command)(info.skill_show)
        app.add_typer(skill_app, name="skill", rich_help_panel=INFO)
    return app


def _listed(run: Callable[..., object]) -> Callable[[], None]:
    """A command's stand-in in the root's help: its name and help, no options."""

    def stand_in() -> None:
        raise AssertionError("a listed command is never run")  # pragma: no cover

    stand_in.__name__, stand_in.__doc__ = run.__name__, run.__doc__
    return stand_in


_NAMES = frozenset(name for name, *_ in COMMANDS) | frozenset(GROUPS)


def _app_for(args: list[str]) -> typer.Typer:
    """The app ``args`` need: the named command's alone (it is the first argument), none
    for ``--version`` (the root's own option), else all of them."""
    if args and args[0] in _NAMES:
        return build_app(args[0])
    if args == ["--help"]:
        return build_app(listed=True)
    if "--version" in args and set(args) <= {"--version", "--json"}:
        return build_app("")
    return build_app()


def __getattr__(name: str) -> typer.Typer:
    """``collab.cli.app``: the whole app, built when first asked for."""
    if name != "app":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    app = build_app()
    globals()["app"] = app
    return app


def main(argv: list[str] | None = None) -> None:
    """Known errors: one line and an exit code. Unknown ones keep their traceback (and
    under --json, like every other path, still print exactly one document)."""
    args = sys.argv[1:] if argv is None else argv
    if not args:  # no command: the help, as the usage error it is (on stderr, exit 2)
        with contextlib.redirect_stdout(sys.stderr):
            build_app(listed=True)(args=["--help"], prog_name="collab", standalone_mode=False)
        sys.exit(EXIT_USAGE)
    try:
        rv = _app_for(args)(args=args, prog_name="collab", standalone_mode=False)
    except CollabError as exc:
        refused = exc.refused if isinstance(exc, InputRefused) else None
        _fail(str(exc), exc.exit_code, exc.kind, *_asks_for(args), refused=refused)
    except click_exc.ClickException as exc:
        # Bad usage is one line too; say where the help is instead of printing it.
        ctx = getattr(exc, "ctx", None)
        hint = f" (see: {ctx.command_path} --help)" if ctx is not None else ""
        _fail(exc.format_message() + hint, EXIT_USAGE, "usage", *_asks_for(args))
    except (typer.Abort, KeyboardInterrupt):
        _fail("interrupted", EXIT_INTERRUPTED, "interrupted", *_asks_for(args))
    except Exception as exc:
        as_json, ndjson = _asks_for(args)
        if not (as_json or ndjson):
            raise
        # A bug: its traceback still goes to stderr, and stdout still gets its one document.
        traceback.print_exc()
        _fail(f"internal error: {type(exc).__name__}: {exc}", EXIT_FAILED, "internal", as_json,
              ndjson)  # fmt: skip
    sys.exit(rv if isinstance(rv, int) else 0)


def _asks_for(args: list[str]) -> tuple[bool, bool]:
    """Whether the command line asked for ``--json`` and for ``--events``, as its parser
    reads it: "--json" as the topic (after ``--``) or as an option's value asks for
    nothing. Parsed again only here, on the way out with an error, without running any
    callback (click's parsers consume the list they are given: each gets a copy); a line
    the parser cannot read to its end (a mistyped command or option) keeps the words
    before ``--`` as what was asked."""
    words = args[: args.index("--")] if "--" in args else args
    guess = ("--json" in words, any(w == "--events" or w.startswith("--events=") for w in words))
    if not any(guess):
        return guess
    try:
        cmd, given = typer.main.get_command(_app_for(args)), list(args)
        ctx = cmd.make_context("collab", list(given), resilient_parsing=True)
        above = False  # --json given to a group before its command (collab --json list)
        while isinstance(cmd, typer.core.TyperGroup):
            rest = [*getattr(ctx, "_protected_args", ()), *ctx.args]
            if not rest:
                break
            above = above or bool(ctx.params.get("as_json"))
            name, sub, given = cmd.resolve_command(ctx, rest)
            if name is None or sub is None:
                return guess
            ctx = sub.make_context(name, list(given), parent=ctx, resilient_parsing=True)
            cmd = sub
        ctx.resilient_parsing = False  # the parser alone (no callbacks): strict
        opts, _, _ = cmd.make_parser(ctx).parse_args(args=given)
    except Exception:
        return guess
    return above or bool(opts.get("as_json")), opts.get("events") is not None


def _fail(
    message: str,
    code: int,
    kind: str,
    as_json: bool,
    ndjson: bool = False,
    *,
    refused: str | None = None,
) -> None:
    if as_json or ndjson:
        from collab.report import error_document

        doc = error_document(kind, message, code, refused)
        echo_json_line(doc) if ndjson and not as_json else echo_json(doc)
    else:
        from rich.text import Text

        from collab.cli.console import stderr_console

        stderr_console().print(Text(f"collab: {message}", style="red"), soft_wrap=True)
    sys.exit(code)
