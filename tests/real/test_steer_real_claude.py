"""``collab ask`` and ``collab continue`` with the REAL ``claude`` CLI against the fake
Anthropic API: the question and the note are in the requests the API receives, the
continued run's ledger changes, and the superseded summary is kept."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

from tests.conftest import contract_block
from tests.fakes import FakeAnthropic, Reply
from tests.helpers import JUDGE_REST
from tests.real.test_real_claude import A1, A2, B1, B2, JUDGE, PRESET, ROLE_A, ROLE_B, TOPIC

QUESTION = "What happens to a phone that stays offline for a week?"
NOTE = "Revocation must take effect within 60 seconds."
FOLLOWUP = "has a follow-up question for you"
A3 = "A 60-second denylist is small." + contract_block(new=[("Denylist size", "60 s of ids")])
B3 = "Agreed on both." + contract_block(
    stances=[("I1", "agree", "the note settles it"), ("I3", "agree", "small enough")]
)


def collab(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "collab", *args],
        capture_output=True, text=True, env=dict(os.environ), timeout=600,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip


def doc_of(res: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert res.returncode == 0, res.stderr
    out: dict[str, Any] = json.loads(res.stdout)
    return out


def test_ask_and_continue_with_real_claude(api: FakeAnthropic) -> None:
    api.add_rule([FOLLOWUP, ROLE_A, QUESTION], Reply(text="It refreshes when it comes back."))
    api.add_rule([FOLLOWUP, ROLE_B, QUESTION], Reply(text="Its session simply expires."))
    api.add_rule(
        [JUDGE, NOTE], Reply(text="## TL;DR\n- Sessions, now with a 60 s denylist." + JUDGE_REST)
    )
    api.add_rule([ROLE_A, NOTE], Reply(text=A3))
    api.add_rule([ROLE_B, NOTE], Reply(text=B3))
    api.add_rule(JUDGE, Reply(text="## TL;DR\n- Sessions, cached at the edge." + JUDGE_REST))
    api.add_rule([ROLE_A, TOPIC], [Reply(text=A1), Reply(text=A2)])
    api.add_rule([ROLE_B, TOPIC], [Reply(text=B1), Reply(text=B2)])
    api.default(Reply(status=400, error_message="unexpected prompt"))

    first = doc_of(collab("debate", TOPIC, "--preset", PRESET, "--rounds", "2", "--opening",
                          "sequential", "--runner", "subprocess", "--json"))  # fmt: skip
    rid = first["run_id"]
    asked = doc_of(collab("ask", rid[-6:], QUESTION, "--json"))
    assert [(f["seat"], f["answer"]) for f in asked["followups"]] == [
        ("A", "It refreshes when it comes back."),
        ("B", "Its session simply expires."),
    ]
    assert asked["ledger"] == first["ledger"]
    followups = [r for r in api.requests if FOLLOWUP in r.prompt]
    assert len(followups) == 2 and all(QUESTION in r.prompt for r in followups)

    cont = doc_of(collab("continue", "@last", "--note", NOTE, "--json"))
    noted = [r for r in api.requests if NOTE in r.prompt]
    assert len(noted) == 3  # A, B and the new Judge
    assert cont["rounds"]["done"] == 3 and cont["ledger"] != first["ledger"]
    assert {i["id"]: i["status"] for i in cont["ledger"]}["I3"] == "resolved"
    assert cont["judge"]["markdown"].startswith("## TL;DR\n- Sessions, now with a 60 s")
    assert [j["markdown"] for j in cont["superseded_judges"]] == [first["judge"]["markdown"]]
    assert len(cont["followups"]) == 2  # kept through the continue
