"""No environment value of an agent is ever on a process command line (ps, /proc/PID/cmdline
are readable by every local user): a poller reads every command line all through a debate,
on both runners, looking for a unique value only the environment holds."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from libtmux import Server

from tests.conftest import Cli, FakeAgent
from tests.helpers import CmdlinePoller


@pytest.mark.parametrize("runner", ["subprocess", "tmux"])
def test_no_env_value_on_any_command_line(
    cli: Cli, fake_agent: FakeAgent, tmp_path: Path, server: Server, runner: str
) -> None:
    value = f"probe-{uuid.uuid4().hex}"
    fake_agent.script([], "A reply.")
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = {
        "COLLAB_PROBE_KEY": value, "TMPDIR": str(tmp), "COLLAB_TMUX_SOCKET": str(server.socket_name)
    }  # fmt: skip
    with CmdlinePoller(value, "fake_agent.py") as poll:
        res = cli.process(
            "debate", "Probe topic", "--agent", "fake", "--rounds", "2", "--runner", runner,
            "--json", env=env, timeout=300,
        )  # fmt: skip
    assert res.code == 0, res.err
    assert poll.hits == []
    assert len(poll.agents_with_value) >= 2, (poll.scans, poll.agents_with_value)
