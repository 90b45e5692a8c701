"""tests/e2e: libtmux's pytest fixtures (``server``: an isolated tmux server for a test, and
what it is made from), taken from its plugin here, where tests use them. The plugin itself
is not loaded for every run (pyproject's addopts: ``-p no:libtmux``): tests/unit starts no
tmux, and importing libtmux was ~0.1 s of the unit suite's start, before it forks a worker
per core. tests/real/conftest.py takes the same fixtures."""

from __future__ import annotations

from libtmux.pytest_plugin import (
    TestServer,
    clear_env,
    config_file,
    control_mode,
    home_path,
    home_user_name,
    server,
    session,
    session_params,
    user_path,
    zshrc,
)

__all__ = [
    "TestServer",
    "clear_env",
    "config_file",
    "control_mode",
    "home_path",
    "home_user_name",
    "server",
    "session",
    "session_params",
    "user_path",
    "zshrc",
]
