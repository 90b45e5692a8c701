"""A three-seat debate with the REAL ``claude`` CLI against the fake Anthropic API: the
three seats of the blind round run at once, each with its own model name."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import contract_block
from tests.fakes import FakeAnthropic, Reply
from tests.helpers import JUDGE_REST

pytestmark = [pytest.mark.real_agent, pytest.mark.tmux]

JUDGE = "neutral judge"
TOPIC = "Monolith or services for the billing rewrite?"
ROLES = ("Skeptic: doubts every claim", "Builder: wants it shipped", "Operator: runs it")
MODELS = ("claude-panel-a", "claude-panel-b", "claude-panel-c")
DELAY = 3.0  # each opening takes this long at the API: three at once overlap


def test_three_seats_at_once_each_with_its_own_model(
    api: FakeAnthropic, hermetic_env: Path
) -> None:
    for seat in "ABC":
        opening = f"{seat} opens." + contract_block(new=[(f"Point of {seat}", f"ev-{seat}")])
        later = f"{seat} goes on." + contract_block(stances=[("I1", "contest", f"{seat} holds")])
        api.add_rule(
            [f"(Role {seat}) in a structured debate", "round 1 of"],
            Reply(text=opening, delay=DELAY),
        )
        api.add_rule([f"(Role {seat}) in a structured debate", "round 2 of"], Reply(text=later))
    api.add_rule(JUDGE, Reply(text="## TL;DR\n- Position 1 and Position 2 differ." + JUDGE_REST))
    api.default(Reply(status=400, error_message="unexpected prompt"))

    res = subprocess.run(
        [sys.executable, "-m", "collab", "debate", TOPIC,
         *(x for r in ROLES for x in ("--role", r)), "--models", ",".join(MODELS),
         "--judge-model", "claude-panel-judge", "--rounds", "2",
         "--runner", "tmux", "--timeout", "90", "--judge-timeout", "90", "--json"],
        capture_output=True, text=True, env=dict(os.environ), timeout=600,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    assert doc["schema"] == "collab.result/2" and doc["status"] == "done"
    assert [(s["label"], s["model"], s["family"]) for s in doc["seats"]] == [
        ("A", MODELS[0], "anthropic"), ("B", MODELS[1], "anthropic"),
        ("C", MODELS[2], "anthropic"),
    ]  # fmt: skip
    assert doc["family_note"] == "one model family: agreement may reflect one model's view"
    openings = [r for r in api.requests if "round 1 of" in r.prompt and JUDGE not in r.prompt]
    # Each seat's call went out under its own model name: three distinct ones.
    assert sorted({r.model for r in openings}) == sorted(MODELS), [r.model for r in openings]
    # At once: every opening reached the API before the first one (DELAY s each) was answered.
    arrivals = sorted(r.time for r in openings)
    assert len(arrivals) == 3 and arrivals[-1] - arrivals[0] < DELAY, arrivals
    state = json.loads(Path(doc["paths"]["state"]).read_text(encoding="utf-8"))
    assert [o["order"] for o in state["round_orders"]] == [["A", "B", "C"], ["B", "C", "A"]]
