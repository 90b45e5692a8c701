"""A run's driver as a process of its own (``--detach``, the MCP server): started in a
new session so that it outlives whoever started it, and stopped like Ctrl-C."""

from __future__ import annotations

import contextlib
import os
import signal
import site
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path


def spawn_driver(
    run_id: str, log_path: Path, cwd: Path | None, env: Mapping[str, str] | None
) -> subprocess.Popen[bytes]:
    """``python -m collab.detached RUN_ID``, its output in ``log_path``."""
    log = open(log_path, "ab")  # noqa: SIM115 - handed to the child
    try:
        # -P: a ./collab directory in the working directory (the client's project) must
        # not stand in for this package; the package is found where it was found here.
        return subprocess.Popen(
            [sys.executable, "-P", "-m", "collab.detached", run_id],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            cwd=cwd,
            env=_child_env(os.environ if env is None else env),
            start_new_session=True,
            close_fds=True,
        )
    finally:
        log.close()


def stop_driver(pid: int) -> None:
    """SIGTERM: the driver saves its state and lets go, as on Ctrl-C."""
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)


def _child_env(env: Mapping[str, str]) -> dict[str, str]:
    out = dict(env)
    root = str(Path(__file__).resolve().parents[2])
    if root not in {*site.getsitepackages(), site.getusersitepackages()}:
        # A source checkout (or PYTHONPATH) install: say where the package is.
        out["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    return out
