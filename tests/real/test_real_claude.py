"""The default path end to end: the REAL ``claude`` CLI in a tmux pane, offline against a
fake Anthropic API started by the test (REAL_AGENTS.md). Skipped, with the reason shown,
only when the binary is not installed.

F10: the API answers 400, 401, 500 or 529 for Role A, with the CLI's retry settings as a
user has them. collab bounds the CLI's own retries (CLAUDE_CODE_MAX_RETRIES in the
per-turn --settings, which outranks the user's), so the CLI's error message is the turn's
recorded error well within the turn's --timeout, and the debate goes on to the judge. A
401 is a lost login: the run stops after that turn, saved, with exit 3.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from libtmux import Server

from collab.agents import CLAUDE_MAX_RETRIES
from tests.conftest import contract_block
from tests.fakes import FakeAnthropic, Reply
from tests.helpers import JUDGE_REST, CmdlinePoller

pytestmark = [pytest.mark.real_agent, pytest.mark.tmux]

ROLE_A = "(Role A) in a structured debate"
ROLE_B = "(Role B) in a structured debate"
JUDGE = "neutral judge"
TOPIC = "JWT vs sessions"
PRESET = "security-vs-performance"
NAMES = ("Security Engineer", "Performance Engineer")

A1 = "Stolen JWTs stay valid until they expire." + contract_block(
    new=[("Token revocation", "a leaked JWT lives until exp; sessions die on logout")]
)
B1 = "A session lookup costs a network hop per request." + contract_block(
    stances=[("I1", "contest", "short-lived JWTs plus a denylist cover revocation")],
    new=[("Hot-path latency", "a Redis session read adds ~1 ms p99 per request")],
)
# Round 2 ends with A (the last speaker rotates): B has agreed on I1 by then.
A2 = "A denylist is a session store by another name." + contract_block(
    stances=[("I2", "agree", "1 ms is acceptable")]
)
B2 = "Then keep sessions, cache them at the edge." + contract_block(
    stances=[("I1", "agree", "the denylist argument holds")]
)
VERDICT = (
    "## TL;DR\n- Sessions, cached at the edge: revocation without the latency cost." + JUDGE_REST
)

# (round, side) -> the scripted reply's usage
TOKENS = {
    (1, "A"): (1200, 150),
    (1, "B"): (1300, 160),
    (2, "A"): (1400, 170),
    (2, "B"): (1500, 180),
}
JUDGE_TOKENS = (3000, 400)


def debate(*extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "collab", "debate", TOPIC, "--preset", PRESET, "--rounds", "2",
         "--runner", "tmux", "--timeout", "90", "--judge-timeout", "90", "--json", *extra],
        capture_output=True, text=True, env=dict(os.environ), timeout=600,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip


def load_state(doc: dict[str, Any]) -> dict[str, Any]:
    state: dict[str, Any] = json.loads(Path(doc["paths"]["state"]).read_text(encoding="utf-8"))
    return state


def test_default_path_with_real_claude(
    api: FakeAnthropic, hermetic_env: Path, server: Server
) -> None:
    def reply(text: str, tokens: tuple[int, int]) -> Reply:
        return Reply(text=text, input_tokens=tokens[0], output_tokens=tokens[1])

    api.add_rule(JUDGE, reply(VERDICT, JUDGE_TOKENS))
    api.add_rule([ROLE_A, TOPIC], [reply(A1, TOKENS[1, "A"]), reply(A2, TOKENS[2, "A"])])
    api.add_rule([ROLE_B, TOPIC], [reply(B1, TOKENS[1, "B"]), reply(B2, TOKENS[2, "B"])])
    api.default(Reply(status=400, error_message="unexpected prompt"))

    res = debate("--opening", "sequential")  # B answers A's round-1 reply
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    assert doc["status"] == "done", doc["error"]
    assert doc["roles"]["A"]["name"] == NAMES[0] and doc["roles"]["B"]["name"] == NAMES[1]
    assert {doc["roles"][s]["agent"] for s in ("A", "B", "judge")} == {"claude"}

    # What the fake API received: every prompt, with the topic and both roles in it.
    requests = api.requests
    assert api.rule_counts == [1, 2, 2] and api.default_count == 0
    assert len(requests) == 5
    for req in requests:
        assert req.stream and req.path.startswith("/v1/messages")
        assert TOPIC in req.prompt
    debaters = [r for r in requests if JUDGE not in r.prompt]
    (judge_req,) = [r for r in requests if JUDGE in r.prompt]
    assert len(debaters) == 4
    for req in debaters:
        assert all(name in req.prompt for name in NAMES)
    # The Judge reads positions, never the roles.
    for name in (*NAMES, "Role A", "Role B"):
        assert name not in judge_req.prompt, name
    assert "Position 1" in judge_req.prompt and "Position 2" in judge_req.prompt
    assert sum(ROLE_A in r.prompt for r in requests) == 2
    assert sum(ROLE_B in r.prompt for r in requests) == 2
    # Role B of round 1 was shown Role A's reply, without its json block.
    b1_prompt = next(r.prompt for r in requests if ROLE_B in r.prompt)
    assert "Stolen JWTs stay valid until they expire." in b1_prompt
    assert "a leaked JWT lives until exp" in b1_prompt  # via the ledger table

    # Transcript, ledger and judge come from the scripted replies.
    state = load_state(doc)
    prose = [(t["round_no"], t["side"], t["prose"]) for t in state["turns"]]
    assert prose == [
        (1, "A", "Stolen JWTs stay valid until they expire."),
        (1, "B", "A session lookup costs a network hop per request."),
        # round 2 ends with A: the last speaker rotates
        (2, "B", "Then keep sessions, cache them at the edge."),
        (2, "A", "A denylist is a session store by another name."),
    ]
    ledger = {i["id"]: (i["title"], i["status"], i["raised_by"]) for i in state["ledger"]}
    assert ledger == {
        "I1": ("Token revocation", "resolved", "A"),
        "I2": ("Hot-path latency", "resolved", "B"),
    }
    assert state["stop_reason"] == "converged-early"
    assert state["judge"]["text"] == VERDICT and state["judge"]["fallback"] is False
    run_dir = Path(doc["paths"]["run_dir"])
    transcript = (run_dir / "transcript.md").read_text(encoding="utf-8")
    for _, _, text in prose:
        assert text in transcript
    assert "Token revocation" in transcript
    assert (run_dir / "judge.md").read_text(encoding="utf-8").startswith(VERDICT)

    # Tokens per turn are the fake's usage; every cost is recorded and the total adds up.
    costs: list[float] = []
    for t in state["turns"]:
        meta = t["meta"]
        assert meta["agent"] == "claude" and meta["exit_code"] == 0 and meta["attempts"] == 1
        assert meta["error"] is None and meta["session_id"]
        tin, tout = TOKENS[t["round_no"], t["side"]]
        assert (meta["usage"]["input_tokens"], meta["usage"]["output_tokens"]) == (tin, tout)
        assert isinstance(meta["cost_usd"], float) and meta["cost_usd"] > 0
        costs.append(meta["cost_usd"])
    judge_meta = state["judge"]["meta"]
    assert (judge_meta["usage"]["input_tokens"], judge_meta["usage"]["output_tokens"]) == (
        JUDGE_TOKENS
    )
    assert judge_meta["cost_usd"] > 0
    costs.append(judge_meta["cost_usd"])
    assert state["cost_usd"] == pytest.approx(round(sum(costs), 6), abs=1e-6)
    assert doc["cost_usd"] == state["cost_usd"]
    assert state["tokens"]["input_tokens"] == sum(v[0] for v in TOKENS.values()) + JUDGE_TOKENS[0]
    assert state["tokens"]["output_tokens"] == (
        sum(v[1] for v in TOKENS.values()) + JUDGE_TOKENS[1]
    )
    a_costs = [t["meta"]["cost_usd"] for t in state["turns"] if t["side"] == "A"]
    assert len(a_costs) == 2
    assert state["cost_usd_by_side"]["A"] == pytest.approx(sum(a_costs), abs=1e-6)

    names = server.cmd("list-sessions", "-F", "#{session_name}").stdout if server.is_alive() else []
    assert not [n for n in names if n.startswith("collab-")]


class ApiError(NamedTuple):
    test_id: str
    status: int
    message: str  # what the CLI itself says, as recorded for the turn
    requests: int  # per attempt of ours: the CLI's first request and its own retries


API_ERRORS = [
    ApiError("400-bad-request", 400, "API Error: 400 fake-400-marker", 1),
    ApiError("500-server-error", 500, "API Error: 500 fake-500-marker", 1 + CLAUDE_MAX_RETRIES),
    ApiError("529-overloaded", 529, "API Error: 529 fake-529-marker", 1 + CLAUDE_MAX_RETRIES),
]


@pytest.mark.parametrize(list(ApiError._fields), API_ERRORS, ids=[c.test_id for c in API_ERRORS])
def test_api_error_for_role_a_is_recorded_and_debate_finishes(
    api: FakeAnthropic, test_id: str, status: int, message: str, requests: int
) -> None:
    assert "CLAUDE_CODE_MAX_RETRIES" not in os.environ  # the CLI's defaults: 10 retries
    api.add_rule(JUDGE, Reply(text=VERDICT))
    # A answers round 1 (a round 1 with one seat answering stops as too-few-seats), then
    # its round-2 turn meets the API's error.
    role_a = api.add_rule(
        ROLE_A,
        [Reply(text="A opens." + contract_block()),
         Reply(status=status, error_message=f"fake-{status}-marker")],
    )  # fmt: skip
    role_b = api.add_rule(
        ROLE_B, Reply(text="B holds the floor." + contract_block(new=[("B point", "e")]))
    )

    res = debate("--timeout", "60")
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    assert doc["status"] == "done"
    state = load_state(doc)
    a_turns = [t for t in state["turns"] if t["side"] == "A"]
    b_turns = [t for t in state["turns"] if t["side"] == "B"]
    assert [(t["round_no"], t["status"]) for t in a_turns] == [(1, "ok"), (2, "error")]
    assert [t["status"] for t in b_turns] == ["ok", "ok"]
    for t in a_turns[1:]:
        meta = t["meta"]
        # The API's error, in the CLI's words: not a (timeout) after minutes of retries.
        assert t["status"] == "error"
        assert message in meta["error"], meta["error"]
        assert meta["exit_code"] == 1
        assert meta["attempts"] == 2  # our one retry
        assert t["prose"] == "(error)"
        assert any(message in w for w in t["warnings"])
    # The CLI retried at most as often as collab allowed it.
    assert role_a.count == 1 + 2 * requests
    assert role_b.count == 2
    assert state["judge"]["text"].startswith(VERDICT) and state["judge"]["fallback"] is False
    assert {i["title"] for i in state["ledger"]} == {"B point"}


def test_401_stops_the_run_after_that_turn_with_exit_3(api: FakeAnthropic) -> None:
    """A lost login mends no retry and no later turn: stop, save, say how to go on. (A
    login lost on the run's very first call leaves nothing: test_login_first.py.)"""
    api.add_rule(JUDGE, Reply(text=VERDICT))
    role_a = api.add_rule(
        ROLE_A,
        [Reply(text="A speaks." + contract_block(new=[("A1", "e")])),
         Reply(status=401, error_message="fake-401-marker")],
    )  # fmt: skip
    role_b = api.add_rule(ROLE_B, Reply(text="B speaks." + contract_block(new=[("B1", "e")])))

    res = debate("--opening", "sequential")
    assert res.returncode == 3, res.stderr
    doc = json.loads(res.stdout)
    assert doc["schema"] == "collab.error/1" and doc["error"]["kind"] == "prerequisite"
    message = doc["error"]["message"]
    assert "claude login failed" in message and "401 fake-401-marker" in message
    assert "collab resume " in message
    assert role_a.count == 2 + CLAUDE_MAX_RETRIES  # the CLI's bounded retries, none of ours
    # Round 2 ends with A (the last speaker rotates): B's round-2 turn came before A's
    # 401, and no turn after it was burnt (no Judge either).
    assert role_b.count == 2
    (run_dir,) = (Path(os.environ["COLLAB_HOME"]) / "runs").iterdir()
    state = json.loads((run_dir / "state.json").read_text(encoding="utf-8"))
    assert state["status"] == "failed"
    assert [(t["round_no"], t["side"]) for t in state["turns"]] == [(1, "A"), (1, "B"), (2, "B")]
    # the failed turn (2, A) re-runs on resume


def test_blind_debate_with_real_claude_and_an_anonymised_judge(
    api: FakeAnthropic, hermetic_env: Path
) -> None:
    """The default opening end to end: round 1 blind, the Judge reads positions only, and
    what collab saves names the roles again."""
    a1 = "A opens alone." + contract_block(new=[("Token revocation", "leaked JWTs live")])
    b1 = "B opens alone." + contract_block(new=[("Hot-path latency", "1 ms per lookup")])
    later = "Still apart." + contract_block(
        stances=[("I1", "contest", "still"), ("I2", "contest", "still")]
    )
    # The Judge answers in the labels it was given; collab maps them back.
    verdict = (
        "## TL;DR\n- Position 1 and Position 2 stay apart on I1 and I2.\n\n"
        "## Crux\nIs revocation worth a lookup per request?\n\n"
        "## Open disagreements\n- I1, I2.\n\n## Minority report\n- Position 2's best case."
    )
    api.add_rule(JUDGE, Reply(text=verdict))
    api.add_rule([ROLE_A, TOPIC], [Reply(text=a1), Reply(text=later)])
    api.add_rule([ROLE_B, TOPIC], [Reply(text=b1), Reply(text=later)])
    api.default(Reply(status=400, error_message="unexpected prompt"))

    res = debate()  # --opening blind is the default
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    assert doc["status"] == "done" and doc["verdict"] == "split"
    debaters = [r for r in api.requests if JUDGE not in r.prompt]
    (judge_req,) = [r for r in api.requests if JUDGE in r.prompt]
    # Neither opening saw the other.
    (a_open,) = [r for r in debaters if ROLE_A in r.prompt and "round 1 of" in r.prompt]
    (b_open,) = [r for r in debaters if ROLE_B in r.prompt and "round 1 of" in r.prompt]
    assert "B opens alone." not in a_open.prompt and "A opens alone." not in b_open.prompt
    # The Judge's prompt holds both openings but no role names.
    assert "A opens alone." in judge_req.prompt and "B opens alone." in judge_req.prompt
    for name in (*NAMES, "Role A", "Role B"):
        assert name not in judge_req.prompt, name
    state = load_state(doc)
    first = state["judge_first"]
    assert first in ("A", "B")
    one, two = (NAMES[0], NAMES[1]) if first == "A" else (NAMES[1], NAMES[0])
    saved = state["judge"]["text"]
    assert saved.startswith(f"## TL;DR\n- {one} and {two} stay apart on I1 and I2.")
    assert "Position 1" not in saved and state["judge"]["raw"].startswith(verdict[:40])
    assert doc["judge"]["markdown"] == saved


@pytest.mark.parametrize("runner", ["tmux", "subprocess"])
def test_no_env_value_on_a_command_line_with_real_claude(
    api: FakeAnthropic, monkeypatch: pytest.MonkeyPatch, runner: str
) -> None:
    """ps and /proc/PID/cmdline are readable by every local user: a poller reading every
    command line all through a real-claude debate never finds the API key or a probe."""
    probe = f"probe-{uuid.uuid4().hex}"
    key = f"sk-fake-{uuid.uuid4().hex}"
    monkeypatch.setenv("COLLAB_PROBE_KEY", probe)
    monkeypatch.setenv("ANTHROPIC_API_KEY", key)
    api.add_rule(JUDGE, Reply(text=VERDICT))
    api.add_rule(ROLE_A, Reply(text=A1))
    api.add_rule(ROLE_B, Reply(text=B1))
    with CmdlinePoller(probe, "claude") as poll, CmdlinePoller(key, "claude") as key_poll:
        res = subprocess.run(
            [sys.executable, "-m", "collab", "debate", TOPIC, "--preset", PRESET, "--rounds", "2",
             "--runner", runner, "--timeout", "90", "--judge-timeout", "90", "--json"],
            capture_output=True, text=True, env=dict(os.environ), timeout=600,
            stdin=subprocess.DEVNULL,
        )  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert poll.hits == [] and key_poll.hits == []
    assert len(poll.agents_with_value) >= 2, (poll.scans, poll.agents_with_value)
