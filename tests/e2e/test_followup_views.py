"""An MCP ``debate_ask`` holds a concurrency slot: refused at the cap, and gives its slot
back (moved from tests/unit/test_followup_views.py: it drives the MCP SDK's server, which
a unit test does not import)."""

from __future__ import annotations

from pathlib import Path

from collab.mcp_server.slots import holding_slot, live_runs


def test_debate_ask_is_refused_at_the_cap_and_gives_its_slot_back(tmp_path: Path) -> None:
    from types import SimpleNamespace
    from typing import Any

    import anyio
    import mcp_types as types

    from collab.mcp_server.server import CollabServer
    from collab.paths import collab_home
    from collab.state import load_state
    from collab.store import RunDir
    from tests.unit.test_orchestrator import debate

    run = debate({}, rounds=2)
    rid = run.state.run_id
    state = load_state(RunDir(rid))
    state.origin = "mcp"
    RunDir(rid).save(state.to_dict())
    (collab_home() / "config.toml").write_text("[mcp]\nmax_concurrent = 1\n")
    ctx: Any = SimpleNamespace(session=SimpleNamespace(client_capabilities=None))
    ask = types.CallToolRequestParams(name="debate_ask", arguments={"run_id": rid,
                                      "question": "Why?", "seat": "A"})  # fmt: skip
    with holding_slot(1, "20261201-120000-other0"):
        res = anyio.run(CollabServer(tmp_path).call_tool, ctx, ask)
        assert res.is_error and "max_concurrent" in res.content[0].text  # type: ignore[union-attr]
    assert load_state(RunDir(rid)).followups == []
    assert live_runs() == []
