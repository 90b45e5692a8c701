"""What a model may do through ``collab mcp``: the concurrency cap across servers, taken
atomically; only the runs started over MCP are seen; context only from the client's roots;
no reading tools or the user's own setup unless the user's [mcp] says so."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.conftest import Cli, FakeAgent, contract_block
from tests.e2e.mcp_client import call, doc_of, mcp_session, poll, text_of

ROLE_A = "(Role A) in a structured debate"
ROLE_B = "(Role B) in a structured debate"
JUDGE = "neutral judge"


def slow_script(fake: FakeAgent, sleep: float = 2.0) -> None:
    b = "B." + contract_block(stances=[("I1", "contest", "no")])
    fake.script(
        [
            {"match": [JUDGE], "replies": ["## TL;DR\n- done"]},
            {"match": [ROLE_A], "replies": [
                {"text": "A." + contract_block(new=[("S", "e")]), "sleep": sleep}]},
            {"match": [ROLE_B], "replies": [
                {"text": b, "sleep": sleep}]},
        ],
        "unmatched prompt",
    )  # fmt: skip


def mcp_config(fake: FakeAgent, text: str) -> None:
    with (fake.dir.parent / "config.toml").open("a", encoding="utf-8") as f:
        f.write(f"[mcp]\n{text}\n")


def state_of(home: Path, run_id: str) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((home / "runs" / run_id / "state.json").read_text())
    return doc


def test_six_calls_at_once_from_two_servers_start_two(
    fake_agent: FakeAgent, hermetic_env: Path
) -> None:
    """The cap counts MCP runs across server processes, checked and reserved under one
    lock: of six debate_start calls sent at once (three per server) two start."""
    mcp_config(fake_agent, "max_concurrent = 2")
    slow_script(fake_agent)
    results: list[tuple[bool, str]] = []

    async def go() -> None:
        async with mcp_session() as one, mcp_session() as two:

            async def start(s: Any, n: int) -> None:
                res = await call(s, "debate_start", topic=f"Topic {n}", agent="fake", rounds=2)
                results.append((bool(res.is_error), text_of(res)))

            async with anyio.create_task_group() as tg:
                for n in range(6):
                    tg.start_soon(start, one if n % 2 else two, n)
            info = await doc_of(one, "server_info")
            results.append((False, json.dumps(info["active_runs"])))
            for rid in info["active_runs"]:
                await doc_of(two, "debate_cancel", run_id=rid)

    anyio.run(go)
    *calls, (_, active) = results
    started = [json.loads(text)["run_id"] for err, text in calls if not err]
    refused = [text for err, text in calls if err]
    assert len(started) == 2, calls
    assert len(refused) == 4 and all("the most collab runs at once" in t for t in refused)
    assert sorted(json.loads(active)) == sorted(started)
    assert {state_of(hermetic_env, r)["origin"] for r in started} == {"mcp"}


def test_a_model_sees_only_the_runs_started_over_mcp(
    cli: Cli, fake_agent: FakeAgent, hermetic_env: Path, tmp_path: Path
) -> None:
    slow_script(fake_agent, sleep=0.0)
    res = cli.process(
        "debate", "A person's debate", "--agent", "fake", "--rounds", "2", "--runner",
        "subprocess", "--json",
    )  # fmt: skip
    assert res.code == 0, res.err
    person = res.json()["run_id"]
    assert state_of(hermetic_env, person)["origin"] == "cli"
    box: dict[str, Any] = {}

    async def go(key: str) -> None:
        async with mcp_session() as s:
            box[key] = {
                tool: await call(s, tool, run_id=person)
                for tool in ("debate_status", "debate_result", "debate_cancel")
            }
            box[key + "-list"] = await doc_of(s, "runs_list")

    anyio.run(go, "default")
    for tool, res in box["default"].items():
        assert res.is_error, tool
        assert f"run {person} was not started over MCP" in text_of(res)
        assert "all_runs = true" in text_of(res)
    assert box["default-list"]["runs"] == []
    assert state_of(hermetic_env, person)["status"] == "done"  # not cancelled, not touched

    mcp_config(fake_agent, "all_runs = true")
    anyio.run(go, "all")
    assert not box["all"]["debate_status"].is_error
    assert not box["all"]["debate_result"].is_error
    assert [r["run_id"] for r in box["all-list"]["runs"]] == [person]


def _outside(tmp_path: Path) -> dict[str, tuple[str, str]]:
    project = tmp_path / "project"
    project.mkdir()
    (tmp_path / "secret.md").write_text("outside the project\n", encoding="utf-8")
    (project / "notes.md").symlink_to(tmp_path / "secret.md")
    (project / "ok.md").write_text("inside\n", encoding="utf-8")
    return {
        "absolute": ("/etc/hostname", "/etc/hostname"),
        "dotdot": ("../secret.md", str(tmp_path / "secret.md")),
        "symlink": ("notes.md", str(tmp_path / "secret.md")),
    }


@pytest.mark.parametrize("case", ["absolute", "dotdot", "symlink"])
@pytest.mark.parametrize("with_roots", [True, False], ids=["roots", "cwd"])
def test_context_only_from_the_clients_roots(
    fake_agent: FakeAgent, hermetic_env: Path, tmp_path: Path, case: str, with_roots: bool
) -> None:
    path, real = _outside(tmp_path)[case]
    project = tmp_path / "project"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()

    async def go() -> Any:
        session = (
            mcp_session(cwd=elsewhere, roots=[project]) if with_roots else mcp_session(cwd=project)
        )
        async with session as s:
            return await call(s, "debate_start", topic="T", agent="fake", context=[path])

    res = anyio.run(go)
    assert res.is_error
    assert f"context {path} resolves to {real}, outside the client's roots" in text_of(res)
    assert not (hermetic_env / "runs").exists()
    # The user widens it: [mcp] allow_paths.
    slow_script(fake_agent, sleep=0.0)
    mcp_config(fake_agent, f"allow_paths = [{json.dumps(str(Path(real).parent))}]")

    async def ok() -> Any:
        async with mcp_session(cwd=project) as s:
            started = await doc_of(s, "debate_start", topic="T", agent="fake", rounds=2,
                                   context=[path])  # fmt: skip

            async def status() -> dict[str, Any]:
                return await doc_of(s, "debate_status", run_id=started["run_id"])

            return await poll(status, lambda d: d["phase"] in ("finished", "stopped"))

    doc = anyio.run(ok)
    assert doc["status"] == "done", doc  # (a driver that died says why in "error")


@pytest.mark.parametrize(
    ("arg", "flag"),
    [({"tools": "read"}, "allow_read_tools"), ({"agent_setup": "inherit"}, "allow_inherit_setup")],
    ids=["tools-read", "inherit"],
)
def test_read_tools_and_inherit_need_the_users_word(
    fake_agent: FakeAgent, hermetic_env: Path, arg: dict[str, str], flag: str
) -> None:
    async def go() -> Any:
        async with mcp_session() as s:
            return await call(s, "debate_start", topic="T", agent="fake", rounds=2, **arg)

    res = anyio.run(go)
    assert res.is_error and f"{flag} = true in [mcp]" in text_of(res)
    assert not (hermetic_env / "runs").exists()
    slow_script(fake_agent, sleep=0.0)
    mcp_config(fake_agent, f"{flag} = true")

    async def ok() -> dict[str, Any]:
        async with mcp_session() as s:
            started = await doc_of(s, "debate_start", topic="T", agent="fake", rounds=2, **arg)

            async def status() -> dict[str, Any]:
                return await doc_of(s, "debate_status", run_id=started["run_id"])

            return await poll(status, lambda d: d["phase"] in ("finished", "stopped"))

    run_id = anyio.run(ok)["run_id"]
    key, value = next(iter(arg.items()))
    assert state_of(hermetic_env, run_id)["config"][key] == value
