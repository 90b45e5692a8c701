"""Is what a run needs installed? ``collab doctor``: can the default path (claude in a tmux
pane) run here, and if not, why; :func:`check_prerequisites`: the same question asked of
one run's config before it starts (exit 3 and how to fix it if not)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from collab.agents import (
    CLAUDE_LOGIN_HINT,
    AgentSpec,
    build_argv,
    build_env,
    load_agents,
    resolve_binary,
    spec_for,
)
from collab.agents.catalogue import certainly_logged_out, interpret, stored_login
from collab.config import DebateConfig
from collab.errors import PrerequisiteError, StorageError
from collab.paths import collab_home
from collab.runners import check_runner
from collab.runners.probe import first_line, probe
from collab.state import stored_runs
from collab.store import make_private_dirs, runs_dir, storing, write_file

Level = Literal["ok", "warn", "fail", "info"]
LOW_SPACE = 10 * 1024 * 1024  # bytes: a warning below this much room in the data dir


@dataclass(frozen=True)
class Ready:
    """What the checks found, handed to the run: the agent catalogue and each seat's
    binary, loaded and resolved once per run."""

    agents: Mapping[str, AgentSpec]
    binaries: Mapping[str, str]  # agent name → absolute path


def check_prerequisites(
    cfg: DebateConfig,
    agents: Mapping[str, AgentSpec] | None = None,
    env: Mapping[str, str] | None = None,
) -> Ready:
    """Fail before anything starts when tmux or an agent CLI is missing, or an agent is
    certainly not logged in (where we cannot tell, the first call finds out). ``agents``:
    the catalogue already loaded (None: load it)."""
    known = load_agents() if agents is None else agents
    env = os.environ if env is None else env
    seats = [(c, spec_for(c.agent, c.command, known)) for c in (*cfg.agents, cfg.judge)]
    binaries: dict[str, str] = {}
    for _, spec in seats:  # a panel's seats often share an agent: each resolved once
        if spec.name not in binaries:
            binaries[spec.name] = resolve_binary(spec)
    check_runner(cfg.runner)
    for choice, spec in seats:
        if choice.command is None and certainly_logged_out(choice.agent, env):
            raise PrerequisiteError(
                f"{choice.agent}: no login or API key found", hint=spec.login_hint or None
            )
    return Ready(known, binaries)


@dataclass(frozen=True)
class Check:
    name: str
    level: Level
    detail: str
    fix: str = ""


def check_tmux() -> list[Check]:
    tmux = shutil.which("tmux")
    if not tmux:
        return [
            Check("tmux", "fail", "not found on PATH",
                  "install tmux (apt install tmux / brew install tmux), or use --runner subprocess")
        ]  # fmt: skip
    checks = [Check("tmux", "ok", first_line([tmux, "-V"]) or tmux)]
    inside = bool(os.environ.get("TMUX"))
    checks.append(
        Check("inside tmux", "info",
              "yes: debates split this window" if inside
              else "no: debates run in a detached session (collab prints how to attach)")
    )  # fmt: skip
    return checks


def check_shell() -> list[Check]:
    out = []
    for tool, pkg in (("bash", "bash"), ("setsid", "util-linux")):
        found = shutil.which(tool)
        out.append(
            Check(tool, "ok", found) if found
            else Check(tool, "fail", "not found on PATH", f"install {pkg}")
        )  # fmt: skip
    return out


def check_agent(spec: AgentSpec) -> Check:
    try:
        binary = resolve_binary(spec)
    except PrerequisiteError as exc:
        return Check(f"agent {spec.name}", "fail", exc.message, exc.hint or "")
    version = first_line([binary, *spec.version_argv])
    return Check(f"agent {spec.name}", "ok", f"{version or 'version unknown'} ({binary})")


def claude_login(env: Mapping[str, str] | None = None, home: Path | None = None) -> Check:
    """Best effort without spending a token: API keys, cloud providers, or a stored login."""
    env = dict(os.environ if env is None else env)
    if home is not None:
        env["HOME"] = str(home)
    where = stored_login("claude", env)
    if where is not None:
        return Check("claude login", "ok", where)
    if os.uname().sysname == "Darwin":
        return Check("claude login", "warn", "cannot tell (macOS keeps it in the Keychain)",
                     "collab doctor --live checks with one tiny call")  # fmt: skip
    return Check("claude login", "fail", "no login or API key found", CLAUDE_LOGIN_HINT)


def claude_live(spec: AgentSpec, binary: str, timeout: float = 60.0) -> Check:
    """One real, tiny call of the agent as a debate turn makes it: the only sure test of a
    login (costs a few tokens)."""
    argv = build_argv(spec, binary, None, Path(os.devnull))
    res = probe(
        argv, timeout=timeout, stdin_text="Reply with the single word: ok",
        env=build_env(spec, os.environ),
    )  # fmt: skip
    name = f"{spec.name} live call"
    if res.timed_out:
        return Check(name, "fail", f"no answer within {timeout:g}s")
    reply = interpret(spec, -1 if res.exit_code is None else res.exit_code, res.stdout, res.stderr)
    error = reply.error or ""
    if any(m in error for m in spec.login_failures):
        return Check(name, "fail", "Not logged in", spec.login_hint)
    if not reply.ok:
        return Check(name, "fail", error.splitlines()[0] if error else "no reply")
    return Check(name, "ok", "answered")


def check_data_dir() -> Check:
    """Can a run be stored: the runs dir made, a file written in it, some room left?"""
    home = collab_home()
    runs = home / "runs"
    try:
        with storing(runs, "create"):
            make_private_dirs(runs)
        probe_file = runs / f".doctor-{os.getpid()}"
        write_file(probe_file, "x" * 4096)
        probe_file.unlink()
    except StorageError as exc:
        return Check("data dir", "fail", exc.message, exc.hint or "")
    free = shutil.disk_usage(home).free
    if free < LOW_SPACE:
        fix = "free some space there, or set COLLAB_HOME to a directory with room"
        return Check("data dir", "warn", f"{home}: only {free // 1024} KiB free", fix)
    return Check("data dir", "ok", str(home))


def check_runs() -> list[Check]:
    """Runs collab cannot read: listed by ``collab list`` as damaged, never hidden."""
    try:
        runs = stored_runs()
    except StorageError:
        return []  # the data dir check says what is wrong
    damaged = [r for r in runs if r.damage is not None]
    if not damaged:
        return [Check("runs", "ok", f"{len(runs)} kept, none damaged")]
    return [
        Check(f"run {r.run_id}", "warn", f"damaged: {r.damage}",
              f"move {runs_dir() / r.run_id} away if it is not needed")
        for r in damaged
    ]  # fmt: skip


def run_checks(agents: Mapping[str, AgentSpec], seats: list[str], live: bool) -> list[Check]:
    checks = [*check_tmux(), *check_shell()]
    for name in dict.fromkeys(seats):
        spec = agents.get(name)
        if spec is None:
            checks.append(Check(f"agent {name}", "fail", "not a known agent"))
            continue
        agent_check = check_agent(spec)
        checks.append(agent_check)
        if name == "claude" and agent_check.level == "ok":
            checks.append(claude_login())
            if live:
                checks.append(claude_live(spec, resolve_binary(spec)))
    checks.append(check_data_dir())
    checks.extend(check_runs())
    return checks


def exit_code(checks: list[Check]) -> int:
    return 3 if any(c.level == "fail" for c in checks) else 0
