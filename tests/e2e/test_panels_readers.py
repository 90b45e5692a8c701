"""The MCP ``debate_ask`` tool offers every seat of a panel (A … E) and the Judge (moved
from tests/unit/test_panels_readers.py: the tool definitions are the MCP SDK's types,
which a unit test does not import)."""

from __future__ import annotations

import pytest


def test_mcp_debate_ask_offers_every_seat() -> None:
    import jsonschema

    from collab.mcp_server.tools import TOOLS
    from tests.helpers import schema_validate

    (ask,) = [t for t in TOOLS if t.name == "debate_ask"]
    for seat in ("A", "C", "E", "judge"):
        schema_validate({"run_id": "r", "question": "Why?", "seat": seat}, ask.input_schema)
    with pytest.raises(jsonschema.ValidationError):
        schema_validate({"run_id": "r", "question": "Why?", "seat": "F"}, ask.input_schema)
