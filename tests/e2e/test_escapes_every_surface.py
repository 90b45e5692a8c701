"""Terminal escapes a model writes (an OSC 52 clipboard write, a bidi override, CSI screen
control) reach no surface raw: the terminal, ``collab status`` and ``show``, transcript.md,
judge.md, the HTML page, the MCP result text and progress, ``--json`` prose and events.jsonl.
state.json and the Judge's ``raw`` keep the text as received (resume re-parses it)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio

from tests.conftest import Cli, FakeAgent, contract_block
from tests.e2e.mcp_client import mcp_session, text_of
from tests.helpers import Outcome

ROLE_A = "(Role A) in a structured debate"
ROLE_B = "(Role B) in a structured debate"
JUDGE = "neutral judge"
EVIL = "\x1b]52;c;ZXZpbA==\x07 bidi\u202eevil\u202c \x1b[2J\x1b[H csi \x9b31m"
BAD = ("\x1b", "\x9b", "\u202e", "\x07")


def script(fake: FakeAgent) -> None:
    fake.script(
        [
            {"match": [JUDGE], "replies": [f"## TL;DR\n- verdict {EVIL} JUDGE-TAIL"]},
            {"match": [ROLE_A], "replies": [
                f"A opens {EVIL} A-TAIL" + contract_block(new=[(f"Point {EVIL}", f"ev {EVIL}")])]},
            {"match": [ROLE_B], "replies": [
                f"B answers {EVIL} B-TAIL" + contract_block(stances=[("I1", "contest", EVIL)])]},
        ],
        "unmatched",
    )  # fmt: skip


def strings(doc: Any) -> list[str]:
    if isinstance(doc, str):
        return [doc]
    if isinstance(doc, dict):
        return [s for v in doc.values() for s in strings(v)]
    if isinstance(doc, list):
        return [s for v in doc for s in strings(v)]
    return []


def clean(text: str, where: str) -> None:
    for bad in BAD:
        assert bad not in text, (where, repr(bad), text[max(0, text.find(bad) - 60) :][:120])


def collab(cli: Cli, *args: str) -> Outcome:
    return cli.process(*args)


def test_no_surface_gets_an_escape_raw(cli: Cli, fake_agent: FakeAgent, hermetic_env: Path) -> None:
    script(fake_agent)
    shown = collab(cli, "debate", "T", "--agent", "fake", "--rounds", "2", "--runner", "subprocess",
                   "--opening", "sequential")  # fmt: skip
    assert shown.code == 0, shown.err
    clean(shown.out + shown.err, "terminal")
    as_json = collab(cli, "debate", "T", "--agent", "fake", "--rounds", "2", "--runner",
                     "subprocess", "--opening", "sequential", "--json")  # fmt: skip
    doc = as_json.json()
    for s in strings(doc):
        clean(s, "--json")
    run_dir = Path(doc["paths"]["run_dir"])
    state = json.loads((run_dir / "state.json").read_text(encoding="utf-8"))
    assert "\x1b]52;" in state["turns"][0]["reply"]  # kept as received
    assert "\x1b]52;" in (state["judge"]["raw"] or state["judge"]["text"])
    for name in ("transcript.md", "judge.md", "report.html", "events.jsonl"):
        path = run_dir / name
        if path.exists():
            clean(path.read_text(encoding="utf-8"), name)
    for line in (run_dir / "events.jsonl").read_text(encoding="utf-8").splitlines():
        for s in strings(json.loads(line)):
            clean(s, "events.jsonl")
    rid = doc["run_id"]
    for args in (("status", rid), ("status", rid, "--json"), ("show", rid),
                 ("show", rid, "--json"), ("result", rid, "--json"), ("list",)):  # fmt: skip
        res = collab(cli, *args)
        assert res.code == 0, (args, res.err)
        clean(res.out + res.err, " ".join(args[:1]))
        if "--json" in args:
            for s in strings(res.json()):
                clean(s, " ".join(args))

    notes: list[str] = []

    async def go() -> Any:
        async with mcp_session() as s:

            async def progress(p: float, total: float | None, message: str | None) -> None:
                notes.append(message or "")

            args = {"topic": "T", "agent": "fake", "rounds": 2, "opening": "sequential"}
            return await s.call_tool("debate", args, progress_callback=progress)

    res = anyio.run(go)
    assert not res.is_error, text_of(res)
    clean(text_of(res), "MCP text")
    for s in strings(res.structured_content):
        clean(s, "MCP structured")
    assert notes
    for note in notes:
        clean(note, "MCP progress")
