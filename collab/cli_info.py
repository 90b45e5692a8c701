"""The commands that read what collab keeps or knows: runs, presets, the skill, the
environment and the JSON schemas. ``register`` adds them to the CLI app."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from collab import cli_options as o
from collab.cli_options import echo_json


def register(app: typer.Typer) -> None:
    app.command("list")(list_cmd)
    app.command()(show)
    app.command()(export)
    app.command()(doctor)
    app.command()(schema)
    presets_app = typer.Typer(help="List the built-in and user presets, or show one.")
    presets_app.callback(invoke_without_command=True)(presets_list)
    presets_app.command("show")(presets_show)
    app.add_typer(presets_app, name="presets")
    skill_app = typer.Typer(help="The Claude Code skill that lets Claude run collab for you.")
    skill_app.command("install")(skill_install)
    skill_app.command("show")(skill_show)
    app.add_typer(skill_app, name="skill")


def list_cmd(as_json: o.Json = False) -> None:
    """List runs, newest first."""
    from rich.console import Console
    from rich.table import Table

    from collab.store import list_runs

    runs = list_runs()
    rows = [_run_row(r) for r in runs]
    if as_json:
        echo_json({"schema": "collab.list/1", "runs": rows})
        return
    if not rows:
        Console(stderr=True).print('no runs yet: collab debate "TOPIC"')
        return
    table = Table(title="collab runs")
    for col in ("id", "date", "topic", "preset", "rounds", "status", "stop"):
        table.add_column(col, overflow="fold")
    for r in rows:
        table.add_row(
            str(r["run_id"]), str(r["created"])[:16].replace("T", " "), _short(str(r["topic"]), 50),
            str(r["preset"]), f"{r['rounds_done']}/{r['rounds']}", str(r["status"]),
            str(r["stop_reason"] or "—"),
        )  # fmt: skip
    Console().print(table)


def _run_row(raw: dict[str, Any]) -> dict[str, object]:
    cfg = raw.get("config") or {}
    return {
        "run_id": raw.get("run_id"),
        "created": raw.get("created"),
        "topic": cfg.get("topic"),
        "preset": cfg.get("preset"),
        "rounds_done": raw.get("rounds_done", 0),
        "rounds": cfg.get("rounds"),
        "status": raw.get("status"),
        "stop_reason": raw.get("stop_reason"),
        "cost_usd": raw.get("cost_usd"),
    }


def _short(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


def show(
    run_id: Annotated[str, typer.Argument(help="The run id (collab list).")],
    *,
    fmt: Annotated[str, typer.Option("--format", "-f", help="md, json or html.")] = "md",
    as_json: o.Json = False,
) -> None:
    """Show a run: transcript, ledger and judge summary."""
    from collab.ui import clean

    kind = "json" if as_json else fmt
    text = _render_run(run_id, kind)
    # Stored model text reaches a terminal here: no raw escapes (JSON escapes them itself).
    sys.stdout.write(text if kind == "json" else clean(text))


def export(
    run_id: Annotated[str, typer.Argument(help="The run id (collab list).")],
    *,
    output: Annotated[
        Path, typer.Option("--output", "-o", help="File to write: .html, .md or .json.")
    ],
    fmt: Annotated[
        str | None, typer.Option("--format", "-f", help="html, md or json [default: from -o].")
    ] = None,
) -> None:
    """Write a run's report to a file (one self-contained HTML page, Markdown or JSON)."""
    from collab.errors import UsageError
    from collab.store import atomic_write

    kind = fmt or {".html": "html", ".htm": "html", ".md": "md", ".json": "json"}.get(
        output.suffix.lower(), ""
    )
    if not kind:
        raise UsageError(f"cannot tell the format from {output.name!r}; pass --format")
    text = _render_run(run_id, kind)
    if output.is_dir():
        raise UsageError(f"{output} is a directory")
    try:
        atomic_write(output, text)
    except OSError as exc:
        raise UsageError(f"cannot write {output}: {exc.strerror}") from None
    sys.stderr.write(f"wrote {output}\n")


def _render_run(run_id: str, fmt: str) -> str:
    from collab.errors import UsageError
    from collab.state import load_state
    from collab.store import RunDir

    if fmt not in ("md", "json", "html"):
        raise UsageError(f"--format must be md, json or html, got {fmt!r}")
    run_dir = RunDir(run_id)
    state = load_state(run_dir)
    if fmt == "json":
        from collab.report import result_document

        return json.dumps(result_document(state, run_dir), ensure_ascii=False, indent=2) + "\n"
    if fmt == "html":
        from collab.html_report import render_html

        return render_html(state)
    from collab.html_report import render_markdown_report

    return render_markdown_report(state)


# -- skill ------------------------------------------------------------------------------------


def skill_install(
    directory: Annotated[
        Path | None, typer.Option("--dir", help="Install into this directory instead.")
    ] = None,
    project: Annotated[
        bool, typer.Option("--project", help="Into ./.claude/skills/collab (this project).")
    ] = False,
    force: Annotated[bool, typer.Option("--force", help="Overwrite a changed SKILL.md.")] = False,
    as_json: o.Json = False,
) -> None:
    """Install SKILL.md where Claude Code finds skills (default ~/.claude/skills/collab/)."""
    from collab.skill import default_skill_dir, install_skill

    result = install_skill(directory or default_skill_dir(project), force)
    if as_json:
        echo_json({"schema": "collab.skill/1", "action": result.action, "path": str(result.path)})
    else:
        sys.stderr.write(f"{result.action}: {result.path}\n")


def skill_show() -> None:
    """Print the skill's SKILL.md."""
    from collab.skill import skill_text

    sys.stdout.write(skill_text())


# -- doctor -----------------------------------------------------------------------------------


def doctor(
    live: Annotated[
        bool, typer.Option("--live", help="Also make one tiny real claude call (costs tokens).")
    ] = False,
    as_json: o.Json = False,
) -> None:
    """Check that tmux, the agent CLIs and the data dir are ready; exit 3 if not."""
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from collab import doctor as doc
    from collab.agents import load_agents
    from collab.settings import user_defaults

    defaults = user_defaults()
    agents = load_agents()
    seats = [defaults.agent_a, defaults.agent_b, defaults.judge_agent]
    checks = doc.run_checks(agents, [s for s in seats if s != "command"], live)
    code = doc.exit_code(checks)
    if as_json:
        echo_json({
            "schema": "collab.doctor/1", "ok": code == 0,
            "checks": [{"name": c.name, "level": c.level, "detail": c.detail, "fix": c.fix}
                       for c in checks],
        })  # fmt: skip
    else:
        marks = {"ok": ("✓", "green"), "warn": ("!", "yellow"), "fail": ("✗", "red"),
                 "info": ("·", "dim")}  # fmt: skip
        table = Table(title="collab doctor", title_justify="left")
        for col in ("", "check", "result", "fix"):
            table.add_column(col, overflow="fold")
        for c in checks:
            mark, style = marks[c.level]
            table.add_row(Text(mark, style=style), c.name, Text(c.detail), Text(c.fix))
        Console().print(table)
        if code:
            Console(stderr=True).print(
                Text("collab: the default path cannot run here; see the fixes above", style="red")
            )
    if code:
        raise typer.Exit(code)


# -- schema -----------------------------------------------------------------------------------


def schema(
    name: Annotated[
        str | None, typer.Argument(help="e.g. collab.result/1; none lists the names.")
    ] = None,
) -> None:
    """Print the JSON Schema of a --json document (or list the documents)."""
    from collab.errors import UsageError
    from collab.schemas import SCHEMAS

    if name is None:
        sys.stdout.write("\n".join(SCHEMAS) + "\n")
        return
    if name not in SCHEMAS:
        raise UsageError(f"unknown schema {name!r}; choose one of: {', '.join(SCHEMAS)}")
    echo_json(SCHEMAS[name])


# -- presets ----------------------------------------------------------------------------------


def presets_list(ctx: typer.Context, as_json: o.Json = False) -> None:
    """List presets."""
    if ctx.invoked_subcommand is not None:
        return
    from rich.console import Console
    from rich.table import Table

    from collab.presets import load_presets

    presets = load_presets()
    if as_json:
        echo_json({
            "schema": "collab.presets/1",
            "presets": [
                {"key": p.key, "title": p.title, "summary": p.summary,
                 "role_a": p.role_a.name, "role_b": p.role_b.name, "source": p.source}
                for p in presets.values()
            ],
        })  # fmt: skip
        return
    table = Table(title="presets (collab presets show NAME)")
    for col in ("preset", "Role A", "Role B", "when to use"):
        table.add_column(col, overflow="fold")
    for p in presets.values():
        table.add_row(p.key, p.role_a.name, p.role_b.name, p.summary)
    Console().print(table)


def presets_show(
    name: Annotated[str, typer.Argument(help="Preset name.")],
    as_json: o.Json = False,
) -> None:
    """Show both roles of a preset."""
    from rich.console import Console
    from rich.panel import Panel

    from collab.presets import get_preset

    p = get_preset(name)
    if as_json:
        echo_json({
            "schema": "collab.preset/1", "key": p.key, "title": p.title, "summary": p.summary,
            "role_a": {"name": p.role_a.name, "description": p.role_a.description},
            "role_b": {"name": p.role_b.name, "description": p.role_b.description},
            "source": p.source,
        })  # fmt: skip
        return
    con = Console()
    con.print(f"[bold]{p.key}[/bold] — {p.title}", highlight=False)
    con.print(p.summary, markup=False, highlight=False)
    con.print(Panel(p.role_a.description, title=f"🔵 Role A: {p.role_a.name}", title_align="left"))
    con.print(Panel(p.role_b.description, title=f"🔴 Role B: {p.role_b.name}", title_align="left"))
