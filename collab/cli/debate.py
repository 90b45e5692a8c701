"""The commands that run debates: ``debate``, ``batch`` and ``resume``.

The domain modules load inside the commands, so that ``collab --help`` stays fast.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from collab.cli import background as c
from collab.cli import ci
from collab.cli import options as o
from collab.cli.options import echo_json, echo_json_line, with_debate_options
from collab.cli.runs import RunId
from collab.errors import EXIT_FAILED

if TYPE_CHECKING:
    from collections.abc import Mapping

    from collab.agents import AgentSpec
    from collab.batch.record import Batch
    from collab.config import DebateConfig
    from collab.doctor import Ready
    from collab.events import Logged
    from collab.gate import Policy
    from collab.state import RunState
    from collab.store import RunDir

# Shown under ``collab debate --help``; each line works as written (test_doc_commands
# runs the same ones from the README).
DEBATE_EXAMPLES = """[bold]Examples[/bold]

[dim]$[/dim] collab debate "JWT vs sessions" --rounds 2

[dim]$[/dim] collab debate "Adopt a monorepo?" -p maintainer-vs-innovator -c docs/design.md

[dim]$[/dim] collab debate "Is this retry idempotent?" --depth quick

[dim]$[/dim] collab debate --topic-file topic.txt --detach    [dim]# then: collab watch @last[/dim]

More: collab presets · docs/options.md"""

Parallel = Annotated[int, typer.Option("--parallel", "-P", metavar="N", help="Debates at once.")]
TrustEntries = Annotated[
    bool,
    typer.Option(
        "--trust-entries",
        help="Let entries set agent_command, tools, agent_setup and context outside the "
        "file's folder (only for a topics file you wrote or checked).",
    ),
]


@with_debate_options
def debate(
    topic: Annotated[
        str | None,
        typer.Argument(
            metavar="TOPIC",
            help='What to debate, e.g. "JWT vs sessions"; - reads it from stdin.',
            show_default=False,
        ),
    ] = None,
    *,
    topic_file: c.TopicFile = None,
    detach: c.Detach = False,
    given: dict[str, object],
    as_json: o.RunJson = False,
    events: o.Events = None,
    gate: ci.GateFlag = False,
    fail_on: ci.FailOn = None,
) -> None:
    """Run a debate between Role A and Role B, then a neutral Judge summary."""
    from dataclasses import replace

    from collab.agents import load_agents
    from collab.request import build_config, request_from
    from collab.settings import user_defaults

    ndjson = _events_mode(events, as_json)
    policy = ci.gate_policy(gate, fail_on, detach)
    text = c.read_topic(topic, topic_file)
    agents = load_agents()
    req = replace(request_from(given, "cli", user_defaults()), topic=text)
    cfg = build_config(req, agents.keys())
    if detach:
        _detach(cfg, agents, as_json=as_json, ndjson=ndjson)
        return
    state, run_dir = _start(cfg, agents, as_json=as_json, ndjson=ndjson)
    _finish(state, run_dir, as_json, ndjson=ndjson, gate=policy)


def _detach(
    cfg: DebateConfig, agents: Mapping[str, AgentSpec], *, as_json: bool, ndjson: bool
) -> None:
    """Start the run in its own session and return: the run id on stdout."""
    from collab.control import start_detached, started_document
    from collab.doctor import check_prerequisites

    if ndjson:
        from collab.errors import UsageError

        raise UsageError("--events ndjson follows a run in the foreground; with --detach use "
                         "collab watch ID")  # fmt: skip
    check_prerequisites(cfg, agents)
    started = start_detached(cfg)
    doc = started_document(started, cfg)
    if as_json:
        echo_json(doc)
        return
    for line in [] if started.plan is None else started.plan.lines():
        sys.stderr.write(line + "\n")
    for warning in doc["warnings"] if isinstance(doc["warnings"], list) else []:
        sys.stderr.write(f"warning: {warning}\n")
    sys.stdout.write(f"{doc['run_id']}\n")
    rid = doc["run_id"]
    sys.stderr.write(f"started; follow it with: {doc['watch']} or collab attach {rid} (its "
                     f"live view, then the Judge's summary; not the raw panes), collab status "
                     f"{rid}, collab result {rid}\n")  # fmt: skip


@with_debate_options
def batch(
    topics_file: Annotated[
        Path,
        typer.Argument(metavar="TOPICS_FILE", help="Topics: .txt (one per line), .jsonl or .yaml."),
    ],
    *,
    parallel: Parallel = 2,
    trust_entries: TrustEntries = False,
    given: dict[str, object],
    as_json: o.RunJson = False,
) -> None:
    """Run a debate per topic in a file, several at once; options are defaults for each entry."""
    from collab.agents import load_agents
    from collab.batch.entries import read_entries
    from collab.batch.record import Batch
    from collab.doctor import check_prerequisites
    from collab.errors import UsageError
    from collab.request import request_from
    from collab.settings import user_defaults

    if not 1 <= parallel <= 32:
        raise UsageError(f"--parallel must be 1–32, got {parallel}")
    agents = load_agents()
    defaults = request_from(given, "cli", user_defaults())
    entries = read_entries(topics_file, defaults, agents.keys(), trust=trust_entries)
    for entry in entries:
        check_prerequisites(entry.config, agents)
    b = Batch.create(entries, topics_file, parallel)
    _run_batch(b, parallel, as_json)


def resume(
    run_id: Annotated[
        str,
        typer.Argument(
            metavar="ID",
            help="A run (its id, a unique prefix or suffix, @last) or a batch (batch-…, "
            "@last-batch).",
        ),
    ],
    *,
    parallel: Annotated[
        int | None,
        typer.Option("--parallel", "-P", metavar="N", help="For a batch: debates at once."),
    ] = None,
    as_json: o.Json = False,
) -> None:
    """Finish a stopped or crashed run (or batch) from its first turn without a saved
    result. To add rounds to a finished debate, use collab continue."""
    from collab.doctor import check_prerequisites
    from collab.errors import UsageError
    from collab.run_ids import LAST_BATCH, resolve_batch_id, resolve_run_id
    from collab.state import load_state
    from collab.store import RunDir

    if run_id.startswith("batch-") or run_id == LAST_BATCH:
        from collab.batch.record import Batch, batch_ids

        b = Batch.load(resolve_batch_id(run_id, batch_ids()))
        _run_batch(b, parallel or b.parallel, as_json)
        return
    run_id = resolve_run_id(run_id)
    run_dir = RunDir(run_id)
    state = load_state(run_dir)
    if state.status == "done":
        raise UsageError(f"run {run_id} is already finished: collab show {run_id}")
    ready = check_prerequisites(state.config)
    state = _drive(state, run_dir, ready, as_json=as_json, resumed=True, recap=True)
    _finish(state, run_dir, as_json)


def continue_debate(
    run_id: RunId,
    *,
    rounds: Annotated[
        int,
        typer.Option(
            "--rounds", "-r", metavar="N", help="More rounds: 1–7 (a debate totals at most 14)."
        ),
    ] = 1,
    note: Annotated[
        str | None,
        typer.Option(
            "--note",
            metavar="TEXT",
            help="A note from you, the person who decides, put into every prompt of the "
            "added rounds and the new Judge's.",
        ),
    ] = None,
    as_json: o.Json = False,
) -> None:
    """More debate on a finished run: N more rounds with your note, then a new Judge
    summary (the earlier one is kept, superseded). To finish an interrupted or failed
    run, use collab resume instead."""
    from collab.control.steer import prepare_continue
    from collab.doctor import check_prerequisites
    from collab.state import load_state
    from collab.store import RunDir

    ready = check_prerequisites(load_state(RunDir(run_id)).config)  # before any change
    state, run_dir = prepare_continue(run_id, rounds, note)
    state = _drive(state, run_dir, ready, as_json=as_json, resumed=True)
    _finish(state, run_dir, as_json)


def _run_batch(b: Batch, parallel: int, as_json: bool) -> None:
    from collab.cli.batch_view import BatchView

    with b.driving():  # refused (locked) before anything is shown
        parallel, lowered = b.capped(parallel)
        if lowered is not None:
            from collab.cli.console import stderr_console

            stderr_console().print(f"collab: {lowered}", markup=False, highlight=False)
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


def _events_mode(events: str | None, as_json: bool) -> bool:
    from collab.errors import UsageError

    if events is None:
        return False
    if events != "ndjson":
        from collab.suggest import did_you_mean

        hint = did_you_mean(events, ("ndjson",), "")
        raise UsageError(f"--events must be ndjson, got {events!r}" + (hint and f"; {hint}"))
    if as_json:
        raise UsageError("use either --json or --events ndjson, not both")
    return True


def _start(
    cfg: DebateConfig, agents: Mapping[str, AgentSpec], *, as_json: bool, ndjson: bool = False
) -> tuple[RunState, RunDir]:
    import shutil

    from collab.doctor import check_prerequisites
    from collab.errors import LoginFailed, PrerequisiteError
    from collab.state import RunState
    from collab.store import RunDir, new_run_id

    ready = check_prerequisites(cfg, agents)
    run_dir = RunDir(new_run_id())
    state = RunState(run_id=run_dir.run_id, config=cfg)
    run_dir.create(state.to_dict())  # whole, or not at all (StorageError: exit 3)
    try:
        return _drive(state, run_dir, ready, as_json=as_json, resumed=False, ndjson=ndjson), run_dir
    except LoginFailed as exc:
        if any(t.status in ("ok", "abstain") for t in state.turns):
            raise  # a login lost later: the run is saved and resumable
        # The very first call found no login: nothing was debated, so nothing is kept.
        shutil.rmtree(run_dir.path, ignore_errors=True)
        raise PrerequisiteError(exc.first, hint=exc.hint) from None


def _drive(
    state: RunState,
    run_dir: RunDir,
    ready: Ready,
    *,
    as_json: bool,
    resumed: bool,
    ndjson: bool = False,
    recap: bool = False,
) -> RunState:
    """Drive the run with the live view (or none under ``--json``). ``recap``: a resumed
    run's recap is printed once the run is locked and starts (its first event), so a run
    that cannot be locked gets its one error line and nothing before it."""
    from collab.orchestrator import drive

    if as_json:
        return drive(state, run_dir, ready, resumed=resumed)
    if ndjson:
        return drive(
            state, run_dir, ready, resumed=resumed,
            event_sinks=[lambda logged: echo_json_line(logged.to_json())],
        )  # fmt: skip
    from collab.cli.finish import outcome_line
    from collab.cli.live import DebateView
    from collab.errors import Interrupted

    view = DebateView()
    sink = view.handle
    if recap:
        from collab.cli.finish import resume_recap

        pending = [resume_recap(state)]

        def sink(logged: Logged) -> None:
            while pending:
                view.err.print(pending.pop())
            view.handle(logged)

    try:
        return drive(state, run_dir, ready, resumed=resumed, event_sinks=[sink])
    except Interrupted:
        view.close()
        # How far it got; the error line under it says how to go on.
        view.err.print(outcome_line(state, run_dir, resume_hint=False))
        raise
    finally:
        view.close()


def _finish(
    state: RunState,
    run_dir: RunDir,
    as_json: bool,
    *,
    ndjson: bool = False,
    gate: Policy | None = None,
) -> None:
    gated = None
    if as_json or ndjson or gate:
        from collab.report import result_document

        doc = result_document(state, run_dir)
        gated = None if gate is None else ci.gate_result(doc, gate, ci.run_depth(state.config))
    if as_json or ndjson:
        echo_json_line(doc) if ndjson else echo_json(doc)
    else:
        from collab.cli.finish import print_outcome

        print_outcome(state, run_dir)
    if state.status == "failed":
        raise typer.Exit(EXIT_FAILED)
    ci.finish_gate(gated)
