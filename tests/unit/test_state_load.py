"""Loading state.json: one damaged field at a time, and the error names its path.

Every row takes a real saved run, breaks one field (or deletes it) and expects the
exact path and problem in load_state's one-line UsageError. The checks are code, not
``assert``, so the same rejection holds under ``python -O`` (a process of its own:
tests/e2e/test_state_load.py).
"""

from __future__ import annotations

import json
from typing import NamedTuple

import pytest

from collab.agents.decoding import Usage
from collab.config import AgentChoice, ContextFile, DebateConfig, Role
from collab.contract import Contract, NewPoint, StanceUpdate
from collab.decision import HumanDecision
from collab.errors import UsageError
from collab.seats import Side
from collab.state import Angle, Judge, RunState, load_state
from collab.store import RunDir, write_file
from collab.turns import AgentMeta, TurnRecord

RUN_ID = "20261201-120000-abcdef"
DELETE = object()  # a row's value: remove the key instead of setting it
Key = str | int


def _meta(agent: str, usage: Usage | None = None) -> AgentMeta:
    return AgentMeta(
        agent=agent,
        model="m1",
        exit_code=0,
        duration=1.5,
        attempts=1,
        usage=usage,
        cost_usd=0.01,
        session_id="s1",
    )


def _turn(side: Side, round_no: int, contract: Contract, usage: Usage | None = None) -> TurnRecord:
    return TurnRecord(
        round_no=round_no,
        side=side,
        role_name=f"role {side}",
        status="ok",
        reply=f"reply {side}{round_no}",
        prose=f"prose {side}{round_no}",
        contract=contract,
        contract_error=None,
        prompt_sha256="0" * 64,
        meta=_meta("claude", usage),
        reask=_meta("claude") if side == "B" else None,
        warnings=("a warning",),
    )


def saved_state() -> RunState:
    """A run with every kind of field filled in, as the orchestrator would save it."""
    config = DebateConfig(
        topic="JWT vs sessions",
        role_a=Role("A", "Advocate", "argues for"),
        role_b=Role("B", "Critic", "argues against"),
        contexts=(ContextFile("notes.md", "some notes"),),
        agent_b=AgentChoice("command", None, "mycli {prompt_file}"),
        max_cost=2.5,
    )
    state = RunState(
        run_id=RUN_ID,
        config=config,
        status="interrupted",
        turns=[
            _turn("A", 1, Contract(new_points=(NewPoint("Point", "evidence"),)), Usage(10, 5)),
            _turn("B", 1, Contract(stances=(StanceUpdate("I1", "contest", "no"),))),
        ],
        checked_rounds=[1],
        angle=Angle(1, "look at cost", ("I1",)),
        judge=Judge("## TL;DR", fallback=False, meta=_meta("claude", Usage(1, 2, 3, 4))),
        warnings=["run warning"],
        temp_dir="/tmp/collab-x",
        decisions=[
            HumanDecision("choice", "sessions", "ana", "2026-12-01T12:00:00+0000", why="revoke"),
            HumanDecision("outcome", "fine", "ana", "2026-12-02T12:00:00+0000"),
        ],
    )
    run_dir = RunDir(RUN_ID)
    run_dir.create()
    run_dir.save(state.to_dict())
    return state


_SAVED: list[str] = []  # the state.json text saved_state() wrote first this session


def saved_once() -> None:
    """saved_state()'s run in this home, its state.json the text saved_state() saved the
    first time this session (``updated`` then): a row reads the document back and writes it
    again, so it reads only what that text holds, and making it (to_dict, the indented
    json.dumps) is ~1.5 ms of a row's ~2 ms."""
    run_dir = RunDir(RUN_ID)
    if not _SAVED:
        saved_state()
        _SAVED.append(run_dir.state_path.read_text(encoding="utf-8"))
        return
    run_dir.create()
    write_file(run_dir.state_path, _SAVED[0])


def damage(where: tuple[Key, ...], value: object) -> None:
    path = RunDir(RUN_ID).state_path
    doc = json.loads(path.read_text(encoding="utf-8"))
    node = doc
    for key in where[:-1]:
        node = node[key]
    if value is DELETE:
        del node[where[-1]]
    else:
        node[where[-1]] = value
    path.write_text(json.dumps(doc), encoding="utf-8")


def test_a_saved_state_loads_back_equal() -> None:
    state = saved_state()
    assert load_state(RunDir(RUN_ID)) == state


class Damage(NamedTuple):
    test_id: str
    where: tuple[Key, ...]
    value: object
    error: str  # what load_state says inside "state.json is damaged (...)"


STATUSES = "ok, abstain, timeout, no-response, error"
DAMAGES = [
    Damage("turn-status", ("turns", 1, "status"), "maybe",
           f"state.turns[1].status: expected one of {STATUSES}, got 'maybe'"),
    Damage("turn-side", ("turns", 0, "side"), "C",
           "state.turns[0].side: expected one of A, B, got 'C'"),
    Damage("turn-round-bool", ("turns", 0, "round_no"), True,
           "state.turns[0].round_no: expected an integer, got true"),
    Damage("turn-round-string", ("turns", 0, "round_no"), "1",
           "state.turns[0].round_no: expected an integer, got '1'"),
    Damage("turn-round-float", ("turns", 0, "round_no"), 1.0,
           "state.turns[0].round_no: expected an integer, got 1.0"),
    Damage("turn-reply-missing", ("turns", 1, "reply"), DELETE,
           "state.turns[1].reply: missing"),
    Damage("turn-warning-number", ("turns", 0, "warnings"), ["ok", 7],
           "state.turns[0].warnings[1]: expected a string, got 7"),
    Damage("turn-contract-error", ("turns", 0, "contract_error"), ["x"],
           "state.turns[0].contract_error: expected a string or null, got a list"),
    Damage("turn-not-object", ("turns", 1), "turn",
           "state.turns[1]: expected an object, got 'turn'"),
    Damage("turns-not-list", ("turns",), {"0": {}},
           "state.turns: expected a list, got an object"),
    Damage("contract-stance", ("turns", 1, "contract", "stances", 0, "stance"), "nope",
           "state.turns[1].contract: stances[0].stance must be one of agree/contest/drop, "
           "not 'nope'"),
    Damage("contract-not-object", ("turns", 0, "contract"), [],
           "state.turns[0].contract: the contract must be a JSON object, not a list"),
    Damage("meta-missing", ("turns", 1, "meta"), DELETE,
           "state.turns[1].meta: missing"),
    Damage("meta-duration", ("turns", 1, "meta", "duration"), "fast",
           "state.turns[1].meta.duration: expected a number, got 'fast'"),
    Damage("meta-exit-code-bool", ("turns", 0, "meta", "exit_code"), False,
           "state.turns[0].meta.exit_code: expected an integer, got false"),
    Damage("reask-agent", ("turns", 1, "reask", "agent"), None,
           "state.turns[1].reask.agent: expected a string, got null"),
    Damage("usage-tokens", ("turns", 0, "meta", "usage", "input_tokens"), 1.5,
           "state.turns[0].meta.usage.input_tokens: expected an integer, got 1.5"),
    Damage("usage-unknown-key", ("turns", 0, "meta", "usage", "tokens"), 3,
           "state.turns[0].meta.usage.tokens: unknown key (allowed: input_tokens, "
           "output_tokens, cache_read_tokens, cache_write_tokens)"),
    Damage("usage-not-object", ("turns", 0, "meta", "usage"), 15,
           "state.turns[0].meta.usage: expected an object, got 15"),
    Damage("config-missing", ("config",), DELETE, "state.config: missing"),
    Damage("config-rounds-missing", ("config", "rounds"), DELETE,
           "state.config.rounds: missing"),
    Damage("config-role-side", ("config", "role_a", "side"), "C",
           "state.config.role_a.side: expected one of A, B, got 'C'"),
    Damage("config-context-text", ("config", "contexts", 0, "text"), 5,
           "state.config.contexts[0].text: expected a string, got 5"),
    Damage("config-agent-not-object", ("config", "agent_b"), "claude",
           "state.config.agent_b: expected an object, got 'claude'"),
    Damage("config-max-cost-string", ("config", "max_cost"), "1",
           "state.config.max_cost: expected a number, got '1'"),
    Damage("config-timeout-bool", ("config", "turn_timeout"), True,
           "state.config.turn_timeout: expected a number, got true"),
    Damage("config-keep-temp-int", ("config", "keep_temp"), 1,
           "state.config.keep_temp: expected true or false, got 1"),
    Damage("config-lang", ("config", "lang"), "fr",
           "state.config.lang: expected one of en, ja, got 'fr'"),
    Damage("config-runner", ("config", "runner"), "docker",
           "state.config.runner: expected one of auto, tmux, subprocess, got 'docker'"),
    Damage("run-status-null", ("status",), None,
           "state.status: expected one of pending, running, done, interrupted, failed, "
           "got null"),
    Damage("run-id-number", ("run_id",), 7, "state.run_id: expected a string, got 7"),
    Damage("created-ts-string", ("created_ts",), "now",
           "state.created_ts: expected a number, got 'now'"),
    Damage("checked-rounds-float", ("checked_rounds",), [1.0],
           "state.checked_rounds[0]: expected an integer, got 1.0"),
    Damage("angle-issue-id", ("angle", "issue_ids"), ["I1", 2],
           "state.angle.issue_ids[1]: expected a string, got 2"),
    Damage("angle-not-object", ("angle",), "look at cost",
           "state.angle: expected an object, got 'look at cost'"),
    Damage("judge-fallback", ("judge", "fallback"), "yes",
           "state.judge.fallback: expected true or false, got 'yes'"),
    Damage("judge-meta-agent", ("judge", "meta", "agent"), DELETE,
           "state.judge.meta.agent: missing"),
    Damage("long-value-cut", ("turns", 0, "side"), "y" * 100,
           "state.turns[0].side: expected one of A, B, got '" + "y" * 37 + "…'"),
]  # fmt: skip


@pytest.mark.parametrize("row", DAMAGES, ids=[r.test_id for r in DAMAGES])
def test_damaged_field_is_named(row: Damage) -> None:
    saved_once()
    damage(row.where, row.value)
    with pytest.raises(UsageError) as err:
        load_state(RunDir(RUN_ID))
    assert str(err.value) == f"run {RUN_ID}: state.json is damaged ({row.error})"


class Missing(NamedTuple):
    """A key older state files may lack, and the value loading gives it (as before)."""

    test_id: str
    where: tuple[Key, ...]
    value: object  # DELETE, or null where null was always accepted
    read: str  # attribute path into the loaded RunState
    expected: object


MISSING = [
    Missing("created-ts", ("created_ts",), DELETE, "created_ts", 0.0),
    Missing("created", ("created",), DELETE, "created", ""),
    Missing("status", ("status",), DELETE, "status", "running"),
    Missing("stop-detail-null", ("stop_detail",), None, "stop_detail", ""),
    Missing("temp-dir", ("temp_dir",), DELETE, "temp_dir", None),
    Missing("turns-null", ("turns",), None, "turns", []),
    Missing("checked-rounds", ("checked_rounds",), DELETE, "checked_rounds", []),
    Missing("warnings-null", ("warnings",), None, "warnings", []),
    Missing("angle", ("angle",), DELETE, "angle", None),
    Missing("angle-issue-ids", ("angle", "issue_ids"), DELETE, "angle.issue_ids", ()),
    Missing("judge-fallback", ("judge", "fallback"), DELETE, "judge.fallback", False),
    Missing("judge-meta", ("judge", "meta"), None, "judge.meta", None),
    Missing("preset", ("config", "preset"), DELETE, "config.preset", "custom"),
    Missing("lang", ("config", "lang"), DELETE, "config.lang", "en"),
    Missing("runner", ("config", "runner"), DELETE, "config.runner", "auto"),
    Missing("keep-temp", ("config", "keep_temp"), DELETE, "config.keep_temp", False),
    Missing("max-cost", ("config", "max_cost"), DELETE, "config.max_cost", None),
    Missing("contexts", ("config", "contexts"), DELETE, "config.contexts", ()),
    Missing("agent-command", ("config", "agent_b", "command"), DELETE,
            "config.agent_b.command", None),
    Missing("turn-warnings", ("turns", 0, "warnings"), DELETE, "turns.0.warnings", ()),
    Missing("turn-contract", ("turns", 0, "contract"), None, "turns.0.contract", None),
    Missing("turn-reask", ("turns", 1, "reask"), DELETE, "turns.1.reask", None),
    Missing("meta-attempts", ("turns", 0, "meta", "attempts"), DELETE,
            "turns.0.meta.attempts", 1),
    Missing("meta-duration", ("turns", 0, "meta", "duration"), DELETE,
            "turns.0.meta.duration", 0.0),
    Missing("meta-pane-restarts", ("turns", 0, "meta", "pane_restarts"), DELETE,
            "turns.0.meta.pane_restarts", 0),
    Missing("meta-usage", ("turns", 0, "meta", "usage"), DELETE, "turns.0.meta.usage", None),
    Missing("usage-tokens", ("turns", 0, "meta", "usage", "cache_read_tokens"), DELETE,
            "turns.0.meta.usage.cache_read_tokens", 0),
    Missing("meta-cost-int", ("turns", 0, "meta", "cost_usd"), 1, "turns.0.meta.cost_usd", 1.0),
]  # fmt: skip


@pytest.mark.parametrize("row", MISSING, ids=[r.test_id for r in MISSING])
def test_missing_key_keeps_its_default(row: Missing) -> None:
    saved_once()
    damage(row.where, row.value)
    node: object = load_state(RunDir(RUN_ID))
    for part in row.read.split("."):
        node = node[int(part)] if part.isdigit() else getattr(node, part)  # type: ignore[index]
    assert node == row.expected
    assert type(node) is type(row.expected)
