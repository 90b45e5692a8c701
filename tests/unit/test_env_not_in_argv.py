"""No environment value is ever in what a turn puts on a command line: the argv of any
built-in agent in any setup, and every file the turn protocol writes besides the env file
(the script holds only generated paths; it reads the env file with bash builtins)."""

from __future__ import annotations

import itertools
import os
import stat
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from collab.agents import AGENT_SETUPS, TOOL_SETS, build_argv, build_env, load_agents
from collab.runners.base import TurnJob
from collab.runners.turnfiles import TurnDir


def _env() -> dict[str, str]:
    """Every variable of ours and the usual key names, each with a value found nowhere else."""
    names = {*os.environ, "ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "HOME",
             "CODEX_HOME", "PATH", "ANTHROPIC_BASE_URL", "OPENAI_BASE_URL"}  # fmt: skip
    return {name: f"v{i}-{uuid.uuid4().hex}" for i, name in enumerate(sorted(names))}


@pytest.fixture
def tdir() -> Iterator[TurnDir]:
    d = TurnDir()
    yield d
    d.cleanup()


def test_no_agent_argv_holds_an_env_value(tmp_path: Path) -> None:
    env = _env()
    agents = load_agents(tmp_path / "none.toml")
    assert agents
    for (name, spec), setup, tools in itertools.product(agents.items(), AGENT_SETUPS, TOOL_SETS):
        agent_env = build_env(spec, env)
        argv = build_argv(spec, spec.argv[0], "some-model", tmp_path / "p", setup=setup,
                          tools=tools, env=env)  # fmt: skip
        joined = "\0".join(argv)
        leaked = [k for k, v in agent_env.items() if v in joined]
        assert leaked == [], (name, setup, tools)


@pytest.mark.parametrize("view", [False, True])
def test_turn_files_hold_no_env_value_but_the_private_env_file(tdir: TurnDir, view: bool) -> None:
    env = _env()
    job = TurnJob(
        step="r1-A-1", argv=("agent", "--flag"), env=tuple(sorted(env.items())),
        prompt="the prompt", stdin_prompt=True, timeout=5, title="t", view=view,
    )  # fmt: skip
    script = tdir.write(job)
    env_file = tdir.file(job.step, "env")
    assert stat.S_IMODE(env_file.stat().st_mode) == 0o600
    assert set(env_file.read_bytes().split(b"\0")) >= {f"{k}={v}".encode() for k, v in env.items()}
    others = [f for f in tdir.path.iterdir() if f.is_file() and f != env_file]
    assert script in others
    for f in others:
        data = f.read_bytes()
        assert [k for k, v in env.items() if v.encode() in data] == [], f
    # The script never puts the environment on a command line: no env(1), no K=V words.
    text = script.read_text()
    assert "env -i" not in text and "exec -c" in text
