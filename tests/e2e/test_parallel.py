"""F12: many debates at once and many in a row, without collisions or leaks.

Eight ``python -m collab debate`` processes share ONE isolated tmux server; then fifty
debates run one after another in this process through ``collab.cli.main``. Afterwards
nothing may be left: no collab tmux session or pane, no ``collab-*`` temp dir, no agent
process, no file descriptor of ours. The fifty run on each runner, subprocess and tmux.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

import pytest
from libtmux import Server

from tests.conftest import Cli, FakeAgent, contract_block
from tests.helpers import JUDGE_REST, processes_of, wait_until

ROLE_A = "(Role A) in a structured debate"
ROLE_B = "(Role B) in a structured debate"
JUDGE = "neutral judge"
PARALLEL = 8
SEQUENTIAL = 50


def topic(n: int) -> str:
    return f"Parallel topic #{n}#: should service {n} cache sessions?"


def collab_sessions(server: Server) -> list[str]:
    if not server.is_alive():
        return []
    res = server.cmd("list-sessions", "-F", "#{session_name}")
    return [s for s in res.stdout if s.startswith("collab-")] if res.returncode == 0 else []


def collab_panes(server: Server) -> list[str]:
    if not server.is_alive():
        return []
    res = server.cmd("list-panes", "-a", "-F", "#{session_name} #{pane_title}")
    return [p for p in res.stdout if p.startswith("collab-")] if res.returncode == 0 else []


def open_fds() -> set[str]:
    return {f"{fd}->{os.readlink(f'/proc/self/fd/{fd}')}" for fd in _fd_numbers()}


def _fd_numbers() -> list[str]:
    out = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            os.readlink(f"/proc/self/fd/{fd}")
        except OSError:  # the listing's own fd, already closed
            continue
        out.append(fd)
    return out


def test_eight_debates_at_once_on_one_tmux_server(
    cli: Cli, fake_agent: FakeAgent, hermetic_env: Path, tmp_path: Path, server: Server
) -> None:
    rules: list[dict[str, object]] = []
    for n in range(PARALLEL):
        tag = f"#{n}#"
        rules += [
            {"match": [ROLE_A, tag], "replies": [
                {"text": f"A{n} says cache it." + contract_block(new=[(f"Point {n}", f"ev{n}")]),
                 "sleep": 0.1}]},
            {"match": [ROLE_B, tag], "replies": [
                # Blind round 1: B's stance on I1 (unknown yet) is dropped, its point kept.
                f"B{n} says do not." + contract_block(new=[(f"Counter {n}", f"c{n}")],
                                                      stances=[("I1", "contest", f"no{n}")])]},
            {"match": [JUDGE, tag], "replies": [f"## TL;DR\n- verdict {n}" + JUDGE_REST]},
        ]  # fmt: skip
    fake_agent.script(rules, {"exit": 1, "stderr": "no rule matched"})
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = {"TMPDIR": str(tmp), "COLLAB_TMUX_SOCKET": str(server.socket_name)}
    opts = ["--agent", "fake", "--rounds", "2", "--runner", "tmux", "--json", "--timeout", "60"]
    procs = [cli.popen("debate", topic(n), *opts, env=env) for n in range(PARALLEL)]
    docs: list[dict[str, Any]] = []
    try:
        for p in procs:
            out, err = p.communicate(timeout=120)
            assert p.returncode == 0, err
            docs.append(json.loads(out))
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()

    run_ids = [d["run_id"] for d in docs]
    assert len(set(run_ids)) == PARALLEL
    assert sorted(p.name for p in (hermetic_env / "runs").iterdir()) == sorted(run_ids)
    for n, doc in enumerate(docs):
        state = json.loads(Path(doc["paths"]["state"]).read_text(encoding="utf-8"))
        assert state["run_id"] == doc["run_id"]
        assert state["config"]["topic"] == topic(n)
        assert state["status"] == "done" and state["stop_reason"] == "max-rounds"
        replies = [(t["side"], t["prose"]) for t in state["turns"]]
        assert replies == [  # round 2 ends with A: the last speaker rotates
            ("A", f"A{n} says cache it."), ("B", f"B{n} says do not."),
            ("B", f"B{n} says do not."), ("A", f"A{n} says cache it."),
        ]  # fmt: skip
        assert {i["title"] for i in state["ledger"]} == {f"Point {n}", f"Counter {n}"}
        assert state["judge"]["text"].startswith(f"## TL;DR\n- verdict {n}\n")
        assert not state["judge"]["fallback"]
    calls = fake_agent.calls()
    assert len(calls) == PARALLEL * 5
    assert all(c["rule"] is not None for c in calls)

    assert collab_sessions(server) == []
    assert collab_panes(server) == []
    assert list(tmp.iterdir()) == []
    # Pane shells exit on their own a moment after their pane is killed.
    assert wait_until(lambda: not processes_of(hermetic_env), 5), processes_of(hermetic_env)


@pytest.mark.parametrize("runner", ["subprocess", "tmux"])
def test_fifty_debates_in_a_row_leak_nothing(
    fake_agent: FakeAgent,
    hermetic_env: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    cli: Cli,
    server: Server,
    runner: str,
) -> None:
    """Both runners: the tmux one makes (and must remove) a session, a pane and its shell
    per debate, the subprocess one only processes. Mutant killed (tmux only; the
    subprocess run alone passed it): ``TmuxRunner.close`` a no-op, 51 sessions left."""
    if runner == "tmux":
        monkeypatch.setenv("COLLAB_TMUX_SOCKET", str(server.socket_name))
    fake_agent.script(
        [
            {"match": [ROLE_A], "replies": ["A." + contract_block(new=[("P", "e")])]},
            {
                "match": [ROLE_B],
                "replies": ["B." + contract_block(stances=[("I1", "agree", "A's case holds")])],
            },
            {"match": [JUDGE], "replies": ["## TL;DR\n- done" + JUDGE_REST]},
        ]
    )
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setenv("TMPDIR", str(tmp))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))

    def debate(n: int) -> dict[str, Any]:
        # B agrees with A's round-1 point: sequential, B reads A first.
        argv = ["debate", f"Sequential topic {n}", "--agent", "fake", "--rounds", "2",
                "--runner", runner, "--json", "--timeout", "30",
                "--opening", "sequential"]  # fmt: skip
        res = cli(*argv)
        assert res.code == 0, res.out
        doc: dict[str, Any] = res.json()
        return doc

    debate(-1)  # warm up: lazy imports and caches may keep files open for good
    fds_before = open_fds()
    docs = [debate(n) for n in range(SEQUENTIAL)]
    fds_after = open_fds()

    assert fds_after - fds_before == set(), "file descriptors leaked"
    assert len({d["run_id"] for d in docs}) == SEQUENTIAL
    for n, doc in enumerate(docs):
        assert doc["topic"] == f"Sequential topic {n}"
        assert doc["status"] == "done" and doc["stop_reason"] == "converged-early"
    assert len(list((hermetic_env / "runs").iterdir())) == SEQUENTIAL + 1
    assert list(tmp.iterdir()) == []
    assert collab_sessions(server) == [] and collab_panes(server) == []
    # Pane shells exit on their own a moment after their pane is killed.
    assert wait_until(lambda: not processes_of(hermetic_env), 5), processes_of(hermetic_env)
