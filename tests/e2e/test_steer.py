"""Steering a debate after it ends (issue 22), end to end with the fake agent: run ids
as people type them on every command and MCP tool."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
from jsonschema import validate

from collab.report.schemas import SCHEMAS
from collab.store import RunDir
from tests.conftest import Cli, FakeAgent
from tests.e2e import test_cli as tc
from tests.e2e.mcp_client import call, doc_of, mcp_session, poll, text_of
from tests.helpers import JUDGE_REST

ONE = ["--agent", "fake", "--rounds", "2", "--json", *tc.FAST]


def _two_runs(cli: Cli, fake: FakeAgent) -> tuple[str, str]:
    tc.script_debate(fake)
    first = cli("debate", "first topic", *ONE)
    assert first.code == 0, first
    tc.script_debate(fake)
    second = cli("debate", "second topic", *ONE)
    assert second.code == 0, second
    return first.json()["run_id"], second.json()["run_id"]


def test_short_ids_on_every_command(cli: Cli, fake_agent: FakeAgent) -> None:
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


def test_mcp_takes_short_ids(cli: Cli, fake_agent: FakeAgent, hermetic_env: Path) -> None:
    old, new = _two_runs(cli, fake_agent)
    seen: dict[str, Any] = {}

    async def hidden() -> None:
        async with mcp_session() as s:
            res = await call(s, "debate_result", run_id=old[-6:])
            seen["hidden"] = (res.is_error, text_of(res))

    anyio.run(hidden)  # runs started from the CLI are not this server's to see
    assert seen["hidden"][0] and "no run with id" in seen["hidden"][1]

    with (hermetic_env / "config.toml").open("a") as config:
        config.write("\n[mcp]\nall_runs = true\n")

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


def test_decide_then_export_adr(
    cli: Cli, fake_agent: FakeAgent, tmp_path: Path, monkeypatch: Any
) -> None:
    tc.script_debate(fake_agent)
    rid = cli("debate", tc.TOPIC, *ONE).json()["run_id"]
    records = tmp_path / "adr"
    records.mkdir()
    (records / "0007-older.md").write_text("# older\n")

    proposed = cli("export", rid[-6:], "--format", "adr", "-o", str(records))
    assert proposed.code == 0, proposed
    first = records / "0008-jwt-vs-sessions.md"
    assert first.read_text().count("- Status: proposed") == 1
    assert (first.stat().st_mode & 0o777) == 0o644

    monkeypatch.setenv("USER", "ana")
    both = cli("decide", rid, "--choice", "x", "--outcome", "y")
    assert both.code == 2 and "--choice" in both.err
    assert cli("decide", rid).code == 2
    assert cli("decide", rid, "--choice", "tokens").code == 0
    again = cli("decide", "@last", "--choice", "sessions", "--why", "revocation\x1b[31m wins")
    assert again.code == 0 and "supersedes 1 earlier" in again.out
    monkeypatch.setenv("USER", "bo")
    doc = cli("decide", rid, "--outcome", "logout works", "--json").json()
    assert [(d["kind"], d["text"], d["by"]) for d in doc["decisions"]] == [
        ("choice", "tokens", "ana"),
        ("choice", "sessions", "ana"),
        ("outcome", "logout works", "bo"),
    ]
    assert doc["decisions"][1]["why"] == "revocation wins"  # the escape is gone
    secret = cli("decide", rid, "--choice", "use AKIAIOSFODNN7EXAMPLE", "--why", "x")
    assert secret.code == 2 and "secret" in secret.err
    assert len(cli("show", rid, "--json").json()["decisions"]) == 3  # nothing half-written

    shown = cli("show", rid).out
    assert "## Decision" in shown and "**Decided** (accepted): sessions — by ana" in shown
    assert "Why: revocation wins" in shown and "**Outcome:** logout works — by bo" in shown
    assert "Superseded choice: ~~tokens" in shown
    run_dir = RunDir(rid).path
    assert "## Decision" in (run_dir / "transcript.md").read_text()
    assert 'id="steering"' in (run_dir / "report.html").read_text()
    events = [json.loads(line) for line in (run_dir / "events.jsonl").read_text().splitlines()]
    decided = [e for e in events if e["event"] == "decided"]
    assert [e["text"] for e in decided] == ["tokens", "sessions", "logout works"]
    assert [e["seq"] for e in events] == sorted({e["seq"] for e in events})
    stats = cli("stats", "--json").json()
    assert stats["decided_runs"] == 1

    accepted = cli("export", rid, "--format", "adr", "-o", str(records))
    assert accepted.code == 0, accepted
    adr = (records / "0009-jwt-vs-sessions.md").read_text()
    assert "- Status: accepted" in adr and "- Deciders: ana" in adr
    assert 'Chosen option: "sessions", because revocation wins.' in adr
    assert "How it turned out" in adr and "logout works" in adr
    assert f"`collab show {rid}`" in adr and str(run_dir) not in adr
    named = cli("export", rid, "--format", "adr", "-o", str(tmp_path / "x.md"))
    assert named.code == 0 and (tmp_path / "x.md").read_text() == adr
    bad = cli("export", rid, "--format", "adr", "-o", str(tmp_path / "x.html"))
    assert bad.code == 2 and "Markdown" in bad.err


QUESTION = "What about mobile clients that stay offline for a week?"
NOTE = "We must support revocation within 60 seconds."
FOLLOWUP = "has a follow-up question for you"
FIRST = "## TL;DR\n- the judge's scripted verdict" + JUDGE_REST
SECOND = "## TL;DR\n- the judge's second verdict" + JUDGE_REST


def _script_steering(fake: FakeAgent) -> None:
    """The debate of test_cli, and a rule per seat for follow-ups and continued rounds:
    each matches only when the question (or the note) is in the prompt."""
    fake.script(
        [
            {"match": [FOLLOWUP, tc.ROLE_A, QUESTION], "replies": ["A: refresh."]},
            {"match": [FOLLOWUP, tc.ROLE_B, QUESTION], "replies": ["B: a store."]},
            {"match": [FOLLOWUP, tc.JUDGE, QUESTION], "replies": ["Judge: Position 1 wins."]},
            {"match": [NOTE, tc.JUDGE], "replies": [SECOND]},
            {"match": [NOTE, tc.ROLE_A], "replies": [
                "A offers a denylist." + tc.contract_block(
                    new=[("Denylist", "a short denylist")])]},
            {"match": [NOTE, tc.ROLE_B], "replies": [
                "B accepts both points." + tc.contract_block(
                    stances=[("I1", "agree", "60 s is met"), ("I2", "agree", "same")])]},
            {"match": [tc.REASK], "replies": ["```json\n{}\n```"]},
            {"match": [tc.ROLE_A], "replies": [
                "A argues for tokens." + tc.contract_block(new=[("Stateless", "e")])]},
            {"match": [tc.ROLE_B], "replies": [
                "B argues for sessions." + tc.contract_block(
                    stances=[("I1", "contest", "revocation")])]},
            {"match": [tc.JUDGE], "replies": [FIRST]},
        ],
        "unmatched prompt",
    )  # fmt: skip


def _prompt_chars(fake: FakeAgent, first: str) -> list[int]:
    return [int(c["prompt_chars"]) for c in fake.calls() if str(c["prompt"]).startswith(first)]


def test_ask_each_seat(cli: Cli, fake_agent: FakeAgent, capsys: Any) -> None:
    _script_steering(fake_agent)
    before = cli("debate", tc.TOPIC, *ONE).json()
    rid = before["run_id"]

    both = cli("ask", rid[-6:], QUESTION)
    assert both.code == 0, both
    assert "## Role A\n\nA: refresh." in both.out and "## Role B\n\nB: a store." in both.out
    judge = cli("ask", "@last", QUESTION, "--seat", "judge")
    assert judge.code == 0, judge
    # The Judge wrote "Position 1"; the reader gets the role's name back.
    assert judge.out.startswith("## the Judge\n\nJudge: ") and "Position 1" not in judge.out

    after = cli("show", rid, "--json").json()
    for key in ("ledger", "verdict", "turns", "judge", "counts"):
        assert after[key] == before[key], key  # a follow-up rewrites nothing
    seats = [(f["seat"], f["question"], f["answer"]) for f in after["followups"]]
    assert seats == [("A", QUESTION, "A: refresh."), ("B", QUESTION, "B: a store."),
                     ("judge", QUESTION, judge.out.split("\n\n", 1)[1].strip())]  # fmt: skip
    assert after["cost_usd"] > before["cost_usd"]  # follow-ups count in the run's cost
    shown = cli("show", rid).out
    assert "## Follow-up questions" in shown and f"**Question:** {QUESTION}" in shown
    transcript = (RunDir(rid).path / "transcript.md").read_text()
    assert "B: a store." in transcript
    events = (RunDir(rid).path / "events.jsonl").read_text()
    assert events.count('"event": "followup"') == 3

    secret = cli("ask", rid, "is AKIAIOSFODNN7EXAMPLE ok?")
    assert secret.code == 2 and "secret" in secret.err
    bad = cli("ask", rid, QUESTION, "--seat", "C")
    assert bad.code == 2 and "--seat" in bad.err
    assert len(cli("show", rid, "--json").json()["followups"]) == 3

    turn_chars, ask_chars = (
        _prompt_chars(fake_agent, "You are **"),
        _prompt_chars(fake_agent, "You were **"),
    )
    assert len(turn_chars) >= 4 and len(ask_chars) == 2
    with capsys.disabled():
        print(f"\nprompt characters: a full turn {turn_chars}, a follow-up {ask_chars}")


def test_a_failed_follow_up_exits_1_and_says_why(cli: Cli, fake_agent: FakeAgent) -> None:
    """A follow-up whose agent call fails is no answer: exit 1 with one line naming the
    seat and the error (no "(error)" printed as if it were the answer), and --json's one
    document carries the error on that follow-up."""
    _script_steering(fake_agent)
    rid = cli("debate", tc.TOPIC, *ONE).json()["run_id"]
    broken = {"text": "", "exit": 1, "stderr": "the model is overloaded\n  try again later"}
    fake_agent.script([{"match": [FOLLOWUP], "replies": [broken]}], "unmatched prompt")

    res = cli("ask", rid, QUESTION, "--seat", "A")
    assert res.code == 1, res
    assert "(error)" not in res.out
    said = [line for line in res.err.splitlines() if line.startswith("collab: ")]
    assert len(said) == 1 and "follow-up to Role A failed" in said[0], res.err
    assert "the model is overloaded" in said[0] and f"collab ask {rid}" in said[0]
    # the agent's two lines of stderr are folded: every line on stderr says what it is
    lines = res.err.splitlines()
    assert all(line.startswith(("collab: ", "warning: ", "asking ")) for line in lines), res.err

    both = cli("ask", rid, QUESTION, "--json")
    assert both.code == 1, both
    doc = json.loads(both.out)  # one document, and nothing else on stdout
    assert doc["schema"] == "collab.result/2"
    for f in doc["followups"][-2:]:
        assert f["status"] == "error" and "the model is overloaded" in f["error"], f
    assert doc["followups"][0]["error"] is not None  # the first failed ask, kept


def test_ask_is_refused_while_the_run_is_driven(cli: Cli, fake_agent: FakeAgent) -> None:
    _script_steering(fake_agent)
    rid = cli("debate", tc.TOPIC, *ONE).json()["run_id"]
    with RunDir(rid).locked():
        refused = cli("ask", rid, QUESTION)
    assert refused.code == 2 and "being driven" in refused.err


def test_continue_with_a_note(cli: Cli, fake_agent: FakeAgent) -> None:
    _script_steering(fake_agent)
    first = cli("debate", tc.TOPIC, *ONE).json()
    rid = first["run_id"]
    assert [i["status"] for i in first["ledger"]] == ["open", "open"]

    too_many = cli("continue", rid, "--rounds", "13")
    assert too_many.code == 2 and "--rounds must be 1–7" in too_many.err
    cont = cli("continue", rid[-6:], "--rounds", "1", "--note", NOTE, "--json", *[])
    assert cont.code == 0, cont
    doc = cont.json()
    assert doc["status"] == "done" and doc["rounds"] == {"done": 3, "planned": 3}
    assert [(t["round"], t["side"]) for t in doc["turns"]][-2:] == [(3, "A"), (3, "B")]
    assert doc["turns"][-2]["prose"] == "A offers a denylist."
    assert [i["status"] for i in doc["ledger"]] == ["resolved", "resolved", "open"]
    assert doc["judge"]["markdown"].startswith("## TL;DR\n- the judge's second verdict")
    assert [j["markdown"] for j in doc["superseded_judges"]] == [first["judge"]["markdown"]]
    assert doc["continues"][0]["note"] == NOTE and doc["continues"][0]["after_round"] == 2
    assert doc["stop_reason"] != first["stop_reason"] or doc["stop_detail"] != first[
        "stop_detail"]  # fmt: skip
    shown = cli("show", rid).out
    assert "## Continued" in shown and "Superseded summary 1" in shown
    assert "the judge's scripted verdict" in shown  # the superseded summary is kept
    events = (RunDir(rid).path / "events.jsonl").read_text()
    assert '"event": "continued"' in events

    state = json.loads(RunDir(rid).state_path.read_text())
    state["status"] = "interrupted"
    RunDir(rid).state_path.write_text(json.dumps(state))
    stopped = cli("continue", rid)
    assert stopped.code == 2 and f"collab resume {rid}" in stopped.err


def test_mcp_ask_decide_continue(fake_agent: FakeAgent) -> None:
    _script_steering(fake_agent)
    seen: dict[str, Any] = {}

    async def go() -> None:
        async with mcp_session() as s:
            started = await doc_of(s, "debate_start", topic=tc.TOPIC, agent="fake", rounds=2)
            rid = started["run_id"]

            async def status() -> dict[str, Any]:
                return await doc_of(s, "debate_status", run_id=rid[-6:], wait_s=5)

            await poll(status, lambda d: d["phase"] in ("finished", "stopped"))
            seen["first"] = await doc_of(s, "debate_result", run_id="@last")
            seen["asked"] = await doc_of(s, "debate_ask", run_id=rid, question=QUESTION,
                                         seat="B")  # fmt: skip
            secret = await call(s, "debate_ask", run_id=rid, question="AKIAIOSFODNN7EXAMPLE?")
            seen["secret"] = (secret.is_error, text_of(secret))
            seen["decided"] = await doc_of(s, "debate_decide", run_id=rid, choice="sessions",
                                           why="revocation")  # fmt: skip
            seen["continued"] = await doc_of(s, "debate_continue", run_id=rid, note=NOTE)
            await poll(status, lambda d: d["phase"] in ("finished", "stopped") and
                       d["rounds"]["done"] == 3)  # fmt: skip
            seen["last"] = await doc_of(s, "debate_result", run_id=rid)
            too_many = await call(s, "debate_continue", run_id=rid, rounds=9)
            seen["bad_rounds"] = (too_many.is_error, text_of(too_many))
            neither = await call(s, "debate_decide", run_id=rid)
            seen["neither"] = (neither.is_error, text_of(neither))
            nul = await call(s, "debate_continue", run_id=rid, note="a\x00b")
            seen["nul"] = (nul.is_error, text_of(nul))
            transcript = RunDir(rid).path / "transcript.md"
            transcript.unlink()
            transcript.mkdir()  # the reports cannot be rewritten: the outcome is kept anyway
            seen["warned"] = await doc_of(s, "debate_decide", run_id=rid, outcome="it held")

    anyio.run(go)
    first, asked, last = seen["first"], seen["asked"], seen["last"]
    assert [(f["seat"], f["answer"]) for f in asked["followups"]] == [("B", "B: a store.")]
    assert asked["ledger"] == first["ledger"]
    assert seen["secret"][0] and "secret" in seen["secret"][1]
    (decision,) = seen["decided"]["decisions"]
    assert decision["text"] == "sessions" and decision["by"].startswith("mcp:")
    assert seen["continued"]["schema"] == "collab.status/1" and "next" in seen["continued"]
    # messages name the arguments as MCP spells them, not the command line's flags
    assert seen["bad_rounds"] == (True, "rounds must be 1–7, got 9")
    assert seen["neither"] == (True, "give choice (the decision) or outcome (how it turned out)")
    assert seen["nul"] == (True, "note contains a NUL byte")
    warned = seen["warned"]
    assert warned["decisions"][-1]["text"] == "it held"
    assert len(warned["warnings"]) == 1 and "transcript.md" in warned["warnings"][0]
    assert "warnings" not in seen["decided"]
    validate(warned, SCHEMAS["collab.result/2"])
    assert last["judge"]["markdown"].startswith(SECOND)
    assert [j["markdown"] for j in last["superseded_judges"]] == [first["judge"]["markdown"]]
    assert last["continues"][0]["note"] == NOTE and len(last["decisions"]) == 1


def _favouring(option: str) -> str:
    block = json.loads(tc.contract_block().split("```json\n")[1].split("\n```")[0])
    return "\n\n```json\n" + json.dumps({**block, "favours": option}) + "\n```\n"


def test_a_flip_of_favours_end_to_end(cli: Cli, fake_agent: FakeAgent) -> None:
    """--option/--constraint/--leaning through the CLI with the fake agent: A favours O1,
    then O2 (a flip); the flip shows in the transcript, show, watch and --json, and
    decide validates against the options."""
    fake_agent.script(
        [
            {"match": [tc.ROLE_A], "replies": ["A: Postgres first." + _favouring("O1"),
                                               "A: SQLite after all." + _favouring("O2")]},
            {"match": [tc.ROLE_B], "replies": ["B: SQLite." + _favouring("O2")]},
            {"match": [tc.JUDGE], "replies": ["## TL;DR\n- O2" + JUDGE_REST]},
        ],
        "unmatched prompt",
    )  # fmt: skip
    res = cli("debate", "Which database?", "--option", "Postgres", "--option", "SQLite",
              "--constraint", "no new servers", "--leaning", "I lean to SQLite", *ONE)  # fmt: skip
    assert res.code == 0, res
    doc = res.json()
    rid = doc["run_id"]
    assert doc["flips"] == [{"seat": "A", "round": 2, "from": "O1", "to": "O2"}]
    assert doc["most_favoured"] == "O2" and doc["leaning"] == "I lean to SQLite"

    transcript = Path(doc["paths"]["transcript"]).read_text(encoding="utf-8")
    assert "**⇄ Role A now favours O2 (was O1) in round 2**" in transcript
    shown = cli("show", rid[-6:])
    assert "| Role A | O1 | O1→O2 |" in shown.out
    watched = cli("watch", rid[-6:])
    assert watched.code == 0 and "⇄ Role A now favours O2 (was O1) in round 2" in watched.err
    events = [json.loads(line) for line in (RunDir(rid).path / "events.jsonl").open()]
    assert [e["event"] for e in events].count("favours_flip") == 1

    bad = cli("decide", rid[-6:], "--choice", "O3")
    assert bad.code == 2 and "O1 Postgres; O2 SQLite" in bad.err
    assert cli("decide", rid[-6:], "--choice", "O2").code == 0
    stats = cli("stats", "--json").json()
    assert (stats["decided_with_options"], stats["choice_matched"]) == (1, 1)


def test_decide_warns_when_a_report_cannot_be_rewritten(cli: Cli, fake_agent: FakeAgent) -> None:
    tc.script_debate(fake_agent)
    rid = cli("debate", tc.TOPIC, *ONE).json()["run_id"]
    judge_md = RunDir(rid).path / "judge.md"
    judge_md.unlink()
    judge_md.mkdir()  # the report cannot be rewritten: the decision is saved all the same
    decided = cli("decide", rid, "--choice", "tokens", "--json")
    assert decided.code == 0, decided
    assert [d["text"] for d in decided.json()["decisions"]] == ["tokens"]
    warned = [ln for ln in decided.err.splitlines() if ln.strip()]
    assert len(warned) == 1 and warned[0].startswith("warning: the decision is saved, but")
    assert "judge.md" in warned[0] and "Traceback" not in decided.err


def test_cancel_and_status_check_wait_alike(cli: Cli, fake_agent: FakeAgent) -> None:
    tc.script_debate(fake_agent)
    rid = cli("debate", tc.TOPIC, *ONE).json()["run_id"]
    for command in ("cancel", "status"):
        for wait in ("-1", "3601", "inf", "nan"):
            bad = cli(command, rid, "--wait", wait, "--json")
            assert bad.code == 2, (command, wait, bad)
            assert bad.json()["error"]["message"].startswith("--wait must be 0–3600 seconds")
        assert cli(command, rid, "--wait", "0", "--json").code == 0
