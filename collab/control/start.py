"""Start a debate that runs on by itself: validated exactly as ``collab debate`` validates
(``request.build_config`` and the prerequisite check, so the errors are the CLI's), then
driven by ``python -m collab.detached`` in its own session.

``collab debate --detach`` and the MCP tools ``debate_start``/``debate`` both come here.
The driver's process is started by :func:`collab.runners.detach.spawn_driver`.
"""

from __future__ import annotations

import threading
from collections.abc import Collection, Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from collab.agents import load_agents
from collab.config import DebateConfig
from collab.control.liveness import DRIVER_LOG, DRIVER_PID_FILE
from collab.doctor import check_prerequisites
from collab.options import DebateRequest, Surface
from collab.plan import Plan
from collab.planning import plan_for
from collab.request import build_config
from collab.runners.detach import spawn_driver
from collab.state import Origin, RunState
from collab.store import RunDir, atomic_write, new_run_id


@dataclass(frozen=True)
class Started:
    run_id: str
    pid: int
    run_dir: RunDir
    plan: Plan | None = None  # made before the run's first call


def validate(
    req: DebateRequest, known_agents: Collection[str] | None = None, surface: Surface = "cli"
) -> DebateConfig:
    """Every check ``collab debate`` makes before it starts anything (exit 2 or 3)."""
    if known_agents is None:
        loaded = load_agents()  # once: the checks below read the same catalogue
        cfg = build_config(req, loaded.keys(), surface)
        check_prerequisites(cfg, loaded)
        return cfg
    cfg = build_config(req, known_agents, surface)
    check_prerequisites(cfg)
    return cfg


def start_detached(
    cfg: DebateConfig,
    *,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    reap: bool = False,
    origin: Origin = "cli",
) -> Started:
    """Create the run (state.json, status ``pending``) and start its driver; return at
    once. ``reap``: a long-lived caller (the MCP server) waits for the driver on a thread
    so that it leaves no zombie; a command that exits right away leaves that to init.
    ``origin`` is recorded in state.json (``mcp``: a model started it)."""
    run_dir = RunDir(new_run_id())
    plan = plan_for(cfg)
    state = RunState(
        run_id=run_dir.run_id, config=cfg, status="pending", origin=origin, plan=plan.document()
    )
    run_dir.create(state.to_dict())
    return replace(drive_detached(run_dir, cwd=cwd, env=env, reap=reap), plan=plan)


def drive_detached(
    run_dir: RunDir,
    *,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    reap: bool = False,
) -> Started:
    """Start the driver of a saved run that is not done (a new one, or one ``collab
    continue`` extended); return at once."""
    proc = spawn_driver(run_dir.run_id, run_dir.path / DRIVER_LOG, cwd, env)
    atomic_write(run_dir.path / DRIVER_PID_FILE, f"{proc.pid}\n")
    if reap:
        threading.Thread(target=proc.wait, name=f"reap-{proc.pid}", daemon=True).start()
    return Started(run_dir.run_id, proc.pid, run_dir)


STARTED_SCHEMA = "collab.started/1"


def started_document(started: Started, cfg: DebateConfig) -> dict[str, object]:
    """What ``--detach --json`` prints and ``debate_start`` returns: the run id and how
    to follow it."""
    rid = started.run_id
    return {
        "schema": STARTED_SCHEMA,
        "run_id": rid,
        "status": "pending",
        "topic": cfg.topic,
        "preset": cfg.preset,
        "rounds": cfg.rounds,
        "runner": cfg.runner,
        "max_cost": cfg.max_cost,
        "depth": cfg.depth,
        "plan": None if started.plan is None else started.plan.document(),
        "warnings": [w for w in [started.plan and started.plan.over_cap(cfg.max_cost)] if w],
        "watch": f"collab watch {rid}",
        "status_command": f"collab status {rid}",
        "result_command": f"collab result {rid}",
        "cancel_command": f"collab cancel {rid}",
        "run_dir": str(started.run_dir.path),
    }
