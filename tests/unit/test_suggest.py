"""Every "unknown NAME" error offers the closest valid name on one line (exit 2), and the
same under --json as one document: presets, agents, run ids, schemas, commands, option
values, formats, keys of a batch entry or an MCP call."""

from __future__ import annotations

import functools
import json
from typing import Any, NamedTuple

import pytest

from collab.cli import main
from collab.errors import UsageError
from collab.options import DebateRequest
from collab.request import build_config, request_from
from collab.state import RunState
from collab.store import RunDir, new_run_id
from collab.suggest import closest, did_you_mean


@functools.cache
def _claude_config() -> Any:
    """The config of tests/unit/test_startup.a_run's run: built (presets read, topic
    scanned, ~5 ms) once a session, not once a test; it is frozen."""
    return build_config(
        DebateRequest(topic="t", agent_a="claude", agent_b="claude", judge_agent="claude"),
        {"claude"},
    )


def a_run() -> str:
    """A saved run, as the start-up tests make it (test_startup.a_run), in this test's home."""
    run_dir = RunDir(new_run_id())
    run_dir.create()
    run_dir.save(RunState(run_id=run_dir.run_id, config=_claude_config()).to_dict())
    return run_dir.run_id


class Typo(NamedTuple):
    test_id: str
    argv: list[str]
    meant: str
    json: bool = True  # the command takes --json


TYPOS = [
    Typo(
        "preset", ["debate", "--preset", "security-vs-perfomance", "t"], "security-vs-performance"
    ),
    Typo("preset-show", ["presets", "show", "pragmatist"], "pragmatist-vs-purist"),
    Typo("agent", ["debate", "--agent", "claud", "t"], "claude"),
    Typo("agent-b", ["debate", "--agent-b", "gemeni", "t"], "gemini"),
    Typo("judge-agent", ["debate", "--judge-agent", "codx", "t"], "codex"),
    Typo("schema", ["schema", "collab.reslt/1"], "collab.result/1", json=False),
    Typo("command", ["shw"], "show"),
    Typo("depth", ["debate", "--depth", "quik", "t"], "quick"),
    Typo("runner", ["debate", "--runner", "tmx", "t"], "tmux"),
    Typo("format", ["show", "RUN", "--format", "mdd"], "md"),
    Typo("run-id", ["show", "RUN~"], "RUN"),
    Typo("run-suffix", ["status", "SUFFIX~"], "SUFFIX"),
    Typo("fail-on", ["gate", "RUN", "--fail-on", "blockng"], "blocking"),
    Typo("seat", ["ask", "RUN", "why?", "--seat", "jugde"], "judge"),
]


def typo_of(word: str) -> str:
    """``word`` with its last two differing neighbours swapped: the commonest slip (a
    random run id may end in two equal characters, whose swap would be no typo)."""
    i = max(n for n in range(len(word) - 1) if word[n] != word[n + 1])
    typo = word[:i] + word[i + 1] + word[i] + word[i + 2 :]
    assert typo != word
    return typo


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as end:
        main(argv)
    got = capsys.readouterr()
    return int(str(end.value.code)), got.out, got.err


@pytest.mark.parametrize("case", TYPOS, ids=[t.test_id for t in TYPOS])
def test_a_typo_gets_the_closest_name_on_one_line_and_exit_2(
    case: Typo, capsys: pytest.CaptureFixture[str]
) -> None:
    run_id = a_run()
    suffix = run_id[-6:]
    subst = {"RUN": run_id, "RUN~": typo_of(run_id), "SUFFIX~": typo_of(suffix)}
    argv = [subst.get(a, a) for a in case.argv]
    meant = {"RUN": run_id, "SUFFIX": suffix}.get(case.meant, case.meant)
    code, out, err = run(argv, capsys)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert f"{meant!r}?" in lines[0] and "id you mean" in lines[0], lines[0]
    assert "choose one of" not in lines[0]
    if not case.json:
        return
    code, out, err = run([*argv, "--json"], capsys)
    assert code == 2
    doc = json.loads(out)  # exactly one document
    assert doc["exit_code"] == 2 and f"{meant!r}?" in doc["error"]["message"]


def test_a_name_like_nothing_still_says_what_there_is() -> None:
    assert did_you_mean("zzz", ["claude", "codex"], "choose one of: claude, codex") == (
        "choose one of: claude, codex"
    )
    assert closest("SECURITY", ["security-vs-delivery", "security-vs-performance"]) == [
        "security-vs-delivery",
        "security-vs-performance",
    ]
    # A near tie is offered beside the closest; a distant runner-up is not.
    assert closest("security-vs-perfomance", ["security-vs-performance",
                                              "security-vs-delivery"]) == [
        "security-vs-performance"
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("surface", "key", "meant"),
    [("batch", "rouns", "rounds"), ("mcp", "presett", "preset"), ("config", "lnag", "lang")],
)
def test_an_unknown_key_on_every_surface_gets_the_closest(
    surface: str, key: str, meant: str
) -> None:
    with pytest.raises(UsageError) as err:
        request_from({key: 1, "topic": "t"}, surface, DebateRequest(topic="t"))  # type: ignore[arg-type]
    assert f"did you mean {meant!r}?" in str(err.value)
