"""No environment value of an agent is ever on a process command line (ps, /proc/PID/cmdline
are readable by every local user): a poller reads every command line all through a debate,
on both runners, looking for a unique value only the environment holds."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from libtmux import Server

from tests.conftest import FakeAgent
from tests.helpers import CmdlinePoller


@pytest.mark.parametrize("runner", ["subprocess", "tmux"])
def test_no_env_value_on_any_command_line(
    fake_agent: FakeAgent, tmp_path: Path, server: Server, runner: str
) -> None:
    value = f"probe-{uuid.uuid4().hex}"
    fake_agent.script([], "A reply.")
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = dict(os.environ) | {
        "COLLAB_PROBE_KEY": value, "TMPDIR": str(tmp), "COLLAB_TMUX_SOCKET": str(server.socket_name)
    }  # fmt: skip
    with CmdlinePoller(value, "fake_agent.py") as poll:
        res = subprocess.run(
            [sys.executable, "-m", "collab", "debate", "Probe topic", "--agent", "fake",
             "--rounds", "2", "--runner", runner, "--json"],
            capture_output=True, text=True, env=env, timeout=300, stdin=subprocess.DEVNULL,
        )  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert poll.hits == []
    assert len(poll.agents_with_value) >= 2, (poll.scans, poll.agents_with_value)
