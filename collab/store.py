"""Runs on disk: ``$COLLAB_HOME/runs/<id>/state.json`` written atomically after every turn.

A run directory also holds ``lock`` (an fcntl lock held by the one process driving the
run), and at the end ``transcript.md`` and ``judge.md``.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import secrets
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from collab.errors import RunLockedError, UsageError
from collab.paths import collab_home

SCHEMA_VERSION = 1


def new_run_id() -> str:
    """Sortable by time, unique across parallel runs: ``20261130-101502-3fa9c1``."""
    return time.strftime("%Y%m%d-%H%M%S") + "-" + secrets.token_hex(3)


def runs_dir() -> Path:
    return collab_home() / "runs"


def atomic_write(path: Path, text: str) -> None:
    """Write-then-rename so a reader (or a crash) never sees half a file."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


class RunDir:
    def __init__(self, run_id: str, root: Path | None = None) -> None:
        if not _valid_id(run_id):
            raise UsageError(f"not a run id: {run_id!r}")
        self.run_id = run_id
        self.path = (root or runs_dir()) / run_id
        self._lock: IO[str] | None = None

    @property
    def state_path(self) -> Path:
        return self.path / "state.json"

    def exists(self) -> bool:
        return self.state_path.is_file()

    def create(self) -> None:
        self.path.mkdir(parents=True, exist_ok=False, mode=0o700)

    def save(self, state: dict[str, object]) -> None:
        state["schema_version"] = SCHEMA_VERSION
        state["updated"] = _now()
        atomic_write(self.state_path, json.dumps(state, ensure_ascii=False, indent=1))

    def load(self) -> dict[str, object]:
        if not self.exists():
            raise UsageError(f"no run with id {self.run_id} (looked in {self.path.parent})")
        try:
            data = json.loads(self.state_path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise UsageError(f"run {self.run_id}: state.json unreadable: {exc}") from None
        if not isinstance(data, dict):
            raise UsageError(f"run {self.run_id}: state.json is not an object")
        version = data.get("schema_version")
        if version != SCHEMA_VERSION:
            raise UsageError(
                f"run {self.run_id}: schema_version {version} is not supported by this collab"
            )
        return data

    def write_text(self, name: str, text: str) -> Path:
        path = self.path / name
        atomic_write(path, text)
        return path

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the run's lock; a second driver gets a clear error instead of a race."""
        self.path.mkdir(parents=True, exist_ok=True, mode=0o700)
        fh = open(self.path / "lock", "a+", encoding="utf-8")  # noqa: SIM115
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            fh.close()
            raise RunLockedError(
                f"run {self.run_id} is being driven by another collab process"
            ) from None
        try:
            fh.seek(0)
            fh.truncate()
            fh.write(f"{os.getpid()}\n")
            fh.flush()
            yield
        finally:
            fh.close()


def list_runs(root: Path | None = None) -> list[dict[str, object]]:
    """Every readable run's state, newest first; unreadable ones are skipped."""
    base = root or runs_dir()
    if not base.is_dir():
        return []
    out: list[dict[str, object]] = []
    for entry in sorted(base.iterdir(), reverse=True):
        if not entry.is_dir() or not _valid_id(entry.name):
            continue
        try:
            out.append(RunDir(entry.name, base).load())
        except UsageError:
            continue
    out.sort(key=lambda s: (_num(s.get("created_ts")), str(s.get("run_id"))), reverse=True)
    return out


def _num(v: object) -> float:
    return float(v) if isinstance(v, int | float) else 0.0


def _valid_id(run_id: str) -> bool:
    return bool(run_id) and len(run_id) <= 64 and all(c.isalnum() or c in "-_" for c in run_id)


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")
