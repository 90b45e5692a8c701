"""A run's state read again once its lock is held.

A command that steers a run (``collab ask``, ``resume``, ``continue``) reads state.json,
checks what it was asked, then takes the run's lock. Another process may have saved the
run in between (a decision, a follow-up, a continue's rounds); saving the state read
before the lock would silently undo that. So the state is read again under the lock, and
the save that follows starts from it.
"""

from __future__ import annotations

from dataclasses import fields, replace

from collab.state import RunState, load_state
from collab.store import RunDir


def read_again(run_dir: RunDir, held: RunState) -> RunState:
    """``held`` (read before the lock) made, in place, what state.json holds now; the
    callers' references to it stay good. A lower ``max_cost`` that ``held`` has only in
    memory (the cap an MCP call set) is kept."""
    fresh = load_state(run_dir)
    cap, saved = held.config.max_cost, fresh.config.max_cost
    if cap is not None and (saved is None or cap < saved):
        fresh.config = replace(fresh.config, max_cost=cap)
    for f in fields(RunState):
        setattr(held, f.name, getattr(fresh, f.name))
    return held
