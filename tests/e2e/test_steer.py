"""Steering a debate after it ends (issue 22), end to end with the fake agent: run ids
as people type them on every command and MCP tool."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anyio

from tests.conftest import FakeAgent
from tests.e2e import test_cli as tc
from tests.e2e.mcp_client import call, doc_of, mcp_session, text_of

cli = tc.cli  # the fixture: collab ARGS in this process
Outcome = tc.Outcome
ONE = ["--agent", "fake", "--rounds", "2", "--json", *tc.FAST]


def _two_runs(cli: Callable[..., Outcome], fake: FakeAgent) -> tuple[str, str]:
    tc.script_debate(fake)
    first = cli("debate", "first topic", *ONE)
    assert first.code == 0, first
    tc.script_debate(fake)
    second = cli("debate", "second topic", *ONE)
    assert second.code == 0, second
    return first.json()["run_id"], second.json()["run_id"]


def test_short_ids_on_every_command(cli: Callable[..., Outcome], fake_agent: FakeAgent) -> None:
    old, new = _two_runs(cli, fake_agent)
    assert old[:9] == new[:9]  # both begin with today's date

    newest = cli("show")
    assert newest.code == 0 and newest.out.startswith("# Debate: second topic")
    assert cli("show", old[-6:], "--json").json()["run_id"] == old
    assert cli("show", "@last", "--json").json()["run_id"] == new
    assert cli("status", new[-4:], "--json").json()["run_id"] == new
    assert cli("result", old[:-1]).json()["run_id"] == old
    assert cli("watch", old[-5:]).code == 0
    assert cli("gate", "@last", "--json").code == 0

    ambiguous = cli("show", old[:9])
    assert ambiguous.code == 2
    assert "ambiguous" in ambiguous.err and old in ambiguous.err and new in ambiguous.err
    as_doc = cli("status", old[:9], "--json")
    assert as_doc.code == 2 and as_doc.json()["error"]["kind"] == "usage"
    short = cli("show", old[-3:])
    assert short.code == 2 and "at least 4" in short.err
    finished = cli("resume", old[-6:])
    assert finished.code == 2 and f"run {old} is already finished" in finished.err
    batch = cli("resume", "@last-batch")
    assert batch.code == 2 and "no batches yet" in batch.err


def test_mcp_takes_short_ids(cli: Callable[..., Outcome], fake_agent: FakeAgent) -> None:
    old, new = _two_runs(cli, fake_agent)
    seen: dict[str, Any] = {}

    async def go() -> None:
        async with mcp_session() as s:
            seen["suffix"] = await doc_of(s, "debate_result", run_id=old[-6:])
            seen["last"] = await doc_of(s, "debate_status", run_id="@last")
            bad = await call(s, "debate_result", run_id=old[:9])
            seen["ambiguous"] = (bad.is_error, text_of(bad))

    anyio.run(go)
    assert seen["suffix"]["run_id"] == old
    assert seen["last"]["run_id"] == new
    is_error, text = seen["ambiguous"]
    assert is_error and "ambiguous" in text and old in text and new in text
