"""Batch debates: parallel runs in one tmux session, a failing topic, the index, topics
files with per-entry overrides, validation with line numbers, and resume after Ctrl-C."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import tempfile
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from libtmux import Server

from collab.store import RunDir
from tests.conftest import Cli, FakeAgent, contract_block
from tests.helpers import JUDGE_REST, pid_alive, processes_of, wait_until

ROLE_A = "(Role A) in a structured debate"
ROLE_B = "(Role B) in a structured debate"
JUDGE = "neutral judge"


def collab_env(tmp_path: Path, server: Server | None = None) -> dict[str, str]:
    tmp = tmp_path / "tmp"
    tmp.mkdir(exist_ok=True)
    env = dict(os.environ) | {"TMPDIR": str(tmp), "COLUMNS": "200"}
    if server is not None:
        env["COLLAB_TMUX_SOCKET"] = str(server.socket_name)
    return env


def topic_rules(tags: list[str], sleep: float = 0.0) -> list[dict[str, object]]:
    """Per topic (matched by its tag): A raises a point, B contests it, the judge rules."""
    rules: list[dict[str, object]] = []
    for tag in tags:
        rules += [
            {"match": [JUDGE, tag], "replies": [f"## TL;DR\n- verdict on {tag}" + JUDGE_REST]},
            {"match": [ROLE_A, tag], "replies": [
                {"text": f"A on {tag}." + contract_block(new=[(f"Point {tag}", "e")]),
                 "sleep": sleep}]},
            {"match": [ROLE_B, tag], "replies": [
                {"text": f"B on {tag}." + contract_block(stances=[("I1", "contest", "no")]),
                 "sleep": sleep}]},
        ]  # fmt: skip
    return rules


def load_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def run_state(home: Path, run_id: str) -> dict[str, Any]:
    state: dict[str, Any] = load_json(home / "runs" / run_id / "state.json")
    return state


def tmux_windows(server: Server) -> set[tuple[str, str]]:
    if not server.is_alive():
        return set()
    res = server.cmd("list-windows", "-a", "-F", "#{session_name}\t#{window_name}")
    if res.returncode != 0:
        return set()
    out: set[tuple[str, str]] = set()
    for line in res.stdout:
        session, tab, window = line.partition("\t")
        if tab:
            out.add((session, window))
    return out


# -- six topics, three at a time, one failing ---------------------------------------------------


def test_batch_parallel_tmux_one_session_one_failure(
    fake_agent: FakeAgent, hermetic_env: Path, tmp_path: Path, server: Server
) -> None:
    tags = [f"T{n}" for n in range(1, 7)]
    doomed = "T4"
    fail = {"exit": 1, "stderr": "agent crashed\n", "sleep": 0.2}
    rules: list[dict[str, object]] = [
        {"match": [JUDGE, doomed], "replies": [fail]},
        {"match": [ROLE_A, doomed], "replies": [fail]},
        {"match": [ROLE_B, doomed], "replies": [fail]},
        *topic_rules(tags, sleep=0.3),
    ]
    fake_agent.script(rules, {"exit": 1, "stderr": "no rule matched"})
    topics = tmp_path / "topics.txt"
    lines = ["# six topics; blank lines and comments are skipped", ""]
    lines += [f"Topic {t}: should we do {t}?" for t in tags]
    topics.write_text("\n".join(lines) + "\n", encoding="utf-8")

    proc = subprocess.Popen(
        [*Cli.argv(), "batch", str(topics), "--parallel", "3",
         "--agent", "fake", "--rounds", "2", "--runner", "tmux", "--json", "--timeout", "60",
         "--opening", "sequential"],  # B answers A's round-1 point
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=collab_env(tmp_path, server), stdin=subprocess.DEVNULL,
    )  # fmt: skip
    seen: set[tuple[str, str]] = set()
    most_at_once = 0
    try:

        def sample_until_done() -> bool:
            nonlocal seen, most_at_once
            windows = tmux_windows(server)
            seen |= windows
            most_at_once = max(most_at_once, len(windows))
            return proc.poll() is not None

        wait_until(sample_until_done, 120, every=0.02)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 1, err
    doc = json.loads(out)
    batch_id = doc["batch_id"]
    bdir = hermetic_env / "batches" / batch_id

    # Every debate ran in its own window of ONE session named after the batch.
    batch_json = load_json(bdir / "batch.json")
    run_ids = [r["run_id"] for r in batch_json["runs"]]
    assert len(set(run_ids)) == 6
    assert {s for s, _ in seen} == {f"collab-{batch_id}"}
    assert {w for _, w in seen} == set(run_ids)
    assert 1 < most_at_once <= 3
    assert not [s for s, _ in tmux_windows(server) if s.startswith("collab-")]

    # The index: one row per topic, in file order, with line numbers and statuses.
    index = load_json(bdir / "index.json")
    assert index == doc
    assert index["schema"] == "collab.batch/1"
    assert index["status"] == "failed"
    assert index["resume"] == f"collab resume {batch_id}"
    assert index["parallel"] == 3 and index["source"] == str(topics)
    rows = index["runs"]
    assert [r["run_id"] for r in rows] == run_ids
    assert [r["line"] for r in rows] == [3, 4, 5, 6, 7, 8]
    assert [r["topic"] for r in rows] == [f"Topic {t}: should we do {t}?" for t in tags]
    statuses = {r["topic"].split(":")[0].split()[1]: r["status"] for r in rows}
    assert statuses == {t: ("failed" if t == doomed else "done") for t in tags}
    for r in rows:
        state = run_state(hermetic_env, r["run_id"])
        assert state["status"] == r["status"]
        tag = r["topic"].split(":")[0].split()[1]
        if tag == doomed:
            assert all(t["status"] == "error" for t in state["turns"])
            assert state["judge"]["fallback"] is True
            continue
        assert r["stop_reason"] == "max-rounds" and r["rounds_done"] == 2
        assert (r["open"], r["resolved"], r["dropped"]) == (2, 0, 0)
        assert state["turns"][0]["prose"] == f"A on {tag}."
        assert state["judge"]["text"].startswith(f"## TL;DR\n- verdict on {tag}\n")
        assert r["cost_usd"] == state["cost_usd"]
    md = (bdir / "index.md").read_text(encoding="utf-8")
    table = [line for line in md.splitlines() if line.startswith("| ") and "run_id" not in line]
    assert len(table) == 1 + 6  # header + one row per debate
    for n, r in enumerate(rows, 1):
        row = table[n]
        assert row.startswith(f"| {n} | {r['topic']} | {r['status']} |")
        assert f"[{r['run_id']}](../../runs/{r['run_id']}/transcript.md)" in row
    assert f"status {index['status']}" in md
    assert list((tmp_path / "tmp").iterdir()) == []


# -- topics files with per-entry overrides ----------------------------------------------------


class FileCase(NamedTuple):
    test_id: str
    name: str
    text: str


JSONL = "\n".join(
    [
        '{"topic": "Plain T1"}',
        "# a comment line",
        '{"topic": "Preset T2", "preset": "security-vs-performance", "rounds": 3}',
        '{"topic": "Custom T3", "role_a": "Tester: tests it", "role_b": "Critic: doubts it",'
        ' "agent": "fake-text", "context": "ctx/notes.md"}',
    ]
)
YAML = """\
# topics for the yaml case
- Plain T1
- topic: Preset T2
  preset: security-vs-performance
  rounds: 3
- topic: Custom T3
  role_a: "Tester: tests it"
  role_b: "Critic: doubts it"
  agent: fake-text
  context: [ctx/notes.md]
"""
FILE_CASES = [
    FileCase("jsonl", "topics.jsonl", JSONL),
    FileCase("yaml", "topics.yaml", YAML),
]


@pytest.mark.parametrize(list(FileCase._fields), FILE_CASES, ids=[c.test_id for c in FILE_CASES])
def test_topics_file_overrides(
    fake_agent: FakeAgent,
    hermetic_env: Path,
    tmp_path: Path,
    test_id: str,
    name: str,
    text: str,
) -> None:
    fake_agent.script(topic_rules(["T1", "T2", "T3"]))
    folder = tmp_path / "topics"
    (folder / "ctx").mkdir(parents=True)
    (folder / "ctx" / "notes.md").write_text("Context for T3: p99 is 40 ms.\n", encoding="utf-8")
    topics = folder / name
    topics.write_text(text, encoding="utf-8")
    # Run from elsewhere: relative context paths are taken from the topics file's folder.
    res = subprocess.run(
        [*Cli.argv(), "batch", str(topics), "--parallel", "3",
         "--agent", "fake", "--rounds", "2", "--runner", "subprocess", "--json"],
        capture_output=True, text=True, env=collab_env(tmp_path), cwd=tmp_path, timeout=120,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    assert doc["schema"] == "collab.batch/1" and doc["status"] == "done"
    assert doc["resume"] is None
    by_topic = {r["topic"]: r for r in doc["runs"]}
    assert set(by_topic) == {"Plain T1", "Preset T2", "Custom T3"}
    lines = {"jsonl": (1, 3, 4), "yaml": (2, 3, 6)}[test_id]
    assert [by_topic[t]["line"] for t in ("Plain T1", "Preset T2", "Custom T3")] == list(lines)

    cfg = {t: run_state(hermetic_env, r["run_id"])["config"] for t, r in by_topic.items()}
    plain, preset, custom = cfg["Plain T1"], cfg["Preset T2"], cfg["Custom T3"]
    assert (plain["preset"], plain["rounds"]) == ("advocate-vs-devils-advocate", 2)
    assert plain["agent_a"]["agent"] == "fake" and plain["contexts"] == []
    assert (preset["preset"], preset["rounds"]) == ("security-vs-performance", 3)
    assert preset["role_a"]["name"] == "Security Engineer"
    assert custom["preset"] == "custom"
    assert (custom["role_a"]["name"], custom["role_b"]["name"]) == ("Tester", "Critic")
    assert custom["role_b"]["description"] == "doubts it"
    assert {custom[s]["agent"] for s in ("agent_a", "agent_b", "judge")} == {"fake-text"}
    assert custom["contexts"] == [
        {"path": str(folder / "ctx" / "notes.md"), "text": "Context for T3: p99 is 40 ms.\n"}
    ]
    for t, r in by_topic.items():
        assert r["status"] == "done"
        state = run_state(hermetic_env, r["run_id"])
        assert state["turns"][0]["prose"] == f"A on {t.split()[1]}."
        assert len(state["turns"]) == 2 * cfg[t]["rounds"]


# -- validation: the bad entry's line, nothing started ---------------------------------------


class BadFile(NamedTuple):
    test_id: str
    name: str
    text: str
    message: str  # "{f}" is the file's path


BAD_FILES = [
    BadFile("jsonl-invalid-json", "t.jsonl", '{"topic": "a"}\n\n{"topic": b}\n',
            "{f}:3: invalid JSON"),
    BadFile("jsonl-rounds-out-of-range", "t.jsonl", '{"topic": "a"}\n{"topic": "b", "rounds": 9}\n',
            "{f}:2: rounds must be 1–7, got 9"),
    BadFile("jsonl-wrong-type", "t.jsonl", '{"topic": "a", "rounds": "two"}\n',
            "{f}:1: rounds must be an integer, got str"),
    BadFile("jsonl-unknown-key", "t.jsonl", '{"topic": "a"}\n{"topic": "b", "colour": "red"}\n',
            "{f}:2: unknown key 'colour'"),
    BadFile("jsonl-no-topic", "t.jsonl", '{"topic": "a"}\n{"preset": "security-vs-delivery"}\n',
            "{f}:2: entry has no 'topic'"),
    BadFile("jsonl-not-an-object", "t.jsonl", '{"topic": "a"}\n[1, 2]\n',
            "{f}:2: an entry must be a topic string or an object"),
    BadFile("jsonl-unknown-preset", "t.jsonl", '{"topic": "a", "preset": "nope"}\n',
            "{f}:1: unknown preset 'nope'"),
    BadFile("jsonl-unknown-agent", "t.jsonl", '{"topic": "a"}\n{"topic": "b", "agent": "nope"}\n',
            "{f}:2: unknown agent 'nope'"),
    BadFile("jsonl-context-missing", "t.jsonl", '{"topic": "a", "context": "nope.md"}\n',
            "{f}:1: context file not found: {d}/nope.md"),
    BadFile("jsonl-empty-topic", "t.jsonl", '{"topic": "a"}\n{"topic": "   "}\n',
            "{f}:2: the topic is empty"),
    BadFile("yaml-unknown-key", "t.yaml", "- topic: a\n- b\n- topic: c\n  roundz: 2\n",
            "{f}:3: unknown key 'roundz'"),
    BadFile("yaml-syntax", "t.yaml", "- topic: a\n- topic: [b\n", "{f}:3: invalid YAML"),
    BadFile("yaml-not-a-list", "t.yml", "topic: a\n", "{f}:1: the YAML file must be a list"),
    BadFile("yaml-custom-role-no-colon", "t.yaml",
            "- a\n- topic: b\n  role_a: Tester\n  role_b: 'Critic: doubts'\n",
            "{f}:2: role_a must look like 'Name: description'"),
    BadFile("txt-topic-too-long", "t.txt", "fine\n\n" + "x" * 2001 + "\n",
            "{f}:3: the topic is 2001 characters"),
    BadFile("txt-only-comments", "t.txt", "# nothing\n\n", "{f}: no topics in the file"),
    BadFile("unknown-suffix", "t.csv", "a,b\n", "{f}: unknown topics file type '.csv'"),
    # An entry cannot choose what runs or what leaves the machine (--trust-entries lifts it).
    BadFile("restricted-agent-command", "t.jsonl",
            '{"topic": "a"}\n{"topic": "b", "agent": "command", "agent_command": "sh -c id"}\n',
            "{f}:2: 'agent_command' is not allowed in a batch entry"),
    BadFile("restricted-tools", "t.yaml", "- a\n- topic: b\n  tools: read\n",
            "{f}:2: 'tools' is not allowed in a batch entry"),
    BadFile("restricted-agent-setup", "t.jsonl", '{"topic": "b", "agent_setup": "inherit"}\n',
            "{f}:1: 'agent_setup' is not allowed in a batch entry"),
    BadFile("restricted-context-absolute", "t.jsonl",
            '{"topic": "b", "context": ["/etc/hostname"]}\n',
            "{f}:1: 'context' is not allowed in a batch entry: /etc/hostname resolves to"),
    BadFile("restricted-context-dotdot", "t.yaml", "- topic: b\n  context: [../../x.md]\n",
            "{f}:1: 'context' is not allowed in a batch entry: ../../x.md resolves to"),
]  # fmt: skip


@pytest.mark.parametrize(list(BadFile._fields), BAD_FILES, ids=[c.test_id for c in BAD_FILES])
def test_invalid_topics_file(
    cli: Cli,
    fake_agent: FakeAgent,
    hermetic_env: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    test_id: str,
    name: str,
    text: str,
    message: str,
) -> None:
    d = tmp_path / "in"
    d.mkdir()
    f = d / name
    f.write_text(text, encoding="utf-8")
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    expected = message.replace("{f}", str(f)).replace("{d}", str(d))
    for as_json in (False, True):
        argv = ["batch", str(f), "--agent", "fake", "--runner", "subprocess"]
        code, out, err = cli(*argv, "--json") if as_json else cli(*argv)
        assert code == 2
        if as_json:
            doc = json.loads(out)
            assert doc["schema"] == "collab.error/1" and doc["exit_code"] == 2
            assert expected in doc["error"]["message"]
        else:
            lines = err.strip().splitlines()
            assert len(lines) == 1 and "Traceback" not in err, err
            assert expected in lines[0]
    assert not (hermetic_env / "batches").exists()
    assert not (hermetic_env / "runs").exists()
    assert list(tmp.iterdir()) == []
    assert fake_agent.calls() == []


def test_trust_entries_lets_an_entry_reach_outside_its_folder(
    fake_agent: FakeAgent, hermetic_env: Path, tmp_path: Path
) -> None:
    """A symlink inside the folder that points out of it is outside (realpath); the person
    running the batch can vouch for the file with --trust-entries."""
    fake_agent.script(topic_rules(["T1"]))
    (tmp_path / "outside.md").write_text("Context from outside.\n", encoding="utf-8")
    folder = tmp_path / "topics"
    folder.mkdir()
    (folder / "link.md").symlink_to(tmp_path / "outside.md")
    topics = folder / "t.jsonl"
    topics.write_text(
        '{"topic": "Linked T1", "agent_setup": "lean", "context": ["link.md"]}\n', encoding="utf-8"
    )
    argv = [*Cli.argv(), "batch", str(topics), "--agent", "fake",
            "--rounds", "2", "--runner", "subprocess", "--json"]  # fmt: skip
    env = collab_env(tmp_path)
    res = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    assert res.returncode == 2
    message = json.loads(res.stdout)["error"]["message"]
    assert message.startswith(f"{topics}:1: 'agent_setup' is not allowed in a batch entry")
    topics.write_text('{"topic": "Linked T1", "context": ["link.md"]}\n', encoding="utf-8")
    res = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    assert res.returncode == 2
    message = json.loads(res.stdout)["error"]["message"]
    assert f"link.md resolves to {tmp_path / 'outside.md'}, outside" in message
    assert fake_agent.calls() == []
    res = subprocess.run(
        [*argv, "--trust-entries"], capture_output=True, text=True, env=env, cwd=tmp_path,
        timeout=120,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    (run,) = json.loads(res.stdout)["runs"]
    config = run_state(hermetic_env, run["run_id"])["config"]
    assert config["contexts"] == [
        {"path": str(folder / "link.md"), "text": "Context from outside.\n"}
    ]


# -- Ctrl-C, then resume ---------------------------------------------------------------------------


def test_batch_ctrl_c_then_resume(
    fake_agent: FakeAgent, hermetic_env: Path, tmp_path: Path, server: Server
) -> None:
    tags = ["Q1", "Q2", "Q3", "Q4"]
    rules = topic_rules(tags, sleep=0.4)
    fake_agent.script(rules, {"exit": 1, "stderr": "no rule matched"})
    rule_tag = {i: tags[i // 3] for i in range(len(rules))}  # topic_rules: 3 rules per tag
    topics = tmp_path / "topics.txt"
    topics.write_text("".join(f"Topic {t}\n" for t in tags), encoding="utf-8")
    env = collab_env(tmp_path, server)

    proc = subprocess.Popen(
        [*Cli.argv(), "batch", str(topics), "--parallel", "2",
         "--agent", "fake", "--rounds", "2", "--runner", "tmux", "--json", "--timeout", "60",
         "--opening", "sequential"],  # B answers A's round-1 point
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        stdin=subprocess.DEVNULL,
        start_new_session=True,  # only the batch process gets the Ctrl-C, as from a terminal
    )  # fmt: skip

    def statuses() -> dict[str, str]:
        out: dict[str, str] = {}
        for run_dir in (hermetic_env / "runs").glob("*"):
            try:
                state = load_json(run_dir / "state.json")
            except (OSError, ValueError):
                continue
            out[state["config"]["topic"]] = state["status"]
        return out

    def one_done_one_midway() -> bool:
        st = statuses()
        running = [t for t, s in st.items() if s == "running"]
        return "done" in st.values() and bool(running)

    try:
        assert wait_until(one_done_one_midway, 90), statuses()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err
    # The batch stopped every child it had started (each saves its state and exits).
    # Pane shells exit on their own a moment after their pane is killed.
    assert wait_until(lambda: not processes_of(hermetic_env), 5), processes_of(hermetic_env)
    doc = json.loads(out)
    batch_id = doc["batch_id"]
    assert doc["status"] == "interrupted"
    assert load_json(hermetic_env / "batches" / batch_id / "batch.json")["status"] == "interrupted"
    before = {r["topic"]: run_state(hermetic_env, r["run_id"]) for r in doc["runs"]}
    finished = {t for t, s in before.items() if s["status"] == "done"}
    unfinished = set(before) - finished
    summary = {t: (s["status"], len(s["turns"]), s["judge"] is not None) for t, s in before.items()}
    assert finished and unfinished, summary
    assert {s["status"] for t, s in before.items() if t in unfinished} <= {"interrupted", "pending"}
    assert not [s for s, _ in tmux_windows(server) if s.startswith("collab-")]

    def calls_by_topic() -> dict[str, int]:
        counts = dict.fromkeys(before, 0)
        for c in fake_agent.calls():
            counts[f"Topic {rule_tag[int(str(c['rule']))]}"] += 1
        return counts

    calls_before = calls_by_topic()
    res = subprocess.run(
        [*Cli.argv(), "resume", batch_id, "--json"],
        capture_output=True, text=True, env=env, timeout=180, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    resumed = json.loads(res.stdout)
    assert resumed["batch_id"] == batch_id and resumed["status"] == "done"
    assert [r["run_id"] for r in resumed["runs"]] == [r["run_id"] for r in doc["runs"]]
    assert all(r["status"] == "done" for r in resumed["runs"])
    assert load_json(hermetic_env / "batches" / batch_id / "index.json")["status"] == "done"

    calls_after = calls_by_topic()
    for r in resumed["runs"]:
        topic = r["topic"]
        after = run_state(hermetic_env, r["run_id"])
        old_turns = before[topic]["turns"]
        assert after["turns"][: len(old_turns)] == old_turns  # finished turns kept as they were
        new_calls = calls_after[topic] - calls_before[topic]
        if topic in finished:
            assert new_calls == 0, topic  # skipped: nothing of it ran again
            assert after == before[topic]
        else:
            # Only the missing turns (and the judge, if it had not answered) were asked for.
            judge = 0 if before[topic]["judge"] is not None else 1
            assert new_calls == len(after["turns"]) - len(old_turns) + judge, topic
            assert after["judge"]["text"].startswith(f"## TL;DR\n- verdict on {topic.split()[1]}")
    assert not [s for s, _ in tmux_windows(server) if s.startswith("collab-")]
    assert list((tmp_path / "tmp").iterdir()) == []


# -- one driver per batch; a SIGKILL of the batch, then resume ------------------------------------


def calls_by_topic(fake: FakeAgent, rule_tag: dict[int, str]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for c in fake.calls():
        topic = f"Topic {rule_tag[int(str(c['rule']))]}"
        counts[topic] = counts.get(topic, 0) + 1
    return counts


def run_statuses(home: Path) -> dict[str, tuple[str, int]]:
    """Each run's topic: (status, turns saved)."""
    out: dict[str, tuple[str, int]] = {}
    for run_dir in (home / "runs").glob("*"):
        try:
            state = load_json(run_dir / "state.json")
        except (OSError, ValueError):
            continue
        out[state["config"]["topic"]] = (state["status"], len(state["turns"]))
    return out


def holds_lock(lock: Path, pid: int) -> bool:
    """Has ``pid`` taken the lock? (It writes its pid once it holds it; asking by taking
    the lock ourselves could make it lose the race.)"""
    try:
        return lock.read_text(encoding="utf-8").strip() == str(pid)
    except OSError:
        return False


def test_a_batch_is_not_driven_twice(
    fake_agent: FakeAgent, hermetic_env: Path, tmp_path: Path
) -> None:
    tags = ["L1"]
    gate = tmp_path / "let-the-judge-answer"  # the batch runs until the test has looked
    rules = topic_rules(tags)
    rules[0]["replies"] = [{"text": "## TL;DR\n- verdict on L1" + JUDGE_REST,
                            "wait_file": str(gate)}]  # fmt: skip
    fake_agent.script(rules, {"exit": 1, "stderr": "no rule matched"})
    rule_tag = {i: tags[i // 3] for i in range(3)}
    topics = tmp_path / "topics.txt"
    topics.write_text("Topic L1\n", encoding="utf-8")
    env = collab_env(tmp_path)
    first = subprocess.Popen(
        [*Cli.argv(), "batch", str(topics), "--parallel", "1",
         "--agent", "fake", "--rounds", "2", "--runner", "subprocess", "--json",
         "--opening", "sequential"],  # B answers A's point: 5 calls a debate
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        stdin=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip
    try:

        def locks() -> list[Path]:
            return list((hermetic_env / "batches").glob("batch-*/lock"))

        assert wait_until(lambda: any(holds_lock(p, first.pid) for p in locks()), 60)
        (lock,) = locks()
        batch_id = lock.parent.name
        for as_json in (True, False):
            res = subprocess.run(
                [*Cli.argv(), "resume", batch_id,
                 *(["--json"] if as_json else [])],
                capture_output=True, text=True, env=env, timeout=60, stdin=subprocess.DEVNULL,
            )  # fmt: skip
            assert res.returncode == 2, res.stderr
            message = f"batch {batch_id} is being driven by another collab process"
            message += f" (pid {first.pid})"
            if as_json:
                doc = json.loads(res.stdout)
                assert doc["error"] == {"kind": "locked", "message": message}
            else:
                assert res.stderr.strip() == f"collab: {message}", res.stderr
        gate.touch()
        out, err = first.communicate(timeout=120)
    finally:
        if first.poll() is None:
            os.killpg(first.pid, signal.SIGKILL)
            first.wait()
    assert first.returncode == 0, err
    assert json.loads(out)["status"] == "done"
    assert calls_by_topic(fake_agent, rule_tag) == {"Topic L1": 5}, "the batch ran twice"


def test_batch_sigkill_then_resume_finishes_every_debate_once(
    fake_agent: FakeAgent, hermetic_env: Path, tmp_path: Path, server: Server
) -> None:
    """SIGKILL reaches only the batch process: its children, in their own sessions, go on
    driving their runs. The resume waits for those (they hold their runs' locks) instead of
    starting a second driver, drives the rest, and no turn is asked for twice."""
    tags = ["K1", "K2", "K3", "K4"]
    # K1 and K2 run first and slowly: without waiting for their drivers, the resume would
    # end (K3 and K4 are quick) while they are still going.
    rules = topic_rules(tags[:2], sleep=1.5) + topic_rules(tags[2:], sleep=0.1)
    fake_agent.script(rules, {"exit": 1, "stderr": "no rule matched"})
    rule_tag = {i: tags[i // 3] for i in range(len(rules))}
    topics = tmp_path / "topics.txt"
    topics.write_text("".join(f"Topic {t}\n" for t in tags), encoding="utf-8")
    env = collab_env(tmp_path, server)
    parent = subprocess.Popen(
        [*Cli.argv(), "batch", str(topics), "--parallel", "2",
         "--agent", "fake", "--rounds", "2", "--runner", "tmux", "--json", "--timeout", "60",
         "--opening", "sequential"],  # B answers A's point: 5 calls a debate
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env,
        stdin=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip
    resumes: list[subprocess.Popen[str]] = []
    try:
        # Kill it once a debate is under way (a turn saved) and none has finished.
        def midway() -> bool:
            st = run_statuses(hermetic_env).values()
            return any(s == "running" and n >= 1 for s, n in st)

        assert wait_until(midway, 90), run_statuses(hermetic_env)
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait(timeout=30)
        (bdir,) = (hermetic_env / "batches").iterdir()
        batch_id = bdir.name
        run_ids = [r["run_id"] for r in load_json(bdir / "batch.json")["runs"]]
        # Its children live on, holding their runs' locks (they hold them already: asking
        # cannot take one from them).
        drivers = {r: RunDir(r).holder_by_locking() for r in run_ids}
        orphans = {r: pid for r, pid in drivers.items() if pid}
        assert orphans, (drivers, run_statuses(hermetic_env))
        assert all(pid_alive(pid) and pid != parent.pid for pid in orphans.values())

        first = subprocess.Popen(
            [*Cli.argv(), "resume", batch_id, "--json"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
            stdin=subprocess.DEVNULL, start_new_session=True,
        )  # fmt: skip
        resumes.append(first)
        assert wait_until(lambda: holds_lock(bdir / "lock", first.pid), 60), first.pid
        # Two resumes at once: the second is refused, the first goes on.
        second = subprocess.run(
            [*Cli.argv(), "resume", batch_id, "--json"],
            capture_output=True, text=True, env=env, timeout=60, stdin=subprocess.DEVNULL,
        )  # fmt: skip
        assert second.returncode == 2, second.stderr
        assert json.loads(second.stdout)["error"]["kind"] == "locked"
        out, err = first.communicate(timeout=180)
    finally:
        for proc in (parent, *resumes):
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
    assert first.returncode == 0, err
    doc = json.loads(out)
    assert doc["batch_id"] == batch_id and doc["status"] == "done", doc
    assert all(r["status"] == "done" for r in doc["runs"])
    assert load_json(bdir / "index.json")["status"] == "done"
    for run_id in run_ids:
        state = run_state(hermetic_env, run_id)
        assert state["status"] == "done"
        keys = [(t["round_no"], t["side"]) for t in state["turns"]]
        assert keys == [(1, "A"), (1, "B"), (2, "B"), (2, "A")], keys
    # Every debate ran to its end exactly once: 2 rounds x 2 sides and the Judge; no
    # second driver of a run was even started.
    assert calls_by_topic(fake_agent, rule_tag) == {f"Topic {t}": 5 for t in tags}
    for run_id in run_ids:
        log = RunDir(run_id).path / "batch.log"
        assert "being driven" not in log.read_text(encoding="utf-8"), run_id
    assert wait_until(lambda: not processes_of(hermetic_env), 10), processes_of(hermetic_env)
    assert wait_until(lambda: not [s for s, _ in tmux_windows(server) if s.startswith("collab-")])
    assert list((tmp_path / "tmp").iterdir()) == []
