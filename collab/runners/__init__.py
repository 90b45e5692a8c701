"""Runners execute one agent turn each: in a tmux pane, or as a plain subprocess.

``runner_factory`` picks one for a run; ``check_runner`` says, before anything starts,
whether that choice can run here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from collab.lazy import exports

if TYPE_CHECKING:
    from collab.runners.choice import RunnerFactory, check_runner, runner_factory

# Each name from its module when first asked for: the pane's live view (a fresh Python
# process each tmux turn, on the way to the next turn) imports .turnfiles, not both
# runners and the option declarations (~70 ms of CPU a turn).
__getattr__ = exports(
    __name__,
    {
        "RunnerFactory": "collab.runners.choice",
        "check_runner": "collab.runners.choice",
        "runner_factory": "collab.runners.choice",
    },
)

__all__ = ["RunnerFactory", "check_runner", "runner_factory"]
