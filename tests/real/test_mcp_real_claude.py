"""``collab mcp`` with the REAL ``claude`` CLI as the debaters and the Judge, offline
against the fake Anthropic API: an MCP client session from the official SDK starts the
debate, follows it with debate_status and reads debate_result."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from libtmux import Server

from tests.conftest import contract_block
from tests.e2e.mcp_client import doc_of, mcp_session, poll
from tests.fakes import FakeAnthropic, Reply
from tests.helpers import JUDGE_REST, needs_no_machine_login
from tests.real.conftest import use_fake_claude

pytestmark = [pytest.mark.real_agent]

ROLE_A = "(Role A) in a structured debate"
ROLE_B = "(Role B) in a structured debate"
JUDGE = "neutral judge"
TOPIC = "JWT vs sessions"
A1 = "Stolen JWTs stay valid until they expire." + contract_block(
    new=[("Token revocation", "a leaked JWT lives until exp")]
)
B1 = "A session lookup costs a hop per request." + contract_block(
    stances=[("I1", "agree", "a denylist is state anyway")]
)
VERDICT = "## TL;DR\n- Sessions: revocation without the latency cost." + JUDGE_REST


@pytest.fixture
def api(
    claude_bin: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, server: Server
) -> Iterator[FakeAnthropic]:
    with FakeAnthropic() as fake:
        use_fake_claude(monkeypatch, claude_bin, fake.url, tmp_path / "claude-home", server)
        yield fake


def test_mcp_session_with_real_claude(api: FakeAnthropic, hermetic_env: Path) -> None:
    api.add_rule(JUDGE, Reply(text=VERDICT, input_tokens=3000, output_tokens=400))
    api.add_rule([ROLE_A, TOPIC], Reply(text=A1, input_tokens=1200, output_tokens=150))
    api.add_rule([ROLE_B, TOPIC], Reply(text=B1, input_tokens=1300, output_tokens=160))
    api.default(Reply(status=400, error_message="unexpected prompt"))
    box: dict[str, Any] = {}

    async def go() -> None:
        async with mcp_session() as s:
            started = await doc_of(s, "debate_start", topic=TOPIC, rounds=2,
                                   preset="security-vs-performance", opening="sequential",
                                   timeout=90, judge_timeout=90)  # fmt: skip
            rid = started["run_id"]

            async def status() -> dict[str, Any]:
                return await doc_of(s, "debate_status", run_id=rid, wait_s=20)

            box["started"], box["last"] = (
                started,
                await poll(status, lambda d: d["phase"] in ("finished", "stopped"), timeout=300),
            )
            box["result"] = await doc_of(s, "debate_result", run_id=rid)

    anyio.run(go)
    started, last, result = box["started"], box["last"], box["result"]
    assert started["runner"] == "subprocess"
    assert last["status"] == "done", last
    assert result["status"] == "done", result["error"]
    assert {result["roles"][s]["agent"] for s in ("A", "B", "judge")} == {"claude"}
    assert result["judge"]["markdown"].startswith(VERDICT)
    assert result["counts"]["resolved"] == 1
    # Exact cost from the real CLI's own accounting, under the server's default cap.
    assert result["cost_usd"] is not None and 0 < result["cost_usd"] < started["max_cost"]
    assert api.default_count == 0 and len(api.requests) >= 3


def test_mcp_login_refused_up_front_or_kept_failed_with_the_hint(
    api: FakeAnthropic, hermetic_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Over MCP as on the command line: no login anywhere → a tool error before a run is
    created (no call made, nothing listed); a key the API rejects (401) on the very first
    call → the run whose id was already returned stays, ``failed``, with the login hint."""
    from tests.e2e.mcp_client import call, text_of

    needs_no_machine_login()
    key, url = os.environ["ANTHROPIC_API_KEY"], os.environ["ANTHROPIC_BASE_URL"]
    box: dict[str, Any] = {}

    async def refused() -> None:
        async with mcp_session() as s:
            res = await call(s, "debate_start", topic=TOPIC, rounds=2)
            box["refused"] = (res.is_error, text_of(res))
            box["listed"] = (await doc_of(s, "runs_list", limit=5))["runs"]

    monkeypatch.delenv("ANTHROPIC_API_KEY")
    monkeypatch.delenv("ANTHROPIC_BASE_URL")  # a gateway would be "cannot tell"
    anyio.run(refused)
    is_error, text = box["refused"]
    assert is_error and "claude: no login or API key found" in text
    assert box["listed"] == [] and api.requests == []
    assert not (hermetic_env / "runs").is_dir() or not list((hermetic_env / "runs").iterdir())

    monkeypatch.setenv("ANTHROPIC_API_KEY", key)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", url)
    api.default(Reply(status=401, error_message="fake-401-marker"))

    async def rejected() -> None:
        async with mcp_session() as s:
            started = await doc_of(s, "debate_start", topic=TOPIC, rounds=2,
                                   opening="sequential", timeout=90)  # fmt: skip
            rid = started["run_id"]

            async def status() -> dict[str, Any]:
                return await doc_of(s, "debate_status", run_id=rid, wait_s=20)

            box["last"] = await poll(status, lambda d: not d["active"], timeout=300)
            box["listed"] = (await doc_of(s, "runs_list", limit=5))["runs"]

    anyio.run(rejected)
    last = box["last"]
    assert last["status"] == "failed", last
    assert "claude login failed" in str(last["error"]) and "fake-401-marker" in str(last["error"])
    assert "log in" in str(last["error"])  # the hint
    assert [r["run_id"] for r in box["listed"]] == [last["run_id"]]
    assert len(api.requests) >= 1
