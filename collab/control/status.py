"""``collab status ID`` and the MCP tool ``debate_status``: the ``collab.status/1``
document of a run, from its state.json and events.jsonl alone."""

from __future__ import annotations

import time

from collab.control.liveness import DRIVER_LOG, driver_of
from collab.control.progress import Change, read_progress, remaining_s, summary, turns_left
from collab.outcome import outcome_of
from collab.state import RunState, load_state
from collab.store import RunDir

STATUS_SCHEMA = "collab.status/1"
_LOG_TAIL = 600
WAIT_POLL = 0.2


def wait_for_change(run_dir: RunDir, wait: float) -> None:
    """Block up to ``wait`` seconds until a turn or the Judge ends or the run stops (a
    caller that polls with a wait learns of each step without asking every second)."""
    change = Change(run_dir.path)
    end = time.monotonic() + wait
    while not change.seen(driver_of) and time.monotonic() < end:
        time.sleep(WAIT_POLL)


def status_document(run_dir: RunDir) -> dict[str, object]:
    state = load_state(run_dir)
    active = driver_of(run_dir.path) is not None  # an ask on a finished run: not active
    progress = read_progress(run_dir.path)
    cfg = state.config
    now = time.time()
    started = progress.started_ts or state.created_ts
    ended = None if active else (progress.last_ts or started)
    phase = _phase(state, active, progress.judging)
    done = state.rounds_done()
    round_no = progress.round if progress.round is not None else min(done + 1, cfg.rounds)
    last = state.turns[-1] if state.turns else None
    rid = state.run_id
    resumable = not active and state.status != "done"
    outcome = outcome_of(state)
    return {
        "schema": STATUS_SCHEMA,
        "run_id": rid,
        "status": state.status,
        "active": active,
        "phase": phase,
        "topic": cfg.topic,
        "preset": cfg.preset,
        "roles": {seat: cfg.role(seat).name for seat in cfg.seats},
        "round": round_no,
        "rounds": {"done": done, "planned": cfg.rounds},
        "turns": {"done": len(state.turns), "planned": len(state.turns) + turns_left(state)},
        "last_turn": None
        if last is None
        else {
            "round": last.round_no,
            "side": last.side,
            "role": last.role_name,
            "status": last.status,
            "summary": summary(last.prose),
        },
        "stop_reason": outcome.stop_reason,
        "stop_detail": state.stop_detail,
        **outcome.fields(),  # verdict (so far, until the run is done), open blocking
        "elapsed_s": round(max(0.0, (now if ended is None else ended) - started), 1),
        "remaining_s": remaining_s(state, progress, now) if active else None,
        "cost_usd": state.cost_usd(),
        "cost_estimated": state.cost_estimated(),
        "max_cost": cfg.max_cost,
        "error": state.error or (_start_error(run_dir) if phase == "stopped" else None),
        "attach": progress.attach if active else None,
        "watch": f"collab watch {rid}",
        "result": f"collab result {rid}",
        "resume": f"collab resume {rid}" if resumable else None,
    }


def _phase(state: RunState, active: bool, judging: bool) -> str:
    """starting, debating, judging, finishing (writing its files), finished (done or
    failed) or stopped (interrupted or its driver died: resumable)."""
    if state.status in ("done", "failed"):
        return "finishing" if active else "finished"
    if not active:
        return "stopped"
    if state.status == "pending":
        return "starting"
    return "judging" if judging else "debating"


def _start_error(run_dir: RunDir) -> str | None:
    """A driver that died before it wrote anything left its last words in driver.log."""
    try:
        text = (run_dir.path / DRIVER_LOG).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    return lines[-1][-_LOG_TAIL:] if lines else None
