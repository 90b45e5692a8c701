"""tests/unit: every test's COLLAB_HOME on tmpfs where there is one (/dev/shm), so that
the fsync of every state.json write (a run saves after every step) costs no disk wait."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

SHM = Path("/dev/shm")


@pytest.fixture(autouse=True)
def hermetic_env(hermetic_env: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """tests/conftest.py's ``hermetic_env`` (the same environment), its home on tmpfs."""
    if not SHM.is_dir() or not os.access(SHM, os.W_OK):
        yield hermetic_env
        return
    with tempfile.TemporaryDirectory(dir=SHM, prefix="collab-unit-") as home:
        monkeypatch.setenv("COLLAB_HOME", home)
        yield Path(home)
