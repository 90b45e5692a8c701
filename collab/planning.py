"""The plan of a run from what this machine knows: its past runs' costs and the run's
own round-1 prompt, rendered (:mod:`collab.plan` does the arithmetic)."""

from __future__ import annotations

from itertools import islice

from collab.config import DebateConfig
from collab.errors import StorageError
from collab.ledger import Ledger
from collab.plan import Plan, make_plan, past_costs, price_per_mtok
from collab.prices import load_prices
from collab.prompts import Prompts
from collab.state import RunState, parse_listed
from collab.store import scan_runs

# The newest runs read for past costs (a run's state.json is a few hundred kB at most).
PAST_RUNS = 200


def past_states(limit: int = PAST_RUNS) -> list[RunState]:
    """The newest kept runs that load; none when the runs dir cannot be read. Every run's
    state.json is read (its time orders them) but parsed only until ``limit`` are found:
    with 1,001 kept runs, ~0.4 s of CPU at each debate's start instead of ~0.9 s."""
    try:
        runs = scan_runs()
    except (OSError, StorageError):
        return []
    loaded = (parse_listed(r.state) for r in runs if r.state is not None)
    undamaged = (state for state, damage in loaded if damage is None)
    return [state for state in islice(undamaged, limit) if state is not None]


def plan_for(
    cfg: DebateConfig, states: list[RunState] | None = None, prompts: Prompts | None = None
) -> Plan:
    """``prompts``: the run's own (its templates, and round 1's prompt rendered once for
    the plan and the turn); a new one when the run has none yet."""
    first = (prompts or Prompts(cfg.lang)).role(cfg, "A", 1, Ledger(), [], None, blind=True)
    past = past_costs(past_states() if states is None else states)
    table = load_prices()  # the user's [prices] before the dated defaults
    return make_plan(cfg, past, len(first), lambda a, m: price_per_mtok(a, m, table))
