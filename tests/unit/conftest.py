"""tests/unit: every test's COLLAB_HOME on tmpfs where there is one (/dev/shm), so that
the fsync of every state.json write (a run saves after every step) costs no disk wait."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

SHM = Path("/dev/shm")
ON_TMPFS = SHM.is_dir() and os.access(SHM, os.W_OK)


@pytest.fixture
def private_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """tests/conftest.py's ``private_home`` (the folder ``hermetic_env`` makes the test's
    COLLAB_HOME), on tmpfs and removed after the test: the one folder a test makes."""
    if not ON_TMPFS:
        yield Path(tempfile.mkdtemp(prefix="collab-home-", dir=tmp_path_factory.getbasetemp()))
        return
    home = tempfile.mkdtemp(dir=SHM, prefix="collab-unit-")
    try:
        yield Path(home)
    finally:
        shutil.rmtree(home, ignore_errors=True)
