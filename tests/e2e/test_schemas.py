"""Every --json document validates against the published schema it names."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from jsonschema import Draft202012Validator

from collab import __version__
from collab.doctor import Check
from collab.presets import get_preset, load_presets
from collab.report import (
    SCHEMAS,
    doctor_document,
    error_document,
    list_document,
    preset_document,
    presets_document,
    skill_document,
    version_document,
)
from collab.store import StoredRun
from tests.conftest import Cli, FakeAgent, contract_block
from tests.e2e.test_inputs import ALL_TOOLS, LOGIN_VARS, bin_dir
from tests.helpers import JUDGE_REST, needs_no_machine_login


def run_json(args: list[str], cli: Cli) -> tuple[int, Any]:
    res = cli(*args, "--json")
    return res.code, res.json()


def validate(doc: Any) -> None:
    assert isinstance(doc, dict)
    name = doc["schema"]
    Draft202012Validator(SCHEMAS[name]).validate(doc)


@pytest.mark.parametrize("name", list(SCHEMAS))
def test_schemas_are_valid_json_schema(name: str) -> None:
    Draft202012Validator.check_schema(SCHEMAS[name])


class Case(NamedTuple):
    test_id: str
    args: list[str]
    schema: str
    exit_code: int


CASES = [
    Case("presets", ["presets"], "collab.presets/1", 0),
    Case("preset", ["presets", "show", "cost-vs-reliability"], "collab.preset/1", 0),
    Case("preset-panel", ["presets", "show", "architecture-review"], "collab.preset/1", 0),
    Case("list-empty", ["list"], "collab.list/1", 0),
    Case("error-usage", ["debate", "  "], "collab.error/1", 2),
    Case("error-unknown-preset", ["debate", "x", "--preset", "nope"], "collab.error/1", 2),
    Case("error-unknown-run", ["show", "20990101-000000-abcdef"], "collab.error/1", 2),
]


@pytest.mark.parametrize(list(Case._fields), CASES, ids=[c.test_id for c in CASES])
def test_simple_documents(
    cli: Cli, test_id: str, args: list[str], schema: str, exit_code: int
) -> None:
    code, doc = run_json(args, cli)
    assert code == exit_code
    assert doc["schema"] == schema
    validate(doc)


def test_run_documents(fake_agent: FakeAgent, cli: Cli) -> None:
    fake_agent.script(
        [
            {
                "match": ["(Role A) in a structured debate"],
                "replies": ["A." + contract_block(new=[("cache", "hit rate 90%")])],
            },
            {
                "match": ["(Role B) in a structured debate"],
                "replies": ["B." + contract_block(stances=[("I1", "agree", "fine")])],
            },
        ],
        "## TL;DR\n- done" + JUDGE_REST,
    )
    code, doc = run_json(
        ["debate", "Schema test", "--agent", "fake", "--runner", "subprocess"], cli
    )
    assert code == 0
    validate(doc)
    run_id = doc["run_id"]
    for args in (["show", run_id], ["list"]):
        code, other = run_json(args, cli)
        assert code == 0
        validate(other)
    assert other["runs"][0]["run_id"] == run_id


def test_batch_and_skill_documents(fake_agent: FakeAgent, tmp_path: Path, cli: Cli) -> None:
    fake_agent.script([], "reply" + contract_block())
    topics = tmp_path / "topics.txt"
    topics.write_text("one\ntwo\n")
    code, doc = run_json(
        ["batch", str(topics), "--agent", "fake", "--runner", "subprocess", "--rounds", "2"], cli
    )
    assert code == 0
    validate(doc)
    assert [r["line"] for r in doc["runs"]] == [1, 2]
    code, doc = run_json(["skill", "install", "--dir", str(tmp_path / "skill")], cli)
    assert code == 0
    validate(doc)


@pytest.mark.parametrize("logged_in", [True, False], ids=["ok", "failing"])
def test_doctor_document(
    cli: Cli,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    logged_in: bool,
) -> None:
    """Both documents doctor can write, on a PATH made for the test: exit 0 with ``ok``
    true, and exit 3 (no login) with a failing check and its fix. Mutant killed (the old
    ``code in (0, 3)`` passed it): ``claude_login`` reporting "ok" with no login at all."""
    if not logged_in:
        needs_no_machine_login()
    path = bin_dir(tmp_path, ALL_TOOLS, claude=True)
    monkeypatch.setenv("PATH", str(path))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    for var in LOGIN_VARS:
        monkeypatch.delenv(var, raising=False)
    if logged_in:
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-not-a-key")
    code, doc = run_json(["doctor"], cli)
    assert code == (0 if logged_in else 3)
    validate(doc)
    assert doc["ok"] is logged_in
    failing = [(c["name"], bool(c["fix"])) for c in doc["checks"] if c["level"] == "fail"]
    assert failing == ([] if logged_in else [("claude login", True)])


# -- the builders, without the CLI -------------------------------------------------------------

RAW_RUN: dict[str, Any] = {
    "run_id": "20261130-101502-3fa9c1",
    "created": "2026-11-30T10:15:02+0000",
    "config": {"topic": "JWT or sessions?", "preset": "cost-vs-reliability", "rounds": 3},
    "rounds_done": 2,
    "status": "done",
    "stop_reason": "converged-early",
    "cost_usd": 0.09,
}
OK, WARN, FAIL = Check("tmux", "ok", "3.4"), Check("codex", "warn", "old"), Check("x", "fail", "")


class DocCase(NamedTuple):
    test_id: str
    build: Callable[[], dict[str, object]]
    want: dict[str, object]


DOC_CASES = [
    DocCase("error", lambda: error_document("usage", "bad topic", 2),
            {"error": {"kind": "usage", "message": "bad topic"}, "exit_code": 2}),
    DocCase("list", lambda: list_document([StoredRun(str(RAW_RUN["run_id"]), RAW_RUN)]),
            {"runs": [{
        "run_id": "20261130-101502-3fa9c1", "created": "2026-11-30T10:15:02+0000",
        "topic": "JWT or sessions?", "preset": "cost-vs-reliability", "rounds_done": 2,
        "rounds": 3, "status": "done", "stop_reason": "converged-early", "cost_usd": 0.09,
        "reason": None}]}),
    DocCase("list-damaged", lambda: list_document([StoredRun(
        "20261130-101502-3fa9c1", None, "state.json is damaged (not a JSON object)")]),
            {"runs": [{
        "run_id": "20261130-101502-3fa9c1", "created": "2026-11-30T10:15:02", "topic": None,
        "preset": None, "rounds_done": None, "rounds": None, "status": "damaged",
        "stop_reason": None, "cost_usd": None,
        "reason": "state.json is damaged (not a JSON object)"}]}),
    DocCase("list-empty", lambda: list_document([]), {"runs": []}),
    DocCase("presets", lambda: presets_document(load_presets().values()), {}),
    DocCase("preset", lambda: preset_document(get_preset("cost-vs-reliability")),
            {"key": "cost-vs-reliability"}),
    DocCase("preset-panel", lambda: preset_document(get_preset("launch-readiness")),
            {"key": "launch-readiness"}),
    DocCase("doctor-warn-is-ok", lambda: doctor_document([OK, WARN]), {"ok": True}),
    DocCase("doctor-fail", lambda: doctor_document([OK, FAIL]), {"ok": False}),
    DocCase("skill", lambda: skill_document("installed", Path("/x/SKILL.md")),
            {"action": "installed", "path": "/x/SKILL.md"}),
    DocCase("version", version_document, {"schema": "collab.version/1", "version": __version__}),
]  # fmt: skip


@pytest.mark.parametrize("case", DOC_CASES, ids=[c.test_id for c in DOC_CASES])
def test_builders(case: DocCase) -> None:
    doc = case.build()
    validate(doc)
    assert {k: doc[k] for k in case.want} == case.want
