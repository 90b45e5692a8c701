"""Options more than one command takes, and the one JSON document a ``--json`` command
prints.

The debate options are derived from their declaration in ``collab.options``: flag, type,
metavar, help and the default shown in it. They default to None here, so that the
user's ``[defaults]`` in config.toml can fill in what the command line did not say (see
``collab.settings``); the help shows the built-in default.
"""

from __future__ import annotations

import functools
import inspect
import json
import sys
from collections.abc import Callable, Mapping
from typing import Annotated, Any

import typer

from collab.options import OPTIONS, OUTPUT, ROLES, Option, offered
from collab.text import clean_tree

__all__ = ["OUTPUT", "ROLES"]  # the panels, for the commands' own options
_ANNOTATED: Any = Annotated  # subscripted with types known only at run time
LEAD = ("rounds", "depth")  # first in a debate command's help


MAX_WAIT = 3600.0  # seconds: the longest --wait (status, cancel)


def checked_wait(wait: float) -> float:
    """A ``--wait`` of 0–:data:`MAX_WAIT` seconds (not negative, not nan or inf)."""
    from collab.errors import UsageError

    if not 0 <= wait <= MAX_WAIT:
        raise UsageError(f"--wait must be 0–{MAX_WAIT:g} seconds, got {wait:g}")
    return wait


def echo_json(doc: object) -> None:
    """The one JSON document a --json command prints."""
    sys.stdout.write(json.dumps(clean_tree(doc), ensure_ascii=False, indent=2) + "\n")
    sys.stdout.flush()


def echo_json_line(doc: object) -> None:
    """One JSON document on one line (``--events ndjson``: a line per event)."""
    line = json.dumps(clean_tree(doc), ensure_ascii=False, separators=(",", ":"))
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def flag(name: str, help_text: str, panel: str | None = None) -> Any:
    """A flag: no metavar (typer would show ``<bool>``, as if it took a value)."""
    return typer.Option(name, metavar="", help=help_text, rich_help_panel=panel)


Json = Annotated[bool, flag("--json", "Print exactly one JSON document on stdout.")]
RunJson = Annotated[
    bool, flag("--json", "Print exactly one JSON document on stdout, nothing else.", OUTPUT)
]

Events = Annotated[
    str | None,
    typer.Option("--events", metavar="FORMAT", rich_help_panel=OUTPUT,
                 help="ndjson: print the run's events on stdout as they happen, one JSON "
                 "object a line (collab.event/1), the last line the collab.result/2 document."),
]  # fmt: skip


def _help(opt: Option) -> str:
    default = opt.shown_default
    # shown the way typer shows a default it knows (the real default is None)
    return opt.help + (f" [dim]\\[default: {default}][/dim]" if default is not None else "")


def _parameter(opt: Option) -> inspect.Parameter:
    if opt.kind is bool:
        annotation = _ANNOTATED[bool, flag(opt.flags[0], opt.help, opt.panel)]
        default: object = False
    else:
        kind = list[str] if opt.kind is tuple else opt.kind
        given = typer.Option(*opt.flags, metavar=opt.metavar, help=_help(opt),
                             rich_help_panel=opt.panel)  # fmt: skip
        annotation, default = _ANNOTATED[kind | None, given], None
    return inspect.Parameter(opt.name, inspect.Parameter.KEYWORD_ONLY, default=default,
                             annotation=annotation)  # fmt: skip


def with_debate_options(
    command: Callable[..., None], options: Mapping[str, Option] = OPTIONS
) -> Callable[..., None]:
    """Give ``command`` every debate option the command line offers, where its keyword-only
    ``given`` parameter stands. Typer reads a command's options from its signature, so the
    wrapper shows it the combined one; the command receives the options the command line
    actually gave as one dict (for ``request.request_from``)."""
    shared = [_parameter(opt) for opt in offered("cli", options)]
    names = [p.name for p in shared]
    # The most used options lead the help (their panel first): --rounds, --depth.
    lead = sorted((p for p in shared if p.name in LEAD), key=lambda p: LEAD.index(p.name))
    shared = [p for p in shared if p.name not in LEAD]
    own = inspect.signature(command, eval_str=True)
    params: list[inspect.Parameter] = []
    for param in own.parameters.values():
        if param.kind is inspect.Parameter.KEYWORD_ONLY and lead:
            params.extend(lead)
            lead = []
        params.extend(shared if param.name == "given" else [param])

    @functools.wraps(command)
    def wrapper(**kwargs: Any) -> None:
        values = {name: kwargs.pop(name) for name in names}
        given = {name: tuple(v) if isinstance(v, list) else v
                 for name, v in values.items() if v is not None and v is not False}  # fmt: skip
        command(given=given, **kwargs)

    wrapper.__signature__ = own.replace(parameters=params)  # type: ignore[attr-defined]
    wrapper.__annotations__ = {p.name: p.annotation for p in params} | {"return": None}
    return wrapper
