"""The command line: help, presets, --json documents, exit codes, the command agent and
config.toml defaults. Debates run with the scripted fake agent."""

from __future__ import annotations

import json
import shlex
import signal
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

import pytest

from collab.presets import DEFAULT_PRESET, get_preset, load_presets
from collab.run_ids import short_id
from tests.conftest import Cli, FakeAgent, contract_block
from tests.e2e.test_inputs import ALL_TOOLS, LOGIN_VARS, bin_dir
from tests.helpers import JUDGE_REST, PRESET_KEYS, needs_no_machine_login, wait_until

ROLE_A = "(Role A) in a structured debate"
ROLE_B = "(Role B) in a structured debate"
JUDGE = "neutral judge"
REASK = "did not end with a valid json block"
TOPIC = "JWT vs sessions"
FAST = ["--runner", "subprocess", "--timeout", "30", "--judge-timeout", "30"]

RESULT_KEYS = {
    "schema", "run_id", "status", "stop_reason", "stop_detail", "error", "topic", "preset",
    "roles", "rounds", "ledger", "counts", "turns", "judge", "cost_usd", "cost_usd_by_role",
    "tokens", "paths", "resume",
}  # fmt: skip


def script_debate(fake: FakeAgent) -> None:
    """A opens an issue each round, B contests it, the judge writes a fixed summary."""
    fake.script(
        [
            {"match": [REASK], "replies": ["```json\n{}\n```"]},
            {
                "match": [ROLE_A],
                "replies": ["A argues for tokens." + contract_block(new=[("Stateless", "e")])],
            },
            {
                "match": [ROLE_B],
                "replies": [
                    "B argues for sessions."
                    + contract_block(stances=[("I1", "contest", "revocation")])
                ],
            },
            {
                "match": [JUDGE],
                "replies": ["## TL;DR\n- the judge's scripted verdict" + JUDGE_REST],
            },
        ],
        "unmatched prompt",
    )


# -- help ---------------------------------------------------------------------------------


COMMANDS = ("debate", "batch", "resume", "list", "show", "presets", "doctor")


def test_help(cli: Cli) -> None:
    res = cli("--help")
    assert res.code == 0
    assert "Usage: collab" in res.out
    for command in COMMANDS:
        assert command in res.out


def test_python_m_collab_help(cli: Cli) -> None:
    res = cli.process("--help")
    assert res.code == 0
    assert "Usage: collab" in res.out
    assert res.err == ""


def test_console_script_help() -> None:
    """The installed ``collab`` entry point (next to this interpreter, as pip puts it)."""
    script = Path(sys.executable).with_name("collab")
    if not script.is_file():
        pytest.skip(f"collab is not installed for {sys.executable} (pip install .)")
    res = subprocess.run([str(script), "--help"], capture_output=True, text=True, timeout=60)
    assert res.returncode == 0
    assert "Usage: collab" in res.stdout
    res = subprocess.run(
        [str(script), "debate", "x", "--rounds", "9"], capture_output=True, text=True, timeout=60
    )
    assert res.returncode == 2
    assert res.stderr.strip() == "collab: --rounds must be 1–7, got 9"


def test_no_arguments_shows_help_and_exits_2(cli: Cli) -> None:
    """A usage error: the help goes to stderr, stdout stays empty."""
    res = cli()
    assert res.code == 2
    assert "Usage: collab" in res.err
    assert res.out == ""


SUBCOMMANDS = (
    *COMMANDS,
    "export",
    "schema",
    "skill",
    "presets show",
    "skill install",
    "skill show",
)


@pytest.mark.parametrize("argv", [[*c.split(), "--help"] for c in SUBCOMMANDS], ids=SUBCOMMANDS)
def test_command_help(cli: Cli, argv: list[str]) -> None:
    res = cli(*argv)
    assert res.code == 0, res
    assert "Usage: collab" in res.out


# -- presets ----------------------------------------------------------------------------------


def test_presets_lists_every_builtin(cli: Cli) -> None:
    presets = load_presets()
    assert len(presets) == len(PRESET_KEYS)
    res = cli("presets")
    assert res.code == 0
    flat = " ".join(res.out.replace("│", " ").split())
    for key, p in presets.items():
        assert key in res.out
        assert p.role_a.name in res.out and p.role_b.name in res.out
        # Every seat, labelled, and the seat count beside the key.
        for label, role in zip("ABCDE", p.seats, strict=False):
            assert f"{label}: {role.name}" in flat
        assert f"{key} {len(p.seats)} A:" in flat


def test_presets_json(cli: Cli) -> None:
    res = cli("presets", "--json")
    assert res.code == 0
    doc = res.json()
    assert doc["schema"] == "collab.presets/1"
    assert len(doc["presets"]) == len(PRESET_KEYS)
    assert doc["presets"][0]["key"] == DEFAULT_PRESET
    for p in doc["presets"]:
        assert set(p) == {"key", "title", "summary", "role_a", "role_b", "source", "seats"}
        assert p["source"] == "builtin"
        assert p["seats"] == [r.name for r in get_preset(p["key"]).seats]
        assert p["seats"][:2] == [p["role_a"], p["role_b"]]
    assert {p["key"] for p in doc["presets"]} == set(load_presets())


def test_presets_show(cli: Cli) -> None:
    p = get_preset("security-vs-performance")
    res = cli("presets", "show", "security-vs-performance")
    assert res.code == 0
    flat = " ".join(res.out.replace("│", " ").split())
    assert "Role A: Security Engineer" in flat
    assert "Role B: Performance Engineer" in flat
    for role in (p.role_a, p.role_b):
        assert " ".join(role.description.split()[:8]) in flat


def test_presets_show_json(cli: Cli) -> None:
    res = cli("presets", "show", "security-vs-performance", "--json")
    assert res.code == 0
    doc = res.json()
    assert doc["schema"] == "collab.preset/1"
    assert set(doc) == {"schema", "key", "title", "summary", "role_a", "role_b", "source", "seats"}
    assert doc["role_a"]["name"] == "Security Engineer"
    assert doc["role_b"]["name"] == "Performance Engineer"
    assert doc["role_b"]["description"] == get_preset("security-vs-performance").role_b.description


def test_presets_show_panel_gives_every_seat(cli: Cli) -> None:
    p = get_preset("launch-readiness")
    res = cli("presets", "show", "launch-readiness")
    assert res.code == 0
    flat = " ".join(res.out.replace("│", " ").split())
    for label, role in zip("ABCD", p.seats, strict=True):
        assert f"Role {label}: {role.name}" in flat
        assert " ".join(role.description.split()[:8]) in flat
    doc = cli("presets", "show", "launch-readiness", "--json").json()
    assert [(s["label"], s["name"], s["description"]) for s in doc["seats"]] == [
        (label, r.name, r.description) for label, r in zip("ABCD", p.seats, strict=True)
    ]


def test_presets_show_unknown(cli: Cli) -> None:
    res = cli("presets", "show", "nope")
    assert res.code == 2
    assert "unknown preset 'nope'" in res.err
    doc = cli("presets", "show", "nope", "--json").json()
    assert doc["schema"] == "collab.error/1" and doc["exit_code"] == 2


@pytest.mark.parametrize("logged_in", [True, False], ids=["ready", "not-logged-in"])
def test_doctor_json_shape(
    cli: Cli,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    logged_in: bool,
) -> None:
    """A machine made for the test (tmux, bash, setsid and a claude on PATH; an API key or
    no login at all), so the exit code and every check's level are known exactly, not
    merely consistent with each other. (tests/e2e/test_inputs.py checks each prerequisite
    present and missing.) Mutant killed (the old ``code == (0 if ok else 3)`` passed it):
    ``claude_login`` reporting "ok" with no login at all."""
    if not logged_in:
        needs_no_machine_login()
    path = bin_dir(tmp_path, ALL_TOOLS, claude=True)
    monkeypatch.setenv("PATH", str(path))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    for var in LOGIN_VARS:
        monkeypatch.delenv(var, raising=False)
    if logged_in:
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-not-a-key")
    res = cli("doctor", "--json")
    doc = res.json()
    assert doc["schema"] == "collab.doctor/1"
    assert res.code == (0 if logged_in else 3), res
    assert doc["ok"] is logged_in
    assert {c["name"]: c["level"] for c in doc["checks"]} == {
        "tmux": "ok", "inside tmux": "info", "bash": "ok", "setsid": "ok",
        "agent claude": "ok", "claude login": "ok" if logged_in else "fail", "data dir": "ok",
        "runs": "ok",
    }  # fmt: skip


# -- debate / list / show --json ---------------------------------------------------------------


def test_debate_list_show_json(cli: Cli, fake_agent: FakeAgent) -> None:
    script_debate(fake_agent)
    assert cli("list", "--json").json() == {"schema": "collab.list/1", "runs": []}

    res = cli("debate", TOPIC, "--agent", "fake", "--rounds", "2", "--json", *FAST)
    assert res.code == 0, res
    doc = res.json()
    assert set(doc) >= RESULT_KEYS
    assert doc["schema"] == "collab.result/2"
    assert doc["status"] == "done" and doc["stop_reason"] == "max-rounds"
    assert doc["topic"] == TOPIC and doc["preset"] == DEFAULT_PRESET
    assert doc["rounds"] == {"done": 2, "planned": 2}
    assert [(t["round"], t["side"], t["status"]) for t in doc["turns"]] == [
        (1, "A", "ok"), (1, "B", "ok"), (2, "B", "ok"), (2, "A", "ok"),  # round 2 ends with A
    ]  # fmt: skip
    assert doc["turns"][0]["prose"] == "A argues for tokens."
    skipped = "> Open, but not covered by the Judge's summary: I1 (Stateless), I2 (Stateless)."
    assert doc["judge"] == {
        "markdown": f"## TL;DR\n- the judge's scripted verdict{JUDGE_REST}\n\n{skipped}",
        "fallback": False,
    }
    assert doc["ledger"][0]["title"] == "Stateless"
    assert doc["resume"] is None
    assert {"run_dir", "state", "transcript", "judge"} <= set(doc["paths"])
    assert isinstance(doc["cost_usd"], float) and doc["cost_usd"] > 0
    run_id = doc["run_id"]

    listed = cli("list", "--json").json()
    assert listed["schema"] == "collab.list/1"
    assert [r["run_id"] for r in listed["runs"]] == [run_id]
    row = listed["runs"][0]
    assert set(row) >= {
        "run_id", "created", "topic", "preset", "rounds_done", "rounds", "status",
        "stop_reason", "cost_usd",
    }  # fmt: skip
    assert (row["topic"], row["status"], row["rounds_done"]) == (TOPIC, "done", 2)

    shown = cli("show", run_id, "--json")
    assert shown.code == 0
    assert shown.json() == doc
    assert cli("show", run_id, "--format", "json").json() == doc

    md = cli("show", run_id)
    assert md.code == 0
    assert md.out.startswith(f"# Debate: {TOPIC}")
    assert "A argues for tokens." in md.out and "the judge's scripted verdict" in md.out

    text = cli("list")  # the run by its short id, as every view shows it
    assert text.code == 0 and short_id(run_id, [run_id]) in text.out

    bad = cli("show", run_id, "--format", "xml")
    assert bad.code == 2 and "--format must be" in bad.err
    missing = cli("show", "20990101-000000-abcdef", "--json")
    assert missing.code == 2 and missing.json()["error"]["kind"] == "usage"
    done = cli("resume", run_id)
    assert done.code == 2 and "already finished" in done.err


def test_debate_text_output(cli: Cli, fake_agent: FakeAgent) -> None:
    """Without --json: the judge's summary on stdout, the chatter on stderr."""
    script_debate(fake_agent)
    res = cli("debate", TOPIC, "--agent", "fake", "--rounds", "2", *FAST)
    assert res.code == 0, res
    assert "the judge's scripted verdict" in res.out
    assert "A argues for tokens." in res.err and "B argues for sessions." in res.err
    assert "max-rounds" in res.err


def test_list_empty_text(cli: Cli) -> None:
    res = cli("list")
    assert res.code == 0
    assert "no runs yet" in res.err


# -- exit codes ---------------------------------------------------------------------------------


def test_exit_1_when_every_turn_fails(cli: Cli, fake_agent: FakeAgent) -> None:
    fake_agent.script([], {"exit": 1, "stderr": "agent exploded"})
    res = cli("debate", TOPIC, "--agent", "fake", "--rounds", "2", *FAST)
    assert res.code == 1
    assert "collab: run failed: every turn failed" in res.err
    res = cli("debate", TOPIC, "--agent", "fake", "--rounds", "2", "--json", *FAST)
    assert res.code == 1
    doc = res.json()
    assert doc["status"] == "failed"
    assert doc["resume"] == f"collab resume {doc['run_id']}"
    assert doc["judge"]["fallback"] is True


def test_exit_130_on_ctrl_c_then_resume(
    cli: Cli, fake_agent: FakeAgent, hermetic_env: Path
) -> None:
    """Ctrl-C while Role B thinks: exit 130, state interrupted; resume finishes the rest."""
    script_debate(fake_agent)
    rules = fake_agent.rules()
    rules[2]["replies"] = [{"hang": True}]
    fake_agent.script(rules, fresh=False)
    proc = cli.popen(
        "debate", TOPIC, "--agent", "fake", "--rounds", "2", "--opening", "sequential", *FAST,
        start_new_session=True,  # the signal goes to collab alone, like a terminal's Ctrl-C
        env={"COLUMNS": "200"},
    )  # fmt: skip
    try:
        assert wait_until(lambda: any(c["rule"] == 2 for c in fake_agent.calls()), 20), (
            "Role B never started"
        )
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    runs = list((hermetic_env / "runs").iterdir())
    assert len(runs) == 1
    run_id = runs[0].name
    assert f"collab resume {run_id}" in err.strip().splitlines()[-1]
    state = json.loads((runs[0] / "state.json").read_text())
    assert state["status"] == "interrupted"
    assert [(t["round_no"], t["side"]) for t in state["turns"]] == [(1, "A")]
    hung = [c["pid"] for c in fake_agent.calls() if c["rule"] == 2]
    assert wait_until(lambda: not any(Path(f"/proc/{p}").exists() for p in hung), 10)

    a_calls = sum(1 for c in fake_agent.calls() if c["rule"] == 1)
    rules[2]["replies"] = ["B answers now." + contract_block(stances=[("I1", "agree", "ok")])]
    fake_agent.script(rules, fresh=False)
    res = cli.process("resume", run_id, "--json")
    assert res.code == 0, res.err
    doc = res.json()
    assert doc["run_id"] == run_id and doc["status"] == "done"
    assert doc["turns"][0]["prose"] == "A argues for tokens."
    assert doc["turns"][1]["prose"] == "B answers now."
    # Round 1 of Role A was not asked again: only later rounds' A turns were added.
    new_a = sum(1 for c in fake_agent.calls() if c["rule"] == 1) - a_calls
    assert new_a == sum(1 for t in doc["turns"] if t["side"] == "A") - 1


# -- the command agent ----------------------------------------------------------------------------

COMMAND_AGENT = r"""
import json, sys
prompt = open(sys.argv[1], encoding="utf-8").read()
with open(sys.argv[3], "a", encoding="utf-8") as log:
    log.write(json.dumps({"model": sys.argv[2], "prompt_file": sys.argv[1]}) + "\n")
block = '\n\n```json\n{"new_points": %s, "stances": [], "abstain": null}\n```\n'
if "neutral judge" in prompt:
    print("## TL;DR\n- command agent judged it\n## Crux\n## Open disagreements\n## Minority report")
elif "(Role A) in a structured debate" in prompt:
    print("Command A speaks." + block % '[{"title": "From the command agent", "evidence": "x"}]')
else:
    print("Command B speaks." + block % "[]")
"""


def test_command_agent_with_model(cli: Cli, tmp_path: Path, hermetic_env: Path) -> None:
    script = tmp_path / "my agent.py"
    script.write_text(COMMAND_AGENT, encoding="utf-8")
    log = tmp_path / "calls.jsonl"
    template = shlex.join([sys.executable, str(script)]) + f" {{prompt_file}} {{model}} {log}"
    res = cli(
        "debate", TOPIC, "--agent", "command", "--agent-command", template,
        "--model", "my-model-7", "--rounds", "2", "--json", *FAST,
    )  # fmt: skip
    assert res.code == 0, res
    doc = res.json()
    assert doc["status"] == "done"
    assert doc["roles"]["A"] == {"name": "Advocate", "agent": "command", "model": "my-model-7"}
    assert doc["turns"][0]["prose"] == "Command A speaks."
    assert doc["turns"][1]["prose"] == "Command B speaks."
    assert [i["title"] for i in doc["ledger"]] == ["From the command agent"] * 2
    assert "command agent judged it" in doc["judge"]["markdown"]
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(calls) == 5  # 2 rounds x 2 sides + the judge
    assert {c["model"] for c in calls} == {"my-model-7"}
    assert all(Path(c["prompt_file"]).name.endswith(".prompt") for c in calls)
    state = json.loads(Path(doc["paths"]["state"]).read_text())
    assert state["config"]["agent_a"]["command"] == template


def test_command_agent_bad_template(cli: Cli) -> None:
    res = cli("debate", TOPIC, "--agent", "command", "--agent-command", "mycli 'unclosed")
    assert res.code == 2
    assert "--agent-command" in res.err


# -- config.toml [defaults] -----------------------------------------------------------------------


def add_defaults(home: Path, text: str) -> None:
    with (home / "config.toml").open("a", encoding="utf-8") as fh:
        fh.write("\n[defaults]\n" + text)


def test_config_defaults_apply_and_command_line_wins(
    cli: Cli, fake_agent: FakeAgent, hermetic_env: Path
) -> None:
    script_debate(fake_agent)
    add_defaults(hermetic_env, 'rounds = 2\nagent = "fake"\nrunner = "subprocess"\n')
    doc = cli("debate", TOPIC, "--json").json()
    assert doc["rounds"]["planned"] == 2
    assert {doc["roles"][s]["agent"] for s in ("A", "B", "judge")} == {"fake"}
    state = json.loads(Path(doc["paths"]["state"]).read_text())
    assert state["config"]["runner"] == "subprocess"

    doc = cli("debate", TOPIC, "--rounds", "3", "--agent-b", "fake-text", "--json").json()
    assert doc["status"] == "done"
    assert doc["rounds"]["planned"] == 3
    assert doc["roles"]["A"]["agent"] == "fake"
    assert doc["roles"]["B"]["agent"] == "fake-text"


def test_config_defaults_preset_replaced_by_custom_roles(
    cli: Cli, fake_agent: FakeAgent, hermetic_env: Path
) -> None:
    script_debate(fake_agent)
    add_defaults(hermetic_env, 'preset = "security-vs-performance"\nagent = "fake"\nrounds = 2\n')
    doc = cli("debate", TOPIC, "--json", *FAST).json()
    assert doc["preset"] == "security-vs-performance"
    assert doc["roles"]["A"]["name"] == "Security Engineer"
    doc = cli(
        "debate", TOPIC, "--role-a", "Tester: tests", "--role-b", "Critic: criticises",
        "--json", *FAST,
    ).json()  # fmt: skip
    assert doc["preset"] == "custom"
    assert (doc["roles"]["A"]["name"], doc["roles"]["B"]["name"]) == ("Tester", "Critic")


class ConfigCase(NamedTuple):
    test_id: str
    text: str
    message: str


CONFIG_CASES = [
    ConfigCase("not-toml", "[defaults\nrounds = 2\n", "cannot read"),
    ConfigCase("unknown-key", "[defaults]\nroundz = 2\n", "[defaults] unknown key 'roundz'"),
    ConfigCase(
        "wrong-type",
        '[defaults]\nrounds = "two"\n',
        "[defaults] rounds must be an integer, got str",
    ),
    ConfigCase("defaults-not-table", "defaults = 3\n", "[defaults] must be a table"),
    ConfigCase("bad-agent-table", "[agents.x]\nargv = []\n", "argv must be a non-empty list"),
    ConfigCase(
        "invalid-default-value", "[defaults]\nrounds = 9\n", "[defaults] rounds must be 1–7"
    ),
]


@pytest.mark.parametrize(
    list(ConfigCase._fields), CONFIG_CASES, ids=[c.test_id for c in CONFIG_CASES]
)
def test_malformed_config_exit_2(
    cli: Cli, hermetic_env: Path, test_id: str, text: str, message: str
) -> None:
    config = hermetic_env / "config.toml"
    config.write_text(text, encoding="utf-8")
    res = cli("debate", TOPIC, *FAST)
    assert res.code == 2
    lines = res.err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in res.err
    assert message in lines[0]
    assert not (hermetic_env / "runs").exists()
    doc = cli("debate", TOPIC, "--json", *FAST).json()
    assert doc["exit_code"] == 2 and message in doc["error"]["message"]


DEBATE_PROBE = """
import contextlib, io, json, sys
from collab.cli import main
out = io.StringIO()
with contextlib.suppress(SystemExit), contextlib.redirect_stdout(out):
    main(json.loads(sys.argv[1]))
requests = sys.modules.get("requests")
print(json.dumps({"doc": json.loads(out.getvalue()), "pydantic": "pydantic" in sys.modules,
                  "requests": type(requests).__name__ if requests else None}))
"""


def test_a_debate_loads_neither_pydantic_nor_requests(fake_agent: FakeAgent) -> None:
    """~24 MB of a debate's memory: typer's pydantic conversion of a plain number typed on
    the command line, and the ``requests`` detect-secrets imports for the verification
    collab never runs (still scanned: a secret in the topic is refused)."""
    script_debate(fake_agent)
    args = ["debate", TOPIC, "--agent", "fake", "--rounds", "2", "--max-cost", "5.5", *FAST,
            "--json"]  # fmt: skip
    res = subprocess.run(
        [sys.executable, "-c", DEBATE_PROBE, json.dumps(args)],
        capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    got = json.loads(res.stdout)
    assert got["doc"]["status"] == "done" and got["doc"]["rounds"]["planned"] == 2
    assert got["pydantic"] is False
    assert got["requests"] in (None, "_Deferred")


@pytest.mark.parametrize(("value", "shown"), [("03", 3), ("+2", 2), ("2.0", 2), (" 3", 3)])
def test_a_plain_number_on_the_command_line_is_read_as_typer_reads_it(
    cli: Cli, fake_agent: FakeAgent, value: str, shown: int
) -> None:
    script_debate(fake_agent)
    res = cli("debate", TOPIC, "--agent", "fake", "--rounds", value, *FAST, "--json")
    assert res.code == 0, res.err
    assert res.json()["rounds"]["planned"] == shown


@pytest.mark.parametrize("value", ["two", "2.5", "1e3"])
def test_a_number_typer_cannot_read_is_still_its_usage_error(cli: Cli, value: str) -> None:
    res = cli("debate", TOPIC, "--agent", "fake", "--rounds", value)
    assert res.code == 2 and "--rounds" in res.err and "Traceback" not in res.err
