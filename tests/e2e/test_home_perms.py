"""COLLAB_HOME, runs/ and batches/ are made 0700 whatever the umask; config.toml and the user's
preset and template folders are read only when no one else could have written them."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import FakeAgent


def _collab(home: Path, *args: str, umask: int = 0o022) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ) | {"COLLAB_HOME": str(home)}

    def child() -> None:
        os.umask(umask)

    return subprocess.run(
        [sys.executable, "-m", "collab", *args], capture_output=True, text=True, env=env,
        timeout=120, preexec_fn=child, stdin=subprocess.DEVNULL,
    )  # fmt: skip


def _mode(p: Path) -> int:
    return stat.S_IMODE(p.stat().st_mode)


def test_home_runs_and_batches_are_private_under_umask_000(
    fake_agent: FakeAgent, hermetic_env: Path, tmp_path: Path
) -> None:
    # The home holds the fake agent's config.toml, so it exists; runs/ and batches/ do not.
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    (home / "config.toml").write_text((hermetic_env / "config.toml").read_text())
    fresh = tmp_path / "data" / "collab"  # COLLAB_HOME itself made by collab
    _collab(fresh, "doctor", "--json", umask=0)
    assert _mode(fresh) == 0o700 and _mode(fresh / "runs") == 0o700
    res = _collab(home, "debate", "T", "--agent", "fake", "--rounds", "2", "--runner",
                  "subprocess", "--json", umask=0)  # fmt: skip
    assert res.returncode == 0, res.stderr
    run_dir = Path(json.loads(res.stdout)["paths"]["run_dir"])
    assert _mode(home / "runs") == 0o700 and _mode(run_dir) == 0o700
    topics = tmp_path / "t.txt"
    topics.write_text("T1\n")
    res = _collab(home, "batch", str(topics), "--agent", "fake", "--rounds", "2", "--runner",
                  "subprocess", "--json", umask=0)  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert _mode(home / "batches") == 0o700
    (batch,) = (home / "batches").iterdir()
    assert _mode(batch) == 0o700


@pytest.mark.parametrize("what", ["config-mode", "config-owner", "presets-mode", "templates-mode"])
def test_config_others_could_write_is_refused(
    fake_agent: FakeAgent, hermetic_env: Path, what: str
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
    res = _collab(hermetic_env, "debate", "T", "--agent", "fake", "--json")
    assert res.returncode == 2, res.stderr
    message = json.loads(res.stdout)["error"]["message"]
    assert message.startswith(str(path)) and fix in message, message
