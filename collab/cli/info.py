"""The commands that say what collab knows: presets, the JSON schemas, whether this
machine can run a debate (``doctor``), the Claude Code skill, and ``--version``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from collab.cli import options as o
from collab.cli.options import echo_json

# -- collab --version ----------------------------------------------------------------------


def root(
    ctx: typer.Context,
    *,
    version: Annotated[bool, o.flag("--version", "Print the version and exit.")] = False,
    as_json: Annotated[
        bool, o.flag("--json", "With --version: print it as a JSON document.")
    ] = False,
) -> None:
    if version:
        if as_json:
            from collab.report import version_document

            echo_json(version_document())
        else:
            from collab import __version__

            sys.stdout.write(f"collab {__version__}\n")
        raise typer.Exit()
    if as_json:
        ctx.fail("--json goes after the command: collab COMMAND --json")
    if ctx.invoked_subcommand is None:
        ctx.fail("Missing command.")


# -- presets -------------------------------------------------------------------------------


def presets_list(ctx: typer.Context, as_json: o.Json = False) -> None:
    """List presets."""
    if ctx.invoked_subcommand is not None:
        return
    from rich.console import Console

    from collab.presets import load_presets
    from collab.report import presets_document

    presets = load_presets()
    if as_json:
        echo_json(presets_document(presets.values()))
        return
    from collab.cli.tables import presets_table

    Console().print(presets_table(list(presets.values())))


def presets_show(
    name: Annotated[str, typer.Argument(metavar="NAME", help="Preset name.")],
    as_json: o.Json = False,
) -> None:
    """Show every role of a preset."""
    from rich.console import Console
    from rich.panel import Panel
    from rich.text import Text

    from collab.presets import get_preset
    from collab.report import preset_document
    from collab.seats import SEAT_ICON

    p = get_preset(name)
    if as_json:
        echo_json(preset_document(p))
        return
    con = Console()
    con.print(Text.assemble((p.key, "bold"), f" — {p.title}"))
    con.print(p.summary, markup=False, highlight=False)
    for side, role in zip(p.labels, p.seats, strict=True):
        title = Text(f"{SEAT_ICON[side]} Role {side}: {role.name}")
        con.print(Panel(Text(role.description), title=title, title_align="left"))


# -- schema --------------------------------------------------------------------------------


def schema(
    name: Annotated[
        str | None,
        typer.Argument(metavar="NAME", help="e.g. collab.result/1; none lists the names."),
    ] = None,
) -> None:
    """Print the JSON Schema of a --json document (or list the documents)."""
    from collab.errors import UsageError
    from collab.report import SCHEMAS

    if name is None:
        sys.stdout.write("\n".join(SCHEMAS) + "\n")
        return
    if name not in SCHEMAS:
        from collab.suggest import did_you_mean

        hint = did_you_mean(name, SCHEMAS, f"choose one of: {', '.join(SCHEMAS)}")
        raise UsageError(f"unknown schema {name!r}; {hint}")
    echo_json(SCHEMAS[name])


# -- doctor --------------------------------------------------------------------------------


def doctor(
    live: Annotated[
        bool, o.flag("--live", "Also make one tiny real claude call (costs tokens).")
    ] = False,
    as_json: o.Json = False,
) -> None:
    """Check that tmux, the agent CLIs and the data dir are ready; exit 3 if not."""
    from collab import doctor as doc
    from collab.agents import load_agents
    from collab.report import doctor_document
    from collab.settings import user_defaults

    defaults = user_defaults()
    agents = load_agents()
    seats = [defaults.agent_a, defaults.agent_b, *defaults.agents, defaults.judge_agent]
    checks = doc.run_checks(agents, [s for s in seats if s != "command"], live)
    code = doc.exit_code(checks)
    if as_json:
        echo_json(doctor_document(checks))
    else:
        from rich.console import Console
        from rich.text import Text

        from collab.cli.tables import doctor_table

        Console().print(doctor_table(checks))
        if code:
            Console(stderr=True).print(
                Text("collab: the default path cannot run here; see the fixes above", style="red")
            )
    if code:
        raise typer.Exit(code)


# -- skill ---------------------------------------------------------------------------------


def skill_install(
    directory: Annotated[
        Path | None,
        typer.Option("--dir", metavar="PATH", help="Install into this directory instead."),
    ] = None,
    project: Annotated[
        bool, o.flag("--project", "Into ./.claude/skills/collab (this project).")
    ] = False,
    force: Annotated[bool, o.flag("--force", "Overwrite a changed SKILL.md.")] = False,
    as_json: o.Json = False,
) -> None:
    """Install SKILL.md where Claude Code finds skills (default ~/.claude/skills/collab/)."""
    from collab.report import skill_document
    from collab.skill import default_skill_dir, install_skill

    result = install_skill(directory or default_skill_dir(project), force)
    if as_json:
        echo_json(skill_document(result.action, result.path))
    else:
        sys.stderr.write(f"{result.action}: {result.path}\n")


def skill_show() -> None:
    """Print the skill's SKILL.md."""
    from collab.skill import skill_text

    sys.stdout.write(skill_text())
