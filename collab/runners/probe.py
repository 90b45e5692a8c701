"""One short, bounded command for a quick check (a CLI's version, doctor's live call).

Not a turn: no pane, no turn files, no retries. stdin is the given text or closed.
"""

from __future__ import annotations

import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class ProbeResult:
    exit_code: int | None  # None: it could not start, or did not finish in time
    stdout: str
    stderr: str
    timed_out: bool = False


def probe(
    argv: Sequence[str],
    *,
    timeout: float,
    stdin_text: str | None = None,
    env: Mapping[str, str] | None = None,
) -> ProbeResult:
    try:
        res = subprocess.run(
            list(argv),
            input=stdin_text,
            stdin=subprocess.DEVNULL if stdin_text is None else None,
            capture_output=True,
            text=True,
            timeout=timeout,
            env=None if env is None else dict(env),
        )
    except subprocess.TimeoutExpired:
        return ProbeResult(None, "", "", timed_out=True)
    except OSError as exc:
        return ProbeResult(None, "", str(exc))
    return ProbeResult(res.returncode, res.stdout or "", res.stderr or "")


def first_line(argv: Sequence[str], timeout: float = 10.0) -> str | None:
    """The first line a command prints (e.g. ``tmux -V``), or None if it failed."""
    res = probe(argv, timeout=timeout)
    out = (res.stdout or res.stderr).strip().splitlines()
    return out[0].strip() if out and res.exit_code == 0 else None
