"""The commands for pull requests and CI: ``gate`` (a finished run → exit 0, 4 or 5) and
``comment`` (the run as one pull-request comment, edited on the next run); and the
``--gate``/``--fail-on`` options ``debate`` shares with ``gate``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from collab.cli import options as o
from collab.cli.options import echo_json
from collab.cli.runs import RunId
from collab.errors import EXIT_FAILED

if TYPE_CHECKING:
    from collab.gate import Gate, Policy

GateFlag = Annotated[
    bool,
    typer.Option("--gate", help="Exit 4 when open issues reach --fail-on, 5 when inconclusive."),
]
FailOn = Annotated[
    str | None,
    typer.Option(
        "--fail-on",
        metavar="POLICY",
        help="blocking (an open blocking issue; the default), major (an open blocking or "
        "major one) or split (a split verdict, or an open blocking issue).",
        show_default=False,
    ),
]


def policy_of(fail_on: str | None) -> Policy:
    from collab.errors import UsageError
    from collab.gate import POLICIES

    value = fail_on or "blocking"
    for policy in POLICIES:
        if value == policy:
            return policy
    from collab.suggest import did_you_mean

    hint = did_you_mean(value, POLICIES, "")
    raise UsageError(
        f"--fail-on must be one of {', '.join(POLICIES)}, got {value!r}" + (hint and f"; {hint}")
    )


def gate_policy(gate: bool, fail_on: str | None, detach: bool) -> Policy | None:
    """``debate``'s gate policy, checked before anything starts; None without --gate."""
    from collab.errors import UsageError

    if not gate:
        if fail_on is not None:
            raise UsageError("--fail-on needs --gate")
        return None
    if detach:
        raise UsageError("--gate waits for the result; with --detach run collab gate ID after")
    return policy_of(fail_on)


def run_depth(config: object) -> str | None:
    """The run's depth, where the run has one."""
    depth = getattr(config, "depth", None)
    return depth if isinstance(depth, str) else None


def gate_result(doc: dict[str, object], policy: Policy, depth: str | None) -> Gate | None:
    """A finished run's gate, added to its result document as ``gate``; None (and nothing
    added) for a run that did not finish: its own exit code comes first."""
    from collab.gate import evaluate

    if doc.get("status") != "done":
        return None
    g = evaluate(doc, policy, depth)
    doc["gate"] = g.document(str(doc.get("run_id")))
    return g


def gate(
    run_id: RunId,
    *,
    fail_on: FailOn = None,
    as_json: o.Json = False,
) -> None:
    """Pass (0) or fail a finished run: 4 when open issues reach --fail-on, 5 inconclusive."""
    from collab.control import result_of
    from collab.errors import CollabError, Interrupted

    policy = policy_of(fail_on)
    doc = result_of(run_id)
    g = gate_result(doc, policy, None)
    if g is None:  # the run's own exit code comes first
        status = doc.get("status")
        if status == "interrupted":
            raise Interrupted(f"run {run_id} was interrupted: collab resume {run_id}, then gate")
        # Its error when it saved one (a driver that died before it began saved none),
        # then how to go on: any run that did not finish can be resumed.
        error = doc.get("error")
        said = [f"run {run_id} did not finish ({status}): no gate"]
        said += [str(error)] if error else []
        err = CollabError("; ".join([*said, f"collab resume {run_id}, then gate"]))
        err.exit_code = _run_exit_code(doc) or EXIT_FAILED
        raise err
    if as_json:
        echo_json(doc["gate"])
    else:
        sys.stdout.write(g.reason + "\n")
    raise typer.Exit(g.exit_code)


def _run_exit_code(doc: dict[str, object]) -> int | None:
    """The exit code the run itself ended with (its last ``run_finished`` event): 1, or 3
    for a login lost mid-run."""
    paths = doc.get("paths")
    if not isinstance(paths, dict):
        return None
    # The typed events: only when a gate reads them, not for every collab command.
    from collab.eventlog import EventReader
    from collab.events import RunFinished

    try:
        events = EventReader(Path(str(paths["run_dir"])) / "events.jsonl").new()
    except KeyError:
        return None
    for logged in reversed(events):
        if isinstance(logged.event, RunFinished):
            code = logged.event.exit_code
            return code if code > 0 else None
    return None


def comment(
    run_id: Annotated[
        str | None,
        typer.Argument(
            metavar="ID", help="The run (an id, prefix, suffix or @last); none with --notice."
        ),
    ] = None,
    *,
    github_pr: Annotated[
        int, typer.Option("--github-pr", metavar="N", help="The pull request to comment on.")
    ],
    repo: Annotated[
        str | None,
        typer.Option("--repo", metavar="OWNER/NAME", help="Default: $GITHUB_REPOSITORY."),
    ] = None,
    comment_key: Annotated[
        str | None,
        typer.Option(
            "--comment-key",
            metavar="KEY",
            help="Which comment to edit; default: a hash of --topic-file, else of the topic.",
        ),
    ] = None,
    topic_file: Annotated[
        Path | None,
        typer.Option("--topic-file", metavar="PATH", help="The topic's file (for the key)."),
    ] = None,
    report_url: Annotated[
        str | None,
        typer.Option("--report-url", metavar="URL", help="Where the run's artefacts are."),
    ] = None,
    fail_on: FailOn = None,
    notice: Annotated[
        str | None,
        typer.Option(
            "--notice", metavar="TEXT", help="Instead of a run: one line saying why none ran."
        ),
    ] = None,
) -> None:
    """Post the run's result as one pull-request comment, or edit the one posted before."""
    from collab.control import result_of
    from collab.errors import UsageError
    from collab.github import Target, upsert_comment
    from collab.report import pr_comment as pc

    target = Target.from_env(github_pr, repo)  # before anything else: a bad setup says so
    if report_url is not None and not report_url.startswith(("https://", "http://")):
        raise UsageError(f"--report-url must be an http(s) URL, got {report_url!r}")
    if notice is not None:
        if run_id is not None or not comment_key:
            raise UsageError("--notice takes no run ID, and needs --comment-key")
        key = _key(comment_key, None, "")
        posted = upsert_comment(target, pc.marker(key), pc.notice_body(key, notice))
    else:
        if run_id is None:
            raise UsageError("give a run ID (collab list), or --notice TEXT")
        from collab.run_ids import resolve_run_id

        doc = result_of(resolve_run_id(run_id))
        key = _key(comment_key, _key_path(topic_file), str(doc.get("topic") or ""))
        g = gate_result(doc, policy_of(fail_on), None)
        line = None if g is None else g.reason
        body = pc.comment_body(doc, key, report_url=report_url, gate_line=line)
        posted = upsert_comment(target, pc.marker(key), body, pc.short_body(doc, key, report_url))
    sys.stdout.write(f"comment {posted.action}: {posted.url or posted.comment_id}\n")


def _key(given: str | None, topic_file: str | None, topic: str) -> str:
    from collab.errors import UsageError
    from collab.report.pr_comment import comment_key

    try:
        return comment_key(given, topic_file, topic)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def _key_path(topic_file: Path | None) -> str | None:
    """The topic file's path as the key sees it: relative to the working directory (the
    repository's root in CI) when inside it, so every checkout gives the same key."""
    if topic_file is None:
        return None
    try:
        return topic_file.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return topic_file.as_posix()


def finish_gate(g: Gate | None) -> None:
    """After ``debate --gate`` printed its result: the gate's line, then its exit code."""
    if g is None:
        return
    sys.stderr.write(f"gate: {g.reason}\n")
    if g.exit_code:
        raise typer.Exit(g.exit_code)
