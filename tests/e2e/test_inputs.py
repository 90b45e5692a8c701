"""Bad input and missing prerequisites: one clear line, the right exit code, nothing started.

Every bad-input row must give exit 2, exactly one ``collab: …`` line on stderr (no
traceback), an empty stdout, and leave no trace: no run or batch directory under
COLLAB_HOME, no ``collab-*`` temp dir, no tmux server or session. With ``--json`` the
same error is exactly one ``collab.error/1`` document on stdout.

Missing prerequisites (F9) give exit 3 the same way; ``collab doctor`` reports each
prerequisite and exits 3 when the default path cannot run.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import pytest
from libtmux import Server

from collab.paths import builtin_dir
from tests.conftest import Cli, FakeAgent
from tests.helpers import needs_no_machine_login, wait_until

PRESET_KEYS = tuple(sorted(p.stem for p in builtin_dir("presets").glob("*.toml")))
TOPIC = "JWT vs sessions"


def tree(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


def processes_of(home: Path) -> set[int]:
    """Live processes started for this test: they inherited its COLLAB_HOME.

    (Other tests may run fake agents at the same time; only ours count.)
    """
    needle = f"COLLAB_HOME={home}\0".encode()
    found: set[int] = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if needle in (entry / "environ").read_bytes():
                found.add(int(entry.name))
        except OSError:
            continue
    return found


def tmux_sessions(server: Server) -> list[str]:
    if not server.is_alive():
        return []
    res = server.cmd("list-sessions", "-F", "#{session_name}")
    return list(res.stdout) if res.returncode == 0 else []


@pytest.fixture
def tmpdir_for_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Where a run's private temp dir would go, for this process and its children."""
    d = tmp_path / "tmp"
    d.mkdir()
    monkeypatch.setenv("TMPDIR", str(d))
    monkeypatch.setattr(tempfile, "tempdir", str(d))
    return d


@pytest.fixture
def watched(
    fake_agent: FakeAgent,
    hermetic_env: Path,
    tmpdir_for_runs: Path,
    server: Server,
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[Path]:
    """Fail the test if the command left anything behind."""
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.setenv("COLLAB_TMUX_SOCKET", str(server.socket_name))
    before = tree(hermetic_env)
    yield hermetic_env
    assert tree(hermetic_env) == before, "something was written under COLLAB_HOME"
    assert not (hermetic_env / "runs").exists()
    assert not (hermetic_env / "batches").exists()
    assert list(tmpdir_for_runs.iterdir()) == [], "a temp dir was created"
    assert tmux_sessions(server) == [], "a tmux session was started"
    assert wait_until(lambda: not processes_of(hermetic_env), 5), "a process was left running"


@pytest.fixture
def inputs(tmp_path: Path) -> Path:
    d = tmp_path / "inputs"
    d.mkdir()
    (d / "notes.txt").write_text("plain notes\n", encoding="utf-8")
    (d / "adir").mkdir()
    os.mkfifo(d / "fifo")
    (d / "binary.bin").write_bytes(b"PK\x03\x04\x00\x00binary\x00data")
    (d / "latin1.txt").write_bytes("café crème".encode("latin-1"))
    (d / "big.txt").write_text("x" * 150, encoding="utf-8")
    (d / "half1.txt").write_text("a" * 60, encoding="utf-8")
    (d / "half2.txt").write_text("b" * 60, encoding="utf-8")
    (d / "topics.txt").write_text("first topic\nsecond topic\n", encoding="utf-8")
    return d


# -- bad input ------------------------------------------------------------------------------

# The fake agent and the subprocess runner come first: if a row ever passed validation by
# mistake it would run a harmless fake debate (and fail the "nothing started" checks), not
# a real agent. A row's own options come later and win.
SAFE = ["--agent", "fake", "--runner", "subprocess", "--timeout", "10"]


class Case(NamedTuple):
    test_id: str
    argv: tuple[str, ...]  # "{d}" is the inputs dir
    message: str  # must be in the one line
    also: tuple[str, ...] = ()
    argv_ok: bool = True  # False: cannot be passed through a real argv (NUL)


def debate(*opts: str, topic: str = TOPIC) -> tuple[str, ...]:
    return ("debate", topic, *SAFE, *opts)


CASES = [
    Case("empty-topic", debate(topic=""), "the topic is empty"),
    Case("whitespace-topic", debate(topic=" \n\t  "), "the topic is empty"),
    Case("topic-too-long", debate(topic="x" * 2001), "the topic is 2001 characters"),
    Case("topic-nul", debate(topic="a\0b"), "NUL byte", argv_ok=False),
    Case("rounds-0", debate("--rounds", "0"), "--rounds must be 1–7, got 0"),
    Case("one-option", debate("--option", "only"), "--option takes 2–5 items when given, got 1"),
    Case(
        "six-options",
        debate(*[a for n in range(6) for a in ("--option", f"o{n}")]),
        "--option takes at most 5 items, got 6",
    ),
    Case("leaning-too-long", debate("--leaning", "x" * 1001), "--leaning is 1001 characters"),
    Case(
        "depth-xx",
        debate("--depth", "xx"),
        "--depth must be quick, standard, deep or auto, got 'xx'",
    ),
    Case(
        "quick-rounds-3",
        debate("--depth", "quick", "--rounds", "3"),
        "--depth quick is one round, got --rounds 3: leave out --rounds or give 1",
    ),
    Case(
        "rounds-1-deep",
        debate("--depth", "deep", "--rounds", "1"),
        "--rounds 1 is a quick run: use --depth quick, or --depth deep with --rounds 2 or more",
    ),
    Case(
        "quick-sequential",
        debate("--depth", "quick", "--opening", "sequential"),
        "--depth quick is the blind round alone: it does not take --opening sequential",
    ),
    Case("rounds-8", debate("--rounds", "8"), "--rounds must be 1–7, got 8"),
    Case("rounds-x", debate("--rounds", "x"), "Invalid value for '--rounds'"),
    Case(
        "unknown-preset",
        debate("--preset", "nope"),
        "unknown preset 'nope'; choose one of:",
        also=PRESET_KEYS,
    ),
    Case(
        "custom-role-no-description",
        debate("--role-a", "Tester", "--role-b", "Critic: finds faults"),
        "--role-a must look like 'Name: description'",
    ),
    Case(
        "custom-role-empty-description",
        debate("--role-a", "Tester:  ", "--role-b", "Critic: finds faults"),
        "--role-a has an empty description",
    ),
    Case(
        "only-role-a",
        debate("--role-a", "Tester: tests things"),
        "custom roles need both --role-a and --role-b",
    ),
    Case(
        "only-role-b",
        debate("--role-b", "Critic: finds faults"),
        "custom roles need both --role-a and --role-b",
    ),
    Case(
        "preset-and-roles",
        debate("--preset", "security-vs-performance", "--role-a", "A: a", "--role-b", "B: b"),
        "use either --preset or --role-a/--role-b",
    ),
    Case(
        "role-and-role-a",
        debate("--role", "A: a", "--role", "B: b", "--role-a", "X: x", "--role-b", "Y: y"),
        "use either --role or --role-a, not both",
    ),
    Case("one-role", debate("--role", "A: a"), "--role takes 2–5 items when given, got 1"),
    Case(
        "agent-and-agents",
        debate("--agent", "claude", "--agents", "claude,codex"),
        "use either --agents or --agent, not both",
    ),
    Case(
        "models-count",
        debate("--role", "A: a", "--role", "B: b", "--role", "C: c", "--models", "m1,m2"),
        "--models has 2 entries for 3 seats",
    ),
    Case(
        "quorum-too-big",
        debate("--role", "A: a", "--role", "B: b", "--role", "C: c", "--quorum", "3"),
        "--quorum 3 is more than the 2 seats",
    ),
    Case(
        "context-missing",
        debate("--context", "{d}/missing.txt"),
        "context file not found: {d}/missing.txt",
    ),
    Case(
        "context-directory",
        debate("--context", "{d}/adir"),
        "context path is a directory, not a file: {d}/adir",
    ),
    # A FIFO cannot be read as a file by anyone (and must not block the CLI); a chmod 000
    # file is test_context_unreadable_mode (as an unprivileged user when run as root).
    Case(
        "context-unreadable-fifo",
        debate("--context", "{d}/fifo"),
        "context path is not a regular file: {d}/fifo",
    ),
    Case(
        "context-binary",
        debate("--context", "{d}/binary.bin"),
        "context file looks binary (NUL bytes): {d}/binary.bin",
    ),
    Case(
        "context-not-utf8",
        debate("--context", "{d}/latin1.txt"),
        "context file is not UTF-8 text: {d}/latin1.txt",
    ),
    Case(
        "context-over-budget",
        debate("--context", "{d}/notes.txt", "--context", "{d}/big.txt", "--context-budget", "100"),
        "context file {d}/big.txt is 150 characters, over the context budget of 100",
    ),
    Case(
        "contexts-total-over-budget",
        debate(
            "--context", "{d}/half1.txt", "--context", "{d}/half2.txt", "--context-budget", "100"
        ),
        "context files total 120 characters, over the context budget of 100",
    ),
    Case(
        "unknown-agent",
        debate("--agent", "nope"),
        "unknown agent 'nope'; choose one of:",
        also=("claude", "fake", "command"),
    ),
    Case(
        "unknown-agent-b",
        debate("--agent-b", "nope"),
        "unknown agent 'nope'",
    ),
    Case(
        "command-agent-without-template",
        debate("--agent", "command"),
        "the command agent needs --agent-command",
    ),
    Case("timeout-zero", debate("--timeout", "0"), "--timeout must be a positive number"),
    Case("timeout-negative", debate("--timeout", "-5"), "--timeout must be a positive number"),
    Case(
        "judge-timeout-zero",
        debate("--judge-timeout", "0"),
        "--judge-timeout must be a positive number",
    ),
    Case("budget-zero", debate("--budget", "0"), "--budget must be a positive number"),
    Case("budget-negative", debate("--budget", "-1.5"), "--budget must be a positive number"),
    Case("timeout-not-a-number", debate("--timeout", "soon"), "Invalid value for '--timeout'"),
    Case("lang-xx", debate("--lang", "xx"), "--lang must be auto, en or ja, got 'xx'"),
    Case(
        "runner-xx",
        debate("--runner", "xx"),
        "--runner must be auto, tmux or subprocess, got 'xx'",
    ),
    Case("unknown-option", debate("--colour", "red"), "No such option: --colour"),
    Case("missing-topic", ("debate",), 'say what to debate: collab debate "TOPIC"'),
    Case(
        "batch-parallel-0",
        ("batch", "{d}/topics.txt", *SAFE, "--parallel", "0"),
        "--parallel must be 1–32, got 0",
    ),
    Case(
        "batch-rounds-8",
        ("batch", "{d}/topics.txt", *SAFE, "--rounds", "8"),
        "--rounds must be 1–7, got 8",
    ),
    Case(
        "batch-quick-rounds-2",
        ("batch", "{d}/topics.txt", *SAFE, "--depth", "quick", "--rounds", "2"),
        "depth quick is one round, got rounds 2: leave out rounds or give 1",
    ),
    Case("batch-file-missing", ("batch", "{d}/nope.txt", *SAFE), "topics file not found"),
]
IDS = [c.test_id for c in CASES]


def _argv(case: Case, d: Path) -> list[str]:
    return [a.replace("{d}", str(d)) for a in case.argv]


def _one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert "Traceback" not in err
    assert len(lines) == 1, f"expected one line on stderr, got:\n{err}"
    return lines[0]


@pytest.mark.parametrize(list(Case._fields), CASES, ids=IDS)
def test_bad_input(
    cli: Cli,
    watched: Path,
    inputs: Path,
    test_id: str,
    argv: tuple[str, ...],
    message: str,
    also: tuple[str, ...],
    argv_ok: bool,
) -> None:
    case = Case(test_id, argv, message, also, argv_ok)
    res = cli(*_argv(case, inputs))
    assert res.code == 2, res
    assert res.out == ""
    line = _one_line(res.err)
    assert line.startswith("collab: ")
    assert message.replace("{d}", str(inputs)) in line
    for word in also:
        assert word in line


@pytest.mark.parametrize(list(Case._fields), CASES, ids=IDS)
def test_bad_input_json(
    cli: Cli,
    watched: Path,
    inputs: Path,
    test_id: str,
    argv: tuple[str, ...],
    message: str,
    also: tuple[str, ...],
    argv_ok: bool,
) -> None:
    case = Case(test_id, argv, message, also, argv_ok)
    res = cli(*_argv(case, inputs), "--json")
    assert res.code == 2
    assert res.err == ""
    doc = json.loads(res.out)  # exactly one document: the whole of stdout parses
    assert doc["schema"] == "collab.error/1"
    assert doc["exit_code"] == 2
    assert doc["error"]["kind"] == "usage"
    assert message.replace("{d}", str(inputs)) in doc["error"]["message"]


SUBPROCESS_ROWS = ["rounds-x", "unknown-preset", "context-binary", "only-role-a", "lang-xx"]


@pytest.mark.parametrize("test_id", SUBPROCESS_ROWS)
def test_bad_input_real_process(cli: Cli, watched: Path, inputs: Path, test_id: str) -> None:
    """The real entry point (``python -m collab``): no traceback, one line, exit 2."""
    case = next(c for c in CASES if c.test_id == test_id)
    res = cli.process(*_argv(case, inputs), replace_env=dict(os.environ))
    assert res.code == 2
    assert res.out == ""
    line = _one_line(res.err)
    assert message_in(case, inputs, line)


def message_in(case: Case, d: Path, line: str) -> bool:
    return case.message.replace("{d}", str(d)) in line and all(w in line for w in case.also)


def test_context_unreadable_mode(cli: Cli, watched: Path, inputs: Path) -> None:
    """A chmod 000 context file: exit 2, one line, nothing started. Root reads such a file
    anyway (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH), and CI runs as root: then collab runs
    as a root without those two capabilities (setpriv, util-linux), which the kernel holds
    to the file's mode like anyone else; so this row runs everywhere. Mutant killed (the
    skipped row could not see it in CI): ``load_context`` letting the OSError through."""
    secret = inputs / "secret.txt"
    secret.write_text("hidden", encoding="utf-8")
    secret.chmod(0)
    argv = cli.argv("debate", TOPIC, *SAFE, "--context", str(secret))
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        assert setpriv, "setpriv (util-linux) is needed to drop root's file-mode override"
        argv = [setpriv, "--bounding-set=-dac_override,-dac_read_search", *argv]
    res = subprocess.run(argv, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert res.returncode == 2, res
    assert res.stdout == ""
    line = _one_line(res.stderr)
    assert line == f"collab: cannot read context file {secret}: Permission denied"


def test_malformed_batch_file_reports_line(cli: Cli, watched: Path, tmp_path: Path) -> None:
    topics = tmp_path / "topics.jsonl"
    topics.write_text('{"topic": "fine"}\n\n{"topic": broken}\n', encoding="utf-8")
    res = cli("batch", str(topics), *SAFE)
    assert res.code == 2
    assert f"{topics}:3: invalid JSON" in _one_line(res.err)


# -- missing prerequisites (F9) ---------------------------------------------------------------

FAKE_CLAUDE = '#!/bin/sh\necho "2.1.0 (Claude Code)"\n'


def bin_dir(root: Path, tools: tuple[str, ...], claude: bool) -> Path:
    """A PATH with only ``tools`` (symlinks to the real ones) and maybe a fake claude."""
    d = root / "bin"
    d.mkdir()
    for tool in tools:
        real = subprocess.run(
            ["/bin/sh", "-c", f"command -v {tool}"], capture_output=True, text=True, check=True
        ).stdout.strip()
        (d / tool).symlink_to(real)
    if claude:
        (d / "claude").write_text(FAKE_CLAUDE, encoding="utf-8")
        (d / "claude").chmod(0o755)
    return d


def prereq_env(path: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = str(path)
    env.pop("COLLAB_CLAUDE_BIN", None)
    return env


class PrereqCase(NamedTuple):
    test_id: str
    tools: tuple[str, ...]
    claude: bool
    args: tuple[str, ...]
    message: str


SHELL_TOOLS = ("bash", "setsid", "env", "mkdir", "mv")
PREREQ_CASES = [
    PrereqCase(
        "no-claude-cli",
        (*SHELL_TOOLS, "tmux"),
        False,
        ("debate", TOPIC),
        "agent CLI 'claude' not found on PATH (npm install -g @anthropic-ai/claude-code",
    ),
    PrereqCase(
        "no-claude-cli-for-the-judge-only",
        (*SHELL_TOOLS, "tmux"),
        False,
        ("debate", TOPIC, "--agent", "fake", "--judge-agent", "claude"),
        "agent CLI 'claude' not found on PATH",
    ),
    PrereqCase(
        "runner-tmux-without-tmux",
        SHELL_TOOLS,
        True,
        ("debate", TOPIC, "--runner", "tmux"),
        "tmux not found on PATH (install tmux, or use --runner subprocess)",
    ),
    PrereqCase(
        "no-setsid",
        ("bash", "env", "tmux"),
        True,
        ("debate", TOPIC),
        "setsid not found on PATH",
    ),
    PrereqCase(
        "command-agent-binary-missing",
        (*SHELL_TOOLS, "tmux"),
        True,
        ("debate", TOPIC, "--agent", "command", "--agent-command", "no-such-cli {prompt_file}"),
        "agent CLI 'no-such-cli' not found on PATH",
    ),
    PrereqCase(
        "batch-no-claude-cli",
        (*SHELL_TOOLS, "tmux"),
        False,
        ("batch", "{d}/topics.txt"),
        "agent CLI 'claude' not found on PATH",
    ),
]


@pytest.mark.parametrize(
    list(PrereqCase._fields), PREREQ_CASES, ids=[c.test_id for c in PREREQ_CASES]
)
def test_missing_prerequisite_exit_3(
    cli: Cli,
    watched: Path,
    inputs: Path,
    tmp_path: Path,
    test_id: str,
    tools: tuple[str, ...],
    claude: bool,
    args: tuple[str, ...],
    message: str,
) -> None:
    path = bin_dir(tmp_path, tools, claude)
    argv = [a.replace("{d}", str(inputs)) for a in args]
    res = cli.process(*argv, replace_env=prereq_env(path))
    assert res.code == 3, res
    assert res.out == ""
    line = _one_line(res.err)
    assert message in line


def test_missing_prerequisite_json(cli: Cli, watched: Path, tmp_path: Path) -> None:
    path = bin_dir(tmp_path, (*SHELL_TOOLS, "tmux"), claude=False)
    res = cli.process("debate", TOPIC, "--json", replace_env=prereq_env(path))
    assert res.code == 3
    doc = json.loads(res.out)
    assert doc["schema"] == "collab.error/1"
    assert doc["exit_code"] == 3
    assert doc["error"]["kind"] == "prerequisite"
    assert "agent CLI 'claude' not found on PATH" in doc["error"]["message"]


# -- collab doctor -------------------------------------------------------------------------------

LOGIN_VARS = (
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "CLAUDE_CODE_OAUTH_TOKEN",
    "CLAUDE_CODE_USE_BEDROCK",
    "CLAUDE_CODE_USE_VERTEX",
    "CLAUDE_CONFIG_DIR",
    "COLLAB_CLAUDE_BIN",
)


class DoctorCase(NamedTuple):
    test_id: str
    tools: tuple[str, ...]
    claude: bool
    credentials: bool
    api_key: bool
    exit_code: int
    levels: dict[str, str]  # check name -> expected level; None-level means absent


ALL_TOOLS = ("bash", "setsid", "tmux")
DOCTOR_CASES = [
    DoctorCase(
        "ready-with-stored-login",
        ALL_TOOLS,
        True,
        True,
        False,
        0,
        {"tmux": "ok", "bash": "ok", "setsid": "ok", "agent claude": "ok", "claude login": "ok"},
    ),
    DoctorCase(
        "ready-with-api-key",
        ALL_TOOLS,
        True,
        False,
        True,
        0,
        {"agent claude": "ok", "claude login": "ok"},
    ),
    DoctorCase(
        "not-logged-in",
        ALL_TOOLS,
        True,
        False,
        False,
        3,
        {"agent claude": "ok", "claude login": "fail"},
    ),
    DoctorCase(
        "no-claude-cli",
        ALL_TOOLS,
        False,
        True,
        True,
        3,
        {"agent claude": "fail", "claude login": "absent"},
    ),
    DoctorCase("no-tmux", ("bash", "setsid"), True, True, False, 3, {"tmux": "fail"}),
    DoctorCase("no-setsid", ("bash", "tmux"), True, True, False, 3, {"setsid": "fail"}),
    DoctorCase("no-bash", ("setsid", "tmux"), True, True, False, 3, {"bash": "fail"}),
]


@pytest.fixture
def doctor_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for var in LOGIN_VARS:
        monkeypatch.delenv(var, raising=False)
    return home


def doctor_env(path: Path, api_key: bool) -> dict[str, str]:
    env = prereq_env(path)
    if api_key:
        env["ANTHROPIC_API_KEY"] = "sk-test-not-a-key"
    return env


@pytest.mark.parametrize(
    list(DoctorCase._fields), DOCTOR_CASES, ids=[c.test_id for c in DOCTOR_CASES]
)
def test_doctor(
    cli: Cli,
    doctor_home: Path,
    tmp_path: Path,
    hermetic_env: Path,
    test_id: str,
    tools: tuple[str, ...],
    claude: bool,
    credentials: bool,
    api_key: bool,
    exit_code: int,
    levels: dict[str, str],
) -> None:
    if levels.get("claude login") == "fail":
        needs_no_machine_login()
    if credentials:
        (doctor_home / ".claude").mkdir()
        (doctor_home / ".claude" / ".credentials.json").write_text("{}", encoding="utf-8")
    path = bin_dir(tmp_path, tools, claude)
    res = cli.process("doctor", "--json", replace_env=doctor_env(path, api_key))
    assert res.code == exit_code, res
    doc = json.loads(res.out)
    assert doc["schema"] == "collab.doctor/1"
    assert doc["ok"] is (exit_code == 0)
    for check in doc["checks"]:
        assert set(check) == {"name", "level", "detail", "fix"}
        assert check["level"] in ("ok", "warn", "fail", "info")
        if check["level"] == "fail":
            assert check["fix"] or check["name"] == "claude live call", check
    by_name = {c["name"]: c for c in doc["checks"]}
    for name, level in levels.items():
        if level == "absent":
            assert name not in by_name
        else:
            assert by_name[name]["level"] == level, by_name.get(name)
    assert by_name["data dir"] == {
        "name": "data dir",
        "level": "ok",
        "detail": str(hermetic_env),
        "fix": "",
    }
    if claude and "agent claude" in by_name:
        assert "2.1.0 (Claude Code)" in by_name["agent claude"]["detail"]
    if levels.get("claude login") == "ok":
        expected = "ANTHROPIC_API_KEY is set" if api_key else "credentials in"
        assert expected in by_name["claude login"]["detail"]


def test_doctor_text_mode(cli: Cli, doctor_home: Path, tmp_path: Path) -> None:
    needs_no_machine_login()
    path = bin_dir(tmp_path, ALL_TOOLS, claude=True)
    env = doctor_env(path, api_key=False) | {"COLUMNS": "200"}
    res = cli.process("doctor", replace_env=env)
    assert res.code == 3
    assert "claude login" in res.out and "no login or API key found" in res.out
    line = _one_line(res.err)
    assert line == "collab: the default path cannot run here; see the fixes above"

    res = cli.process("doctor", replace_env=env | {"ANTHROPIC_API_KEY": "sk-test"})
    assert res.code == 0, res
    assert res.err == ""
    assert "ANTHROPIC_API_KEY is set" in res.out
