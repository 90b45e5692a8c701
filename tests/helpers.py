"""Small helpers shared by tests: poll a condition with a deadline, never a bare sleep."""

from __future__ import annotations

import functools
import io
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, NamedTuple

# What a test must not inherit: a tmux or Claude Code session it runs inside.
LEAKY = ("TMUX", "TMUX_PANE", "CLAUDECODE", "CLAUDE_CODE_ENTRYPOINT", "COLLAB_TMUX_SOCKET")


def wait_until(pred: Callable[[], bool], timeout: float = 10.0, every: float = 0.01) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(every)
    return pred()


def machine_login() -> str | None:
    """Where this machine gives every user a Claude Code login (its managed settings,
    /etc/claude-code, which every claude reads whatever its HOME and environment), or None."""
    from collab.agents.catalogue import stored_login

    with tempfile.TemporaryDirectory() as home:
        return stored_login("claude", {"HOME": home})


def needs_no_machine_login() -> None:
    """Skips a test of "no login at all" on a machine that gives every user one: no HOME or
    environment a test makes can take it away."""
    import pytest

    where = machine_login()
    if where is not None:
        pytest.skip(f"this machine gives every user a claude login: {where}")


# id(schema) -> (schema, its validator): each schema checked against its metaschema once.
_VALIDATORS: dict[int, tuple[Mapping[str, Any], Any]] = {}


def schema_validate(doc: object, schema: Mapping[str, Any]) -> None:
    """``jsonschema.validate(doc, schema)`` (the same checks, the same best-match error),
    but the schema itself is checked against its metaschema once per session rather
    than on every call: that check was ~95 % of the time of a validation."""
    from jsonschema.exceptions import best_match
    from jsonschema.validators import validator_for

    hit = _VALIDATORS.get(id(schema))
    if hit is None or hit[0] is not schema:
        cls = validator_for(schema)
        cls.check_schema(schema)
        hit = _VALIDATORS[id(schema)] = (schema, cls(schema))
    error = best_match(hit[1].iter_errors(doc))
    if error is not None:
        raise error


@functools.cache
def whole_command() -> Any:
    """``collab.cli.app`` as the click command typer makes of it, made once a session:
    typer's ``CliRunner.invoke(app)`` makes it anew on every call (every command's
    options, ~50 ms); ``click.testing.CliRunner().invoke(whole_command(), ...)`` runs
    the same command the same way."""
    from typer.main import get_command

    from collab.cli import app

    return get_command(app)


def pid_alive(pid: int) -> bool:
    """True for a live, non-zombie process."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2 :].split()[0] != "Z"


def env_tuple(**extra: str) -> tuple[tuple[str, str], ...]:
    env = dict(os.environ)
    env.update(extra)
    return tuple(sorted(env.items()))


def processes_of(home: Path) -> set[int]:
    """Live processes started for this test (they inherited its COLLAB_HOME), minus the
    tmux server, which the ``server`` fixture reaps. Other tests' fakes don't count."""
    needle = f"COLLAB_HOME={home}\0".encode()
    found: set[int] = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            environ = (entry / "environ").read_bytes()
            comm = (entry / "comm").read_text().strip()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if needle in environ and not comm.startswith("tmux") and state != "Z":
            found.add(int(entry.name))
    return found


# The presets collab ships (DESIGN §3: ten pairs; issue 20: three panels): what the tests
# expect, written down once.
PRESET_KEYS = (
    "advocate-vs-devils-advocate",
    "security-vs-performance",
    "security-vs-delivery",
    "pragmatist-vs-purist",
    "frontend-vs-backend",
    "maintainer-vs-innovator",
    "user-vs-developer",
    "simplicity-vs-scalability",
    "cost-vs-reliability",
    "product-vs-tech-debt",
    "architecture-review",
    "build-vs-buy",
    "launch-readiness",
)
# The panels among them: 3–5 seats (``[[seats]]``); every other one is a pair.
PANEL_PRESET_KEYS = ("architecture-review", "build-vs-buy", "launch-readiness")


class CmdlinePoller:
    """A thread that reads every ``/proc/*/cmdline`` again and again while a test runs: the
    command lines holding ``needle`` (must stay empty), and how many processes whose
    command line holds ``agent`` it saw with ``needle`` in their environment (proof that
    it looked while the agents ran, and that the value did reach them)."""

    def __init__(self, needle: str, agent: str) -> None:
        import threading

        self.needle = needle.encode()
        self.agent = agent.encode()
        self.hits: list[str] = []
        self.agents_with_value: set[int] = set()
        self.scans = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> CmdlinePoller:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.is_set():
            for entry in Path("/proc").iterdir():
                if not entry.name.isdigit():
                    continue
                try:
                    cmdline = (entry / "cmdline").read_bytes()
                except OSError:
                    continue
                if self.needle in cmdline:
                    self.hits.append(cmdline.replace(b"\0", b" ").decode(errors="replace"))
                if self.agent in cmdline:
                    try:
                        if self.needle in (entry / "environ").read_bytes():
                            self.agents_with_value.add(int(entry.name))
                    except OSError:
                        pass
            self.scans += 1


# What a scripted Judge writes after its TL;DR: the other sections every answer must
# have (collab.judge.answer.REQUIRED_SECTIONS), so that it is not a failed Judge. Mentions no
# issue id: collab's line for the open issues a summary skipped is still added.
JUDGE_REST = (
    "\n\n## Crux\n- Which cost matters more here?"
    "\n\n## Open disagreements\n- As the ledger lists them."
    "\n\n## Minority report\n- The other side's best case stands."
)
JUDGE_REST_JA = (
    "\n\n## 争点の核心\n- 何を優先するか。"
    "\n\n## 未解決の対立点\n- 台帳のとおり。"
    "\n\n## 少数意見\n- 相手側の最良の論拠。"
)


class Outcome(NamedTuple):
    """What one ``collab ARGS`` did: its exit code, stdout and stderr (text)."""

    code: int
    out: str
    err: str

    def json(self) -> Any:
        """Stdout as the one JSON document ``--json`` prints."""
        return json.loads(self.out)


def _exit_code(exc: SystemExit) -> int:
    if exc.code is None:
        return 0
    return exc.code if isinstance(exc.code, int) else 1


class Cli:
    """The one way tests run the command line (the ``cli`` fixture in tests/conftest.py).

    ``cli("list", "--json")`` runs ``collab.cli.main`` in this process (stdout/stderr
    captured); ``cli.process(...)`` runs ``python -m collab`` as its own process with the
    same arguments and the same :class:`Outcome`, for what only a process shows (signals,
    exit codes of the interpreter, inherited fds, ``/proc``); ``cli.popen(...)`` starts one
    and hands the :class:`subprocess.Popen` back for a test that talks to it while it runs.
    ``stdin``, ``env`` (added to the test's environment) and ``cwd`` work on every form.
    """

    def __init__(self, capsys: Any, monkeypatch: Any) -> None:
        self._capsys = capsys
        self._monkeypatch = monkeypatch

    def __call__(
        self,
        *argv: str,
        stdin: str | None = None,
        env: Mapping[str, str] | None = None,
        cwd: Path | None = None,
    ) -> Outcome:
        # imported here, not at the top: every test imports tests/helpers.py, and most
        # never run the command line
        from collab.cli import main

        with self._monkeypatch.context() as mp:
            for key, value in (env or {}).items():
                mp.setenv(key, value)
            if cwd is not None:
                mp.chdir(cwd)
            if stdin is not None:
                mp.setattr(sys, "stdin", io.StringIO(stdin))
            self._capsys.readouterr()
            try:
                main(list(argv))
            except SystemExit as exc:
                code = _exit_code(exc)
            else:
                code = 0
            cap = self._capsys.readouterr()
        return Outcome(code, cap.out, cap.err)

    @staticmethod
    def argv(*args: str) -> list[str]:
        """The command line of ``collab ARGS`` as its own process (this interpreter)."""
        return [sys.executable, "-m", "collab", *args]

    @staticmethod
    def _env(env: Mapping[str, str] | None) -> dict[str, str]:
        return {**os.environ, **(env or {})}

    def process(
        self,
        *argv: str,
        stdin: str | None = None,
        env: Mapping[str, str] | None = None,
        cwd: Path | None = None,
        timeout: float = 120.0,
        replace_env: Mapping[str, str] | None = None,
        **popen: Any,
    ) -> Outcome:
        """``collab ARGS`` as its own process; ``replace_env`` is the whole environment,
        ``popen`` more of ``subprocess.run``'s arguments (``preexec_fn``, …)."""
        proc = subprocess.run(
            self.argv(*argv),
            input=stdin,
            stdin=None if stdin is not None else subprocess.DEVNULL,
            capture_output=True,
            text=True,
            env=dict(replace_env) if replace_env is not None else self._env(env),
            cwd=cwd,
            timeout=timeout,
            **popen,
        )
        return Outcome(proc.returncode, proc.stdout, proc.stderr)

    def popen(
        self,
        *argv: str,
        env: Mapping[str, str] | None = None,
        cwd: Path | None = None,
        **kwargs: Any,
    ) -> subprocess.Popen[str]:
        """``collab ARGS`` started as its own process (text pipes unless ``kwargs`` say)."""
        options: dict[str, Any] = {
            "stdin": subprocess.DEVNULL,
            "stdout": subprocess.PIPE,
            "stderr": subprocess.PIPE,
            "text": True,
        }
        options.update(kwargs)
        return subprocess.Popen(self.argv(*argv), env=self._env(env), cwd=cwd, **options)
