"""``--depth quick`` with the REAL ``claude`` CLI, offline against the fake Anthropic API:
exactly N + 1 model calls (``POST /v1/messages``: two debaters and the Judge) reach the
API, each answered with a well-formed reply; the CLI's ``HEAD /`` preconnects are not
model calls and are not counted."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import contract_block
from tests.fakes import FakeAnthropic, Reply

pytestmark = [pytest.mark.real_agent, pytest.mark.tmux]

ROLE_A = "(Role A) in a structured debate"
ROLE_B = "(Role B) in a structured debate"
JUDGE = "neutral judge"
TOPIC = "JWT vs sessions"
A1 = "Stolen JWTs stay valid until they expire." + contract_block(
    new=[("Token revocation", "a leaked JWT lives until exp; sessions die on logout")]
)
B1 = "A session lookup costs a network hop per request." + contract_block(
    new=[("Hot-path latency", "a Redis session read adds ~1 ms p99 per request")]
)
VERDICT = (
    "## TL;DR\n- A first opinion: revocation against latency.\n\n## Crux\nRevocation.\n\n"
    "## Open disagreements\n- I1, I2\n\n## Minority report\nLatency matters."
)


@pytest.mark.parametrize("args", [["--depth", "quick"], ["--rounds", "1"]])
def test_quick_is_exactly_n_plus_one_model_calls(
    api: FakeAnthropic, hermetic_env: Path, args: list[str]
) -> None:
    api.add_rule(JUDGE, Reply(text=VERDICT))
    api.add_rule([ROLE_A, TOPIC], Reply(text=A1))
    api.add_rule([ROLE_B, TOPIC], Reply(text=B1))
    api.default(Reply(status=400, error_message="unexpected prompt"))
    res = subprocess.run(
        [sys.executable, "-m", "collab", "debate", TOPIC, "--agent", "claude",
         "--runner", "subprocess", "--timeout", "90", "--judge-timeout", "90", "--json", *args],
        capture_output=True, text=True, env=dict(os.environ), timeout=600,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    assert doc["status"] == "done", doc["error"]

    calls = [r for r in api.requests if r.method == "POST" and r.path.startswith("/v1/messages")]
    assert len(calls) == len(api.requests) == 2 + 1
    assert api.rule_counts == [1, 1, 1] and api.default_count == 0
    assert all(o.method == "HEAD" for o in api.other_requests)  # preconnects, not counted

    # Well-formed replies: both contracts parsed, the Judge answered (no fallback).
    assert [t["status"] for t in doc["turns"]] == ["ok", "ok"]
    assert [i["title"] for i in doc["ledger"]] == ["Token revocation", "Hot-path latency"]
    assert doc["judge"]["fallback"] is False and doc["judge"]["markdown"].startswith(VERDICT)
    assert (doc["depth"], doc["verdict"]) == ("quick", "inconclusive")
    assert doc["stop_detail"] == "quick: no stances were taken"
    assert doc["plan"]["min_calls"] == 3 and doc["plan"]["max_calls"] == 2 * 3 + 2
