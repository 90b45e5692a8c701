"""max_cost binds agents that report no cost: collab estimates it from the price table and
stops on the estimate; an agent with no price is refused with the key to set; over MCP an
unpriced agent runs bounded by max_calls and rounds instead."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio

from tests.conftest import Cli, FakeAgent
from tests.e2e.mcp_client import call, doc_of, mcp_session, text_of
from tests.helpers import Outcome


def collab(cli: Cli, *args: str) -> Outcome:
    return cli.process(*args)


DEBATE = ("debate", "T", "--agent", "fake-text", "--rounds", "3", "--runner", "subprocess",
          "--opening", "sequential",
          "--json")  # fmt: skip


def test_an_unpriced_agent_with_max_cost_is_refused_then_priced_it_stops_on_the_estimate(
    cli: Cli, fake_agent: FakeAgent, hermetic_env: Path
) -> None:
    res = collab(cli, *DEBATE, "--max-cost", "0.000001")
    assert res.code == 2
    message = res.json()["error"]["message"]
    assert "--max-cost cannot bind fake-text:default" in message
    assert '[prices] "fake-text:default" = [input, output]' in message
    with (hermetic_env / "config.toml").open("a", encoding="utf-8") as f:
        f.write('[prices]\n"fake-text:*" = [1000, 1000]\n')
    res = collab(cli, *DEBATE, "--max-cost", "0.000001")
    assert res.code == 0, res.err
    doc = res.json()
    assert doc["stop_reason"] == "budget" and doc["cost_estimated"] is True
    assert len(doc["turns"]) == 1  # the first turn's estimate reached the cap
    state = json.loads(Path(doc["paths"]["state"]).read_text(encoding="utf-8"))
    meta = state["turns"][0]["meta"]
    assert meta["cost_estimated"] is True and meta["cost_usd"] > 0.000001
    assert "estimated cost" in state["stop_detail"]


def test_over_mcp_an_unpriced_agent_runs_under_max_calls(
    fake_agent: FakeAgent, hermetic_env: Path
) -> None:
    with (hermetic_env / "config.toml").open("a", encoding="utf-8") as f:
        f.write("[mcp]\nmax_calls = 6\n")
    box: dict[str, Any] = {}

    async def go() -> None:
        async with mcp_session() as s:
            box["info"] = await doc_of(s, "server_info")
            box["over"] = await call(s, "debate_start", topic="T", agent="fake-text", rounds=3)
            started = await doc_of(s, "debate_start", topic="T", agent="fake-text", rounds=2)
            box["started"] = started

            async def status() -> dict[str, Any]:
                return await doc_of(s, "debate_status", run_id=started["run_id"])

            while (await status())["phase"] not in ("finished", "stopped"):
                await anyio.sleep(0.1)

    anyio.run(go)
    assert box["info"]["limits"]["max_calls"] == 6
    over = box["over"]
    assert over.is_error and "3 rounds take 7 agent calls, over this server's max_calls of 6" in (
        text_of(over)
    )
    started = box["started"]
    assert started["max_cost"] is None and "bounded by its 2 rounds" in started["cost_note"]
