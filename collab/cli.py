"""Command line: parse options, run the orchestrator, render the outcome, map errors."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from collab import cli_info
from collab import cli_options as o
from collab.cli_options import echo_json
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
    from collab.request import build_config
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
    from collab.preflight import check_prerequisites

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
        echo_json(b.document())
    elif view is not None:
        view.summary()
    if code:
        raise typer.Exit(code)


def _start(cfg: DebateConfig, *, as_json: bool) -> tuple[RunState, RunDir]:
    from collab.preflight import check_prerequisites
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
    from collab.orchestrator import drive

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
        echo_json(result_document(state, run_dir))
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
    from collab.state import load_state
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
    from collab.preflight import check_prerequisites

    check_prerequisites(state.config)
    state = _drive(state, run_dir, as_json=as_json, resumed=True)
    _finish(state, run_dir, as_json)


cli_info.register(app)


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
        echo_json({"schema": "collab.error/1", "error": {"kind": kind, "message": message},
                    "exit_code": code})  # fmt: skip
    else:
        from rich.console import Console
        from rich.text import Text

        Console(stderr=True).print(Text(f"collab: {message}", style="red"), soft_wrap=True)
    sys.exit(code)


if __name__ == "__main__":
    main()
