"""collab for machines (skills, scripts, MCP hosts): a debate started with ``collab debate
--detach`` runs on by itself and is followed with ``status``, ``result`` and ``cancel``;
its topic may come from ``--topic-file PATH`` or stdin (``-``), so no shell quoting is
needed; ``collab mcp`` serves the same as MCP tools.

The work is done by :mod:`collab.control`, which the MCP tools share; these commands
only print its documents.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from collab.cli import options as o
from collab.cli.options import echo_json
from collab.cli.runs import RunId, RunOrBatchId, is_batch_id

TopicFile = Annotated[
    Path | None,
    typer.Option("--topic-file", metavar="PATH", show_default=False, rich_help_panel=o.ROLES,
                 help="Read the topic from this UTF-8 file (instead of TOPIC)."),
]  # fmt: skip
Detach = Annotated[
    bool,
    o.flag("--detach",
           "Start the debate in the background and print its run id at once; follow it with "
           "collab watch/status/result ID, stop it with collab cancel ID.", o.OUTPUT),
]  # fmt: skip
MAX_TOPIC_BYTES = 1 << 20


def read_topic(topic: str | None, topic_file: Path | None) -> str:
    """The topic from the argument, ``--topic-file`` or stdin (``-``): exactly one of them.
    The text is taken as it is (quotes, ``$(...)``, newlines); ``request`` checks it."""
    from collab.errors import UsageError

    if topic is not None and topic_file is not None:
        raise UsageError("give the topic once: as TOPIC, - (stdin) or --topic-file PATH")
    if topic_file is not None:
        return _read_text(topic_file, str(topic_file))
    if topic == "-":
        data = sys.stdin.buffer.read(MAX_TOPIC_BYTES + 1)
        return _decode(data, "stdin")
    if topic is None:
        raise UsageError(
            'say what to debate: collab debate "TOPIC", collab debate - (the topic on '
            "stdin) or collab debate --topic-file PATH"
        )
    return topic


def _read_text(path: Path, name: str) -> str:
    from collab.errors import UsageError

    if path.is_dir():
        raise UsageError(f"--topic-file is a directory, not a file: {name}")
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_TOPIC_BYTES + 1)
    except FileNotFoundError:
        raise UsageError(f"topic file not found: {name}") from None
    except OSError as exc:
        raise UsageError(f"cannot read topic file {name}: {exc.strerror}") from None
    return _decode(data, name)


def _decode(data: bytes, name: str) -> str:
    from collab.errors import UsageError

    if len(data) > MAX_TOPIC_BYTES:
        raise UsageError(f"the topic in {name} is over {MAX_TOPIC_BYTES} bytes; keep it short "
                         "and put the details in a --context file")  # fmt: skip
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise UsageError(f"the topic in {name} is not UTF-8 text (byte {exc.start})") from None


def status(
    run_id: RunOrBatchId,
    wait: Annotated[
        float,
        typer.Option(
            "--wait",
            metavar="SECONDS",
            show_default=False,
            help="First wait up to this long for a turn or the Judge to end or the "
            "run to stop (a polling script learns of each step as it happens).",
        ),
    ] = 0.0,
    as_json: o.Json = False,
) -> None:
    """Where a run is: phase, round, turns, verdict and ledger counts, the last turn, time
    left. For a batch: each of its debates."""
    from collab.control import status_document, wait_for_change
    from collab.state import load_state
    from collab.store import RunDir

    o.checked_wait(wait)
    if is_batch_id(run_id):
        _batch_status(run_id, wait, as_json)
        return
    run_dir = RunDir(run_id)
    if wait:
        load_state(run_dir)  # a clear error for an unknown run, before any wait
        wait_for_change(run_dir, wait)
    doc = status_document(run_dir)
    if as_json:
        echo_json(doc)
        return
    sys.stdout.write(_status_text(doc) + "\n")


def _batch_status(batch_id: str, wait: float, as_json: bool) -> None:
    from collab.batch.record import Batch
    from collab.errors import UsageError

    if wait:
        raise UsageError("--wait follows one run; for a batch use collab watch " + batch_id)
    b = Batch.load(batch_id)
    if as_json:
        echo_json(b.document())
        return
    from rich.console import Console

    from collab.cli.batch_view import print_summary

    print_summary(b, Console())


def result(run_id: RunId, as_json: o.Json = False) -> None:
    """Print a finished run's collab.result/2 document (an error while it still runs)."""
    from collab.control import result_of

    echo_json(result_of(run_id))


def cancel(
    run_id: RunId,
    wait: Annotated[
        float,
        typer.Option("--wait", metavar="SECONDS", help="How long to wait for it to stop."),
    ] = 30.0,
    as_json: o.Json = False,
) -> None:
    """Stop a running debate like Ctrl-C: state saved, continue with collab resume ID."""
    from collab.control import cancel_run

    doc = cancel_run(run_id, wait=o.checked_wait(wait))
    if as_json:
        echo_json(doc)
        return
    sys.stdout.write(_status_text(doc) + "\n")


def mcp() -> None:
    """Serve collab's tools to an MCP client over stdio (debate_start, debate_status, …)."""
    from collab.mcp_server.server import serve

    serve()


def _status_text(doc: dict[str, Any]) -> str:
    from collab.cli.finish import shown_id
    from collab.outcome import counts_text
    from collab.prices import fmt_cost

    rounds, turns = doc["rounds"], doc["turns"]
    sid = shown_id(doc["run_id"])
    done = doc["status"] == "done"
    verdict = doc.get("verdict")
    lines = [
        f"{doc['run_id']}  {doc['status']} ({doc['phase']})  {doc['topic']}",
        f"round {doc['round']}/{rounds['planned']} · turns {turns['done']}/{turns['planned']}"
        + (f" · verdict {verdict}" if done and verdict else "")
        + f" · issues {counts_text(doc['counts'], doc.get('open_blocking') or 0)}",
    ]
    last = doc.get("last_turn")
    if isinstance(last, dict):
        lines.append(f"last: R{last['round']} {last['side']} ({last['role']}, {last['status']})"
                     f" {last['summary']}")  # fmt: skip
    left = doc.get("remaining_s")
    timing = f"elapsed {doc['elapsed_s']}s"
    if doc["active"]:
        timing += " · time left not known yet" if left is None else f" · about {left:.0f}s left"
    if doc.get("cost_usd") is not None:
        timing += f" · {fmt_cost(doc['cost_usd'], bool(doc.get('cost_estimated')))}"
    lines.append(timing)
    if doc.get("stop_reason"):
        detail = f" — {doc['stop_detail']}" if doc.get("stop_detail") else ""
        lines.append(f"stop reason: {doc['stop_reason']}{detail}")
    if doc.get("error") and doc["error"] != doc.get("stop_reason"):
        lines.append(f"error: {doc['error']}")
    if doc["active"]:
        lines.append(f"watch: collab watch {sid}")
    elif doc["resume"]:
        lines.append(f"resume: collab resume {sid}")
    elif done:
        lines.append(f"next: collab show {sid} · collab export {sid}")
    return "\n".join(lines)
