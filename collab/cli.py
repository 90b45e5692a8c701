"""Command line: parse options, run the orchestrator, render the outcome, map errors."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from collab import cli_options as o
from collab.errors import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_USAGE, CollabError

if TYPE_CHECKING:
    from collab.batch import Batch
    from collab.config import DebateConfig
    from collab.state import RunState
    from collab.store import RunDir

app = typer.Typer(
    name="collab",
    help="Autonomous multi-round debates between AI agent CLIs, ended by a neutral Judge.",
    no_args_is_help=True,
    pretty_exceptions_show_locals=False,
    add_completion=False,
    rich_markup_mode=None,
)
presets_app = typer.Typer(help="List the built-in and user presets, or show one.")
app.add_typer(presets_app, name="presets")


def _echo_json(doc: object) -> None:
    sys.stdout.write(json.dumps(doc, ensure_ascii=False, indent=2) + "\n")
    sys.stdout.flush()


# -- debate --------------------------------------------------------------------------------


@app.command()
def debate(
    topic: Annotated[str, typer.Argument(help='What to debate, e.g. "JWT vs sessions".')],
    *,
    preset: o.Preset = None,
    role_a: o.RoleA = None,
    role_b: o.RoleB = None,
    rounds: o.Rounds = None,
    context: o.Context = None,
    agent: o.Agent = None,
    agent_a: o.AgentA = None,
    agent_b: o.AgentB = None,
    judge_agent: o.JudgeAgent = None,
    model: o.Model = None,
    model_a: o.ModelA = None,
    model_b: o.ModelB = None,
    judge_model: o.JudgeModel = None,
    agent_command: o.AgentCommand = None,
    timeout: o.Timeout = None,
    judge_timeout: o.JudgeTimeout = None,
    budget: o.Budget = None,
    max_chars: o.MaxChars = None,
    max_cost: o.MaxCost = None,
    context_budget: o.ContextBudget = None,
    lang: o.Lang = None,
    runner: o.Runner = None,
    keep_temp: o.KeepTemp = False,
    as_json: o.Json = False,
) -> None:
    """Run a debate between Role A and Role B, then a neutral Judge summary."""
    from collab.agents import load_agents
    from collab.config import build_config
    from collab.settings import merge, user_defaults

    agents = load_agents()
    req = merge(
        user_defaults(),
        topic=topic, preset=preset, role_a=role_a, role_b=role_b, rounds=rounds,
        context=tuple(context) if context else None, agent=agent, agent_a=agent_a,
        agent_b=agent_b, judge_agent=judge_agent, model=model, model_a=model_a,
        model_b=model_b, judge_model=judge_model, agent_command=agent_command, turn_timeout=timeout,
        judge_timeout=judge_timeout, budget=budget, max_chars=max_chars, max_cost=max_cost,
        context_budget=context_budget, lang=lang, runner=runner, keep_temp=keep_temp or None,
    )  # fmt: skip
    cfg = build_config(req, agents.keys())
    state, run_dir = _start(cfg, as_json=as_json)
    _finish(state, run_dir, as_json)


@app.command()
def batch(
    topics_file: Annotated[
        Path, typer.Argument(help="Topics: .txt (one per line), .jsonl or .yaml.")
    ],
    *,
    parallel: Annotated[int, typer.Option("--parallel", "-P", help="Debates at once.")] = 2,
    preset: o.Preset = None,
    role_a: o.RoleA = None,
    role_b: o.RoleB = None,
    rounds: o.Rounds = None,
    context: o.Context = None,
    agent: o.Agent = None,
    agent_a: o.AgentA = None,
    agent_b: o.AgentB = None,
    judge_agent: o.JudgeAgent = None,
    model: o.Model = None,
    model_a: o.ModelA = None,
    model_b: o.ModelB = None,
    judge_model: o.JudgeModel = None,
    agent_command: o.AgentCommand = None,
    timeout: o.Timeout = None,
    judge_timeout: o.JudgeTimeout = None,
    budget: o.Budget = None,
    max_chars: o.MaxChars = None,
    max_cost: o.MaxCost = None,
    context_budget: o.ContextBudget = None,
    lang: o.Lang = None,
    runner: o.Runner = None,
    keep_temp: o.KeepTemp = False,
    as_json: o.Json = False,
) -> None:
    """Run a debate per topic in a file, several at once; options are defaults for each entry."""
    from collab.agents import load_agents
    from collab.batch import Batch
    from collab.batch_file import read_entries
    from collab.errors import UsageError
    from collab.settings import merge, user_defaults

    if not 1 <= parallel <= 32:
        raise UsageError(f"--parallel must be 1–32, got {parallel}")
    agents = load_agents()
    defaults = merge(
        user_defaults(),
        preset=preset, role_a=role_a, role_b=role_b, rounds=rounds,
        context=tuple(context) if context else None, agent=agent, agent_a=agent_a,
        agent_b=agent_b, judge_agent=judge_agent, model=model, model_a=model_a,
        model_b=model_b, judge_model=judge_model, agent_command=agent_command, turn_timeout=timeout,
        judge_timeout=judge_timeout, budget=budget, max_chars=max_chars, max_cost=max_cost,
        context_budget=context_budget, lang=lang, runner=runner, keep_temp=keep_temp or None,
    )  # fmt: skip
    from collab.runs import check_prerequisites

    entries = read_entries(topics_file, defaults, agents.keys())
    for entry in entries:
        check_prerequisites(entry.config)
    b = Batch.create(entries, topics_file, parallel)
    _run_batch(b, parallel, as_json)


def _run_batch(b: Batch, parallel: int, as_json: bool) -> None:
    from collab.batch_view import BatchView

    view = None if as_json else BatchView(b)
    try:
        code = b.run(parallel, on_tick=None if view is None else view.tick)
    finally:
        if view is not None:
            view.close()
    if as_json:
        _echo_json(b.document())
    elif view is not None:
        view.summary()
    if code:
        raise typer.Exit(code)


def _start(cfg: DebateConfig, *, as_json: bool) -> tuple[RunState, RunDir]:
    from collab.runs import check_prerequisites
    from collab.state import RunState
    from collab.store import RunDir, new_run_id

    check_prerequisites(cfg)
    run_dir = RunDir(new_run_id())
    run_dir.create()
    state = RunState(run_id=run_dir.run_id, config=cfg)
    run_dir.save(state.to_dict())
    return _drive(state, run_dir, as_json=as_json, resumed=False), run_dir


def _drive(state: RunState, run_dir: RunDir, *, as_json: bool, resumed: bool) -> RunState:
    from collab.events import Listener
    from collab.runs import drive

    if as_json:
        listener = Listener()
    else:
        from collab.ui import RichListener

        listener = RichListener()
    return drive(state, run_dir, listener, resumed=resumed)


def _finish(state: RunState, run_dir: RunDir, as_json: bool) -> None:
    from rich.console import Console
    from rich.text import Text

    from collab.report import fmt_cost, result_document

    if as_json:
        _echo_json(result_document(state, run_dir))
    else:
        err = Console(stderr=True)
        err.print(
            f"[dim]run {state.run_id} · {state.stop_reason} · {state.rounds_done()} rounds · "
            f"cost {fmt_cost(state.cost_usd())} · saved in {run_dir.path}[/dim]",
            highlight=False,
        )
        if state.status == "failed":
            err.print(Text(f"collab: run failed: {state.error}", style="red"))
    if state.status == "failed":
        raise typer.Exit(EXIT_FAILED)


# -- resume / list / show ---------------------------------------------------------------------


@app.command()
def resume(
    run_id: Annotated[str, typer.Argument(help="A run id (collab list) or a batch id.")],
    *,
    parallel: Annotated[
        int | None, typer.Option("--parallel", "-P", help="For a batch: debates at once.")
    ] = None,
    as_json: o.Json = False,
) -> None:
    """Continue a stopped or crashed run (or batch) at its first turn without a saved result."""
    from collab.errors import UsageError
    from collab.orchestrator import load_state
    from collab.store import RunDir

    if run_id.startswith("batch-"):
        from collab.batch import Batch

        b = Batch.load(run_id)
        _run_batch(b, parallel or b.parallel, as_json)
        return
    run_dir = RunDir(run_id)
    state = load_state(run_dir)
    if state.status == "done":
        raise UsageError(f"run {run_id} is already finished: collab show {run_id}")
    from collab.runs import check_prerequisites

    check_prerequisites(state.config)
    state = _drive(state, run_dir, as_json=as_json, resumed=True)
    _finish(state, run_dir, as_json)


@app.command("list")
def list_cmd(as_json: o.Json = False) -> None:
    """List runs, newest first."""
    from rich.console import Console
    from rich.table import Table

    from collab.store import list_runs

    runs = list_runs()
    rows = [_run_row(r) for r in runs]
    if as_json:
        _echo_json({"schema": "collab.list/1", "runs": rows})
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


@app.command()
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


@app.command()
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
    from collab.orchestrator import load_state
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

skill_app = typer.Typer(help="The Claude Code skill that lets Claude run collab for you.")
app.add_typer(skill_app, name="skill")


@skill_app.command("install")
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
        _echo_json({"schema": "collab.skill/1", "action": result.action, "path": str(result.path)})
    else:
        sys.stderr.write(f"{result.action}: {result.path}\n")


@skill_app.command("show")
def skill_show() -> None:
    """Print the skill's SKILL.md."""
    from collab.skill import skill_text

    sys.stdout.write(skill_text())


# -- doctor -----------------------------------------------------------------------------------


@app.command()
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
        _echo_json({
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


@app.command()
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
    _echo_json(SCHEMAS[name])


# -- presets ----------------------------------------------------------------------------------


@presets_app.callback(invoke_without_command=True)
def presets_list(ctx: typer.Context, as_json: o.Json = False) -> None:
    """List presets."""
    if ctx.invoked_subcommand is not None:
        return
    from rich.console import Console
    from rich.table import Table

    from collab.presets import load_presets

    presets = load_presets()
    if as_json:
        _echo_json({
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


@presets_app.command("show")
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
        _echo_json({
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


# -- entry point ------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> None:
    """Known errors: one line and an exit code. Unknown ones keep their traceback."""
    try:  # typer >= 0.2x vendors click as typer._click; older typer uses click itself
        from typer._click import exceptions as click_exc
    except ImportError:  # pragma: no cover
        from click import exceptions as click_exc  # type: ignore[no-redef, unused-ignore]

    args = sys.argv[1:] if argv is None else argv
    as_json = "--json" in args
    try:
        rv = app(args=args, prog_name="collab", standalone_mode=False)
    except CollabError as exc:
        _fail(str(exc), exc.exit_code, exc.kind, as_json)
    except click_exc.NoArgsIsHelpError as exc:
        exc.show()
        sys.exit(EXIT_USAGE)
    except click_exc.ClickException as exc:
        # Bad usage is one line too; say where the help is instead of printing it.
        ctx = getattr(exc, "ctx", None)
        hint = f" (see: {ctx.command_path} --help)" if ctx is not None else ""
        _fail(exc.format_message() + hint, EXIT_USAGE, "usage", as_json)
    except (typer.Abort, KeyboardInterrupt):
        _fail("interrupted", EXIT_INTERRUPTED, "interrupted", as_json)
    sys.exit(rv if isinstance(rv, int) else 0)


def _fail(message: str, code: int, kind: str, as_json: bool) -> None:
    if as_json:
        _echo_json({"schema": "collab.error/1", "error": {"kind": kind, "message": message},
                    "exit_code": code})  # fmt: skip
    else:
        from rich.console import Console
        from rich.text import Text

        Console(stderr=True).print(Text(f"collab: {message}", style="red"), soft_wrap=True)
    sys.exit(code)


if __name__ == "__main__":
    main()
