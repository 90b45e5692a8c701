"""User defaults from ``$COLLAB_HOME/config.toml``: the ``[defaults]`` table.

Precedence: command line, then ``[defaults]``, then collab's built-in defaults. The keys
are the options that offer the ``config`` surface (``collab.options``).
Agents defined under ``[agents.NAME]`` are read by ``collab.agents.load_agents``.
"""

from __future__ import annotations

from pathlib import Path

from collab.errors import UsageError
from collab.options import DebateRequest
from collab.paths import config_table
from collab.request import request_from


def user_defaults(path: Path | None = None, base: DebateRequest | None = None) -> DebateRequest:
    """``base`` (the built-in defaults, topic left empty) with the user's ``[defaults]``."""
    path, table = config_table("defaults", path)
    try:
        return request_from(table, "config", DebateRequest(topic="") if base is None else base)
    except UsageError as exc:
        raise UsageError(f"{path}: [defaults] {exc.message}") from None
