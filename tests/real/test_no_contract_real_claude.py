"""A debate in which no contract block ever parses, with the REAL ``claude`` CLI against
the fake Anthropic API: it stops after round 1 (``no-contract``, inconclusive, exit 0 with
a warning), and the API receives exactly the calls that takes — each seat's turn and its
one re-ask, then the Judge — where every round used to run (3 rounds × 2 calls × seats +
the Judge). Skipped only without the binary."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.fakes import FakeAnthropic, Reply
from tests.helpers import JUDGE_REST

pytestmark = [pytest.mark.real_agent]

JUDGE = "neutral judge"
REASK = "did not end with a valid json block"
PROSE = "I have opinions, but I never write the json block you asked for."
ROLES = ("Skeptic: doubts every claim", "Builder: wants it shipped", "Operator: runs it")


def debate(*extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "collab", "debate", "Tabs or spaces?", "--rounds", "3",
         "--runner", "subprocess", "--timeout", "90", "--judge-timeout", "90", *extra],
        capture_output=True, text=True, env=dict(os.environ), timeout=600,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip


@pytest.mark.parametrize("seats", [2, 3])
def test_no_contract_stops_after_round_one_counting_the_api_calls(
    api: FakeAnthropic, seats: int
) -> None:
    api.add_rule(JUDGE, Reply(text="## TL;DR\n- Nobody followed the contract." + JUDGE_REST))
    api.default(Reply(text=PROSE))
    roles = [arg for role in ROLES[:seats] for arg in ("--role", role)] if seats > 2 else []
    res = debate("--json", *roles)
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    assert (doc["status"], doc["stop_reason"], doc["verdict"]) == (
        "done", "no-contract", "inconclusive"
    )  # fmt: skip
    assert "not following the contract" in doc["stop_detail"]
    calls = [r.prompt for r in api.requests]
    # one turn and one re-ask per seat, then the Judge: before, 3 × 2 × seats + 1
    assert len(calls) == 2 * seats + 1, [c[:80] for c in calls]
    assert sum(REASK in c for c in calls) == seats
    assert sum(JUDGE in c for c in calls) == 1
    assert doc["rounds"]["done"] == 1


def test_no_contract_is_a_warning_and_exit_0(api: FakeAnthropic) -> None:
    api.add_rule(JUDGE, Reply(text="## TL;DR\n- Nobody followed the contract." + JUDGE_REST))
    api.default(Reply(text=PROSE))
    res = debate()
    assert res.returncode == 0, res.stderr
    assert "not following the contract" in res.stderr + res.stdout
    assert "no-contract" in res.stderr + res.stdout
    assert len(api.requests) == 5
