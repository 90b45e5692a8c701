"""``collab mcp``: the MCP server over stdio, on the official SDK's low-level server
(the tools' schemas are collab's own, see :mod:`.tools`).

Every debate it starts is driven by a process of its own (``collab.control``), so a
tool call returns at once (``debate_start``) or only follows the run (``debate``), and a
client that goes away leaves the debate running. Status and progress come from the
run's files, so two sessions can follow one run. Nothing but protocol reaches stdout:
the SDK's stdio transport points fd 1 at stderr while it serves, and the drivers write
to their run's driver.log.
"""

from __future__ import annotations

import json
import logging
import warnings
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

import anyio
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPDeprecationWarning

from collab import __version__, control
from collab.control import steer
from collab.control.decide import record_decision
from collab.control.progress import Change
from collab.control.status import WAIT_POLL
from collab.doctor import check_prerequisites
from collab.errors import CollabError, UsageError
from collab.events import Logged, RunWarning
from collab.mcp_server.args import McpLimits, debate_request, load_limits
from collab.mcp_server.follow import follow
from collab.mcp_server.slots import holding_slot, live_runs, start_within_cap
from collab.mcp_server.tools import MAX_WAIT_S, TOOLS, unknown_argument
from collab.paths import config_path
from collab.presets import load_presets
from collab.report import list_document, presets_document, result_document
from collab.run_ids import resolve_run_id
from collab.state import RunState, load_state, stored_runs
from collab.store import RunDir
from collab.suggest import did_you_mean
from collab.text import clean, clean_tree

log = logging.getLogger("collab.mcp")
ROOTS_TIMEOUT = 5.0
INSTRUCTIONS = (
    "collab runs a structured debate between two AI agents holding opposed expert roles "
    "and ends it with a neutral Judge's summary. A debate takes minutes: start it with "
    "debate_start, poll debate_status every 20-60 seconds, then read debate_result and "
    "present the Judge's TL;DR, the open disagreements, the actions and the cost. Do not "
    "argue the debate yourself; report what collab returns."
)

Args = Mapping[str, Any]
Ctx = ServerRequestContext[Any, Any]


class CollabServer:
    """The tools of one MCP session. The concurrency cap and what a model may see are
    kept on disk (``slots``, state.json's ``origin``), shared by every server."""

    def __init__(self, workdir: Path | None = None) -> None:
        self.workdir = workdir or Path.cwd()
        self.handlers: dict[str, Callable[[Ctx, Args], Awaitable[dict[str, object]]]] = {
            "debate_start": self.debate_start,
            "debate": self.debate,
            "debate_status": self.debate_status,
            "debate_result": self.debate_result,
            "debate_cancel": self.debate_cancel,
            "debate_ask": self.debate_ask,
            "debate_continue": self.debate_continue,
            "debate_decide": self.debate_decide,
            "runs_list": self.runs_list,
            "presets_list": self.presets_list,
            "server_info": self.server_info,
        }

    # -- the protocol ----------------------------------------------------------------------
    async def list_tools(
        self, ctx: Ctx, params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=list(TOOLS))

    async def call_tool(
        self, ctx: Ctx, params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        handler = self.handlers.get(params.name)
        if handler is None:
            hint = did_you_mean(params.name, self.handlers, f"tools: {', '.join(self.handlers)}")
            return _error(f"unknown tool {params.name!r}; {hint}")
        arguments = params.arguments or {}
        problem = unknown_argument(params.name, arguments)
        if problem is not None:
            return _error(problem)
        try:
            doc = await handler(ctx, arguments)
        except CollabError as exc:
            return _error(str(exc))
        except Exception as exc:  # a bug: keep the server up, say what broke
            log.exception("tool %s failed", params.name)
            return _error(f"internal error in {params.name}: {type(exc).__name__}: {exc}")
        shown = clean_tree(doc)  # model text, cleaned like every output
        assert isinstance(shown, dict)
        text = json.dumps(shown, ensure_ascii=False)
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=text)], structured_content=shown
        )

    # -- starting ----------------------------------------------------------------------------
    async def debate_start(self, ctx: Ctx, args: Args) -> dict[str, object]:
        started, cfg = await self._start(ctx, args)
        doc = control.started_document(started, cfg)
        if cfg.max_cost is None:
            doc["cost_note"] = (
                "an agent of this debate reports no cost and has no price: it is bounded by "
                f"its {cfg.rounds} rounds (at most max_calls agent calls) instead of max_cost"
            )
        doc["next"] = (
            f"The debate runs now (minutes). Poll debate_status with run_id {started.run_id} "
            "every 20-60 seconds; once its phase is finished or stopped, call debate_result."
        )
        return doc

    async def debate(self, ctx: Ctx, args: Args) -> dict[str, object]:
        started, cfg = await self._start(ctx, args)

        async def report(progress: float, total: float, message: str) -> None:
            await ctx.session.report_progress(progress, total, clean(message))

        await follow(started.run_dir, cfg.rounds, report)
        return await anyio.to_thread.run_sync(control.result_of, started.run_id)

    async def _start(self, ctx: Ctx, args: Args) -> tuple[control.Started, Any]:
        limits = await anyio.to_thread.run_sync(load_limits)
        roots = await self._roots(ctx)
        root = roots[0] if roots else self.workdir

        def start() -> tuple[control.Started, Any]:
            cfg = control.validate(debate_request(args, limits, root, roots), surface="mcp")

            def go() -> tuple[str, control.Started]:
                started = control.start_detached(cfg, cwd=root, reap=True, origin="mcp")
                return started.run_id, started

            return start_within_cap(limits.max_concurrent, go)[1], cfg

        return await anyio.to_thread.run_sync(start)

    async def _roots(self, ctx: Ctx) -> list[Path]:
        """The client's roots that are local directories (none: our working directory
        serves instead)."""
        caps = ctx.session.client_capabilities
        if caps is None or caps.roots is None:
            return []
        try:
            with anyio.fail_after(ROOTS_TIMEOUT), warnings.catch_warnings():
                # Deprecated for 2026-07-28 clients, and what every host speaks today.
                warnings.simplefilter("ignore", MCPDeprecationWarning)
                roots = (await ctx.session.list_roots()).roots
        except Exception:
            log.warning("roots/list failed; using %s", self.workdir, exc_info=True)
            return []
        out = []
        for root in roots:
            uri = urlparse(str(root.uri))
            if uri.scheme == "file" and Path(unquote(uri.path)).is_dir():
                out.append(Path(unquote(uri.path)))
        return out

    async def _visible(self, args: Args) -> RunDir:
        """The run named in ``args``, if this server may see it: one a model started,
        unless the user set ``all_runs`` in [mcp]."""
        all_runs = (await anyio.to_thread.run_sync(load_limits)).all_runs
        run_dir = RunDir(await anyio.to_thread.run_sync(_run_id, args, all_runs))
        state: RunState = await anyio.to_thread.run_sync(load_state, run_dir)
        if state.origin != "mcp" and not all_runs:
            raise UsageError(
                f"run {run_dir.run_id} was not started over MCP; this server reads, cancels "
                "and lists only the debates started over MCP (the user can set "
                "all_runs = true in [mcp] of config.toml)"
            )
        return run_dir

    # -- following -----------------------------------------------------------------------------
    async def debate_status(self, ctx: Ctx, args: Args) -> dict[str, object]:
        wait = args.get("wait_s", 0)
        if not isinstance(wait, int | float) or isinstance(wait, bool):
            raise UsageError(f"wait_s must be a number of seconds, got {wait!r}")
        if not 0 <= wait <= MAX_WAIT_S:
            raise UsageError(f"wait_s must be 0–{MAX_WAIT_S} seconds, got {wait:g}")
        run_dir = await self._visible(args)  # unknown run: say so at once
        if wait:
            change = Change(run_dir.path)
            with anyio.move_on_after(wait):
                while not change.seen(control.driver_of):  # an ask is no driver
                    await anyio.sleep(WAIT_POLL)
        return await anyio.to_thread.run_sync(control.status_document, run_dir)

    async def debate_result(self, ctx: Ctx, args: Args) -> dict[str, object]:
        run_dir = await self._visible(args)
        return await anyio.to_thread.run_sync(control.result_of, run_dir.run_id)

    async def debate_cancel(self, ctx: Ctx, args: Args) -> dict[str, object]:
        run_dir = await self._visible(args)
        return await anyio.to_thread.run_sync(control.cancel_run, run_dir.run_id)

    # -- after the debate ------------------------------------------------------------------------
    async def debate_ask(self, ctx: Ctx, args: Args) -> dict[str, object]:
        run_dir = await self._visible(args)
        limits: McpLimits = await anyio.to_thread.run_sync(load_limits)
        question, seat = args.get("question"), args.get("seat")
        if not isinstance(question, str):
            raise UsageError("question is required: what to ask")
        if seat is not None and not isinstance(seat, str):
            raise UsageError(f"seat must be a seat (A–E) or judge, got {seat!r}")
        rid = run_dir.run_id

        def ask() -> dict[str, object]:
            told: list[str] = []

            def warned(logged: Logged) -> None:
                if isinstance(logged.event, RunWarning):
                    told.append(logged.event.text)

            # A slot for as long as the follow-up runs: it counts against max_concurrent.
            with holding_slot(limits.max_concurrent, rid):
                steer.ask_seats(
                    rid, question, seat, [warned], max_cost=limits.max_cost, surface="mcp"
                )
            return _warned(control.result_of(rid), told)

        return await anyio.to_thread.run_sync(ask)

    async def debate_continue(self, ctx: Ctx, args: Args) -> dict[str, object]:
        run_dir = await self._visible(args)
        limits: McpLimits = await anyio.to_thread.run_sync(load_limits)
        rounds, note = args.get("rounds", 1), args.get("note")
        if not isinstance(rounds, int) or isinstance(rounds, bool):
            raise UsageError(f"rounds must be an integer, got {rounds!r}")
        if note is not None and not isinstance(note, str):
            raise UsageError(f"note must be text, got {note!r}")
        roots = await self._roots(ctx)
        root = roots[0] if roots else self.workdir
        rid = run_dir.run_id

        def go() -> tuple[str, dict[str, object]]:
            check_prerequisites(load_state(run_dir).config)  # before anything changes
            steer.prepare_continue(rid, rounds, note, max_cost=limits.max_cost, surface="mcp")
            control.drive_detached(run_dir, cwd=root, reap=True)
            return rid, control.status_document(run_dir)

        _, doc = await anyio.to_thread.run_sync(start_within_cap, limits.max_concurrent, go)
        doc["next"] = (
            f"The added rounds run now (minutes). Poll debate_status with run_id {rid}; "
            "once its phase is finished or stopped, call debate_result."
        )
        return doc

    async def debate_decide(self, ctx: Ctx, args: Args) -> dict[str, object]:
        run_dir = await self._visible(args)
        choice, why, outcome = (args.get(k) for k in ("choice", "why", "outcome"))
        for key, value in (("choice", choice), ("why", why), ("outcome", outcome)):
            if value is not None and not isinstance(value, str):
                raise UsageError(f"{key} must be text, got {value!r}")
        by = f"mcp:{_client_name(ctx)}"

        def decide() -> dict[str, object]:
            told: list[str] = []
            state = record_decision(
                run_dir.run_id, choice=choice, why=why, outcome=outcome, by=by,
                warn=told.append, surface="mcp",
            )  # fmt: skip
            return _warned(result_document(state, run_dir), told)

        return await anyio.to_thread.run_sync(decide)

    # -- reference -----------------------------------------------------------------------------
    async def runs_list(self, ctx: Ctx, args: Args) -> dict[str, object]:
        limit = args.get("limit", 20)
        if not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= 200:
            raise UsageError(f"limit must be 1–200, got {limit!r}")
        runs = await anyio.to_thread.run_sync(stored_runs)
        if not (await anyio.to_thread.run_sync(load_limits)).all_runs:
            runs = [r for r in runs if r.state is not None and r.state.get("origin") == "mcp"]
        doc = list_document(runs[:limit])
        doc["server"] = await self.server_info(ctx, {})
        return doc

    async def presets_list(self, ctx: Ctx, args: Args) -> dict[str, object]:
        return presets_document((await anyio.to_thread.run_sync(load_presets)).values())

    async def server_info(self, ctx: Ctx, args: Args) -> dict[str, object]:
        limits: McpLimits = await anyio.to_thread.run_sync(load_limits)
        active = await anyio.to_thread.run_sync(live_runs)
        return {
            "schema": "collab.server/1",
            "name": "collab",
            "version": __version__,
            "limits": {
                "max_cost": limits.max_cost,
                "max_concurrent": limits.max_concurrent,
                "max_calls": limits.max_calls,
                "all_runs": limits.all_runs,
                "allow_paths": list(limits.allow_paths),
                "allow_read_tools": limits.allow_read_tools,
                "allow_inherit_setup": limits.allow_inherit_setup,
            },
            "runner": "subprocess",
            "active_runs": active,
            "workdir": str(self.workdir),
            "config": str(config_path()),
        }


def _warned(doc: dict[str, object], told: list[str]) -> dict[str, object]:
    """The result document, with what went wrong after the save (an events file or a
    report not written: the follow-up or the decision is kept) as its ``warnings``."""
    if told:
        doc["warnings"] = [clean(text) for text in told]
    return doc


def _run_id(args: Args, all_runs: bool) -> str:
    """The full id of the run ``run_id`` names (collab.run_ids: prefix, suffix, @last),
    among the runs this server may see; a whole id is taken as it is (the visibility
    check then says why it may not be read)."""
    run_id = args.get("run_id")
    if not isinstance(run_id, str):
        raise UsageError("run_id is required: the id debate_start returned (or runs_list)")
    try:
        if RunDir(run_id).exists():
            return run_id
    except UsageError:
        pass  # not an id as it stands: the resolver says what is wrong with it
    return resolve_run_id(run_id, visible=None if all_runs else _started_over_mcp)


def _started_over_mcp(run_id: str) -> bool:
    try:
        return RunDir(run_id).load().get("origin") == "mcp"
    except CollabError:
        return False


def _client_name(ctx: Ctx) -> str:
    """The MCP client's name as it introduced itself (for ``by`` of a decision)."""
    params = getattr(ctx.session, "client_params", None)
    name = getattr(getattr(params, "client_info", None), "name", None)
    text = clean(name).strip()[:60] if isinstance(name, str) else ""
    return text or "unknown client"


def _error(message: str) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=message)], is_error=True
    )


def build_server(workdir: Path | None = None) -> Server[Any]:
    tools = CollabServer(workdir)
    return Server(
        "collab",
        version=__version__,
        title="collab: two-sided expert debates",
        instructions=INSTRUCTIONS,
        on_list_tools=tools.list_tools,
        on_call_tool=tools.call_tool,
    )


def serve() -> None:
    """Serve one client over stdin/stdout until it closes stdin."""

    async def main() -> None:
        server = build_server()
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(main)
