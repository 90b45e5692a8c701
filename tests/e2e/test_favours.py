"""The MCP server refuses a ``debate_start`` with one or six options, as every surface
does (moved from tests/unit/test_favours.py: it drives the MCP SDK's server, which a unit
test does not import)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import anyio
import mcp_types as types
import pytest

from collab.store import runs_dir


@pytest.mark.parametrize("options", [["only"], [f"o{n}" for n in range(6)]], ids=["1", "6"])
def test_mcp_refuses_one_or_six_options(options: list[str], tmp_path: Path) -> None:
    from collab.mcp_server.inputs import DEBATE_PROPS
    from collab.mcp_server.server import CollabServer

    assert (DEBATE_PROPS["option"]["minItems"], DEBATE_PROPS["option"]["maxItems"]) == (2, 5)
    ctx: Any = SimpleNamespace(session=SimpleNamespace(client_capabilities=None))
    params = types.CallToolRequestParams(
        name="debate_start", arguments={"topic": "Which database?", "option": options}
    )
    res = anyio.run(CollabServer(tmp_path).call_tool, ctx, params)
    assert res.is_error
    text = res.content[0].text  # type: ignore[union-attr]
    assert "option takes" in text and "items" in text
    assert not runs_dir().exists() or list(runs_dir().iterdir()) == []  # nothing started
