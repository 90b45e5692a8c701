"""``--judge-agent auto``: a Judge from another agent family than the debaters, when one
is installed and logged in (models prefer text they recognise as their own), else the
debaters' own agent.

Logins are judged the way ``collab doctor`` does, without spending a token: API keys in
the environment, or the CLI's stored login file.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Collection, Mapping

from collab.agents.catalogue import FAMILIES, stored_login

AUTO = "auto"


def pick_judge(
    debaters: Collection[str],
    known: Collection[str],
    env: Mapping[str, str] | None = None,
) -> str:
    env = os.environ if env is None else env
    # The built-in agents by the family of models behind them (``Family.models``), in
    # the catalogue's order.
    theirs = {_models(a) for a in debaters}
    for agent, family in FAMILIES.items():
        if family.models is None or family.models in theirs or agent not in known:
            continue
        if _installed(agent, env) and logged_in(agent, env):
            return agent
    return next(iter(debaters))


def _models(agent: str) -> str:
    family = FAMILIES.get(agent)
    return family.models if family is not None and family.models is not None else agent


def _installed(agent: str, env: Mapping[str, str]) -> bool:
    override = env.get(f"COLLAB_{agent.upper()}_BIN")
    return shutil.which(override or agent, path=env.get("PATH")) is not None


def logged_in(agent: str, env: Mapping[str, str]) -> bool:
    return stored_login(agent, env) is not None
