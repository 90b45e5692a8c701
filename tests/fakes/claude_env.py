"""Locate the real Claude Code CLI and build the environment to run it offline.

Measured with claude 2.1.197 against ``FakeAnthropic``: a fresh, empty ``HOME`` is
enough (``-p`` shows no onboarding and no trust dialog, ``ANTHROPIC_API_KEY`` is used
without an approval prompt; the CLI writes ``~/.claude.json`` and ``~/.claude/`` by
itself). Any model name is accepted and forwarded verbatim (aliases are resolved:
``sonnet`` -> ``claude-sonnet-5``, ``haiku`` -> ``claude-haiku-4-5-20251001``,
``opus``/default -> ``claude-opus-4-8``).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path

__all__ = [
    "CLAUDE_ENV_UNSET",
    "DEFAULT_CLAUDE_PATH",
    "SKIP_REASON",
    "claude_binary",
    "claude_env",
    "claude_full_env",
    "claude_version",
]

DEFAULT_CLAUDE_PATH = Path("/opt/claude/node_modules/.bin/claude")
SKIP_REASON = "claude CLI not installed: npm install @anthropic-ai/claude-code"

# Variables that would redirect the CLI away from the fake (other credentials,
# providers, config dirs, proxies, pinned models) or make it think it is nested.
CLAUDE_ENV_UNSET: tuple[str, ...] = (
    "CLAUDECODE",
    "CLAUDE_CODE_ENTRYPOINT",
    "CLAUDE_CONFIG_DIR",
    "CLAUDE_CODE_OAUTH_TOKEN",
    "CLAUDE_CODE_USE_BEDROCK",
    "CLAUDE_CODE_USE_VERTEX",
    "CLAUDE_CODE_USE_FOUNDRY",
    "CLAUDE_CODE_SIMPLE",
    "ANTHROPIC_AUTH_TOKEN",
    "ANTHROPIC_MODEL",
    "ANTHROPIC_SMALL_FAST_MODEL",
    "ANTHROPIC_DEFAULT_OPUS_MODEL",
    "ANTHROPIC_DEFAULT_SONNET_MODEL",
    "ANTHROPIC_DEFAULT_HAIKU_MODEL",
    "ANTHROPIC_CUSTOM_HEADERS",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "http_proxy",
    "https_proxy",
    "all_proxy",
)

_VERSION_RE = re.compile(r"^\s*(\d+\.\d+\.\d+)\S*\s+\(Claude Code\)", re.MULTILINE)
_version_cache: dict[str, str | None] = {}


def claude_version(path: str | os.PathLike[str], timeout: float = 30.0) -> str | None:
    """``"2.1.197"`` if ``path`` is a working native claude binary, else None.

    The npm package installed with ``--ignore-scripts`` leaves only a placeholder
    stub at ``bin/claude.exe``; it does not print ``X.Y.Z (Claude Code)``.
    """
    key = os.path.realpath(path)
    if key in _version_cache:
        return _version_cache[key]
    version: str | None = None
    try:
        proc = subprocess.run(
            [os.fspath(path), "--version"],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=timeout,
            env={**os.environ, "DISABLE_AUTOUPDATER": "1"},
        )
    except (OSError, subprocess.SubprocessError):
        proc = None
    if proc is not None and proc.returncode == 0:
        found = _VERSION_RE.search(proc.stdout)
        version = found.group(1) if found else None
    _version_cache[key] = version
    return version


def claude_binary() -> str | None:
    """Path of the real claude CLI, or None when it is not installed.

    Order: ``$COLLAB_CLAUDE_BIN``, ``claude`` on PATH, ``/opt/claude/...``. A
    candidate counts only if ``--version`` works (the npm stub does not).
    """
    candidates: list[str] = []
    explicit = os.environ.get("COLLAB_CLAUDE_BIN")
    if explicit:
        candidates.append(explicit)
    on_path = shutil.which("claude")
    if on_path:
        candidates.append(on_path)
    if DEFAULT_CLAUDE_PATH.exists():
        candidates.append(str(DEFAULT_CLAUDE_PATH))
    for candidate in candidates:
        if os.access(candidate, os.X_OK) and claude_version(candidate):
            return candidate
    return None


def claude_env(base_url: str, home: Path) -> dict[str, str]:
    """Variables that make the real ``claude -p`` talk only to the fake at ``base_url``.

    ``home`` should be a fresh throwaway directory (it is created if missing). Merge
    into the parent environment *and* drop ``CLAUDE_ENV_UNSET`` (``claude_full_env``
    does both).
    """
    home.mkdir(parents=True, exist_ok=True)
    return {
        "ANTHROPIC_BASE_URL": base_url.rstrip("/"),
        "ANTHROPIC_API_KEY": "dummy",
        "HOME": str(home),
        # No telemetry, error reporting, update checks, release notes, model lists.
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_ERROR_REPORTING": "1",
        # Fail fast: one request per call (default is 10 retries, ~3 minutes).
        "CLAUDE_CODE_MAX_RETRIES": "0",
        "API_TIMEOUT_MS": "30000",
        # Never send 127.0.0.1 through a proxy inherited from the host.
        "NO_PROXY": "127.0.0.1,localhost",
        "no_proxy": "127.0.0.1,localhost",
    }


def claude_full_env(
    base_url: str, home: Path, base: Mapping[str, str] | None = None
) -> dict[str, str]:
    """A complete environment: ``base`` (default ``os.environ``) minus
    ``CLAUDE_ENV_UNSET``, plus ``claude_env(base_url, home)``."""
    env = dict(os.environ if base is None else base)
    for name in CLAUDE_ENV_UNSET:
        env.pop(name, None)
    env.update(claude_env(base_url, home))
    return env
