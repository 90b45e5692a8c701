"""COLLAB_HOME, runs/ and batches/ are made 0700 whatever the umask; config.toml and the user's
preset and template folders are read only when no one else could have written them."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from tests.conftest import Cli, FakeAgent
from tests.helpers import Outcome


def _collab(cli: Cli, home: Path, *args: str, umask: int = 0o022) -> Outcome:
    def child() -> None:
        os.umask(umask)

    return cli.process(*args, env={"COLLAB_HOME": str(home)}, preexec_fn=child)


def _mode(p: Path) -> int:
    return stat.S_IMODE(p.stat().st_mode)


def test_home_runs_and_batches_are_private_under_umask_000(
    cli: Cli, fake_agent: FakeAgent, hermetic_env: Path, tmp_path: Path
) -> None:
    # The home holds the fake agent's config.toml, so it exists; runs/ and batches/ do not.
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    (home / "config.toml").write_text((hermetic_env / "config.toml").read_text())
    fresh = tmp_path / "data" / "collab"  # COLLAB_HOME itself made by collab
    _collab(cli, fresh, "doctor", "--json", umask=0)
    assert _mode(fresh) == 0o700 and _mode(fresh / "runs") == 0o700
    res = _collab(cli, home, "debate", "T", "--agent", "fake", "--rounds", "2", "--runner",
                  "subprocess", "--json", umask=0)  # fmt: skip
    assert res.code == 0, res.err
    run_dir = Path(json.loads(res.out)["paths"]["run_dir"])
    assert _mode(home / "runs") == 0o700 and _mode(run_dir) == 0o700
    topics = tmp_path / "t.txt"
    topics.write_text("T1\n")
    res = _collab(cli, home, "batch", str(topics), "--agent", "fake", "--rounds", "2", "--runner",
                  "subprocess", "--json", umask=0)  # fmt: skip
    assert res.code == 0, res.err
    assert _mode(home / "batches") == 0o700
    (batch,) = (home / "batches").iterdir()
    assert _mode(batch) == 0o700


@pytest.mark.parametrize("what", ["config-mode", "config-owner", "presets-mode", "templates-mode"])
def test_config_others_could_write_is_refused(
    cli: Cli, fake_agent: FakeAgent, hermetic_env: Path, what: str
) -> None:
    config = hermetic_env / "config.toml"
    if what == "config-mode":
        config.chmod(0o666)
        path, fix = config, f"chmod go-w {config}"
    elif what == "config-owner":
        if os.getuid() != 0:
            pytest.skip("only root can give a file to another user")
        os.chown(config, 4242, -1)
        path, fix = config, "chown"
    else:
        path = hermetic_env / what.split("-")[0]
        path.mkdir()
        path.chmod(0o777)
        fix = f"chmod go-w {path}"
    res = _collab(cli, hermetic_env, "debate", "T", "--agent", "fake", "--json")
    assert res.code == 2, res.err
    message = json.loads(res.out)["error"]["message"]
    assert message.startswith(str(path)) and fix in message, message
