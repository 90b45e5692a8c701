"""procfs, the one reader of /proc, asked about this test's own process and a gone one."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from collab import procfs

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="no /proc here")

GONE = 2**22 + 1  # above Linux's pid_max ceiling: never a process


def test_stat_fields_start_at_the_state() -> None:
    fields = procfs.stat_fields(os.getpid())
    assert fields is not None
    assert fields[0] in ("R", "S")  # running, while it reads its own stat
    assert int(fields[1]) == os.getppid()
    assert int(fields[2]) == os.getpgrp()


def test_start_time_is_when_this_process_started() -> None:
    started = procfs.start_time(os.getpid())
    assert started is not None
    assert time.time() - 24 * 3600 < started <= time.time()


def test_cmdline_is_the_argv() -> None:
    argv = procfs.cmdline(os.getpid())
    assert argv is not None
    assert Path(os.fsdecode(argv[0])).name == Path(sys.orig_argv[0]).name


def test_has_open(tmp_path: Path) -> None:
    held, other = tmp_path / "held", tmp_path / "other"
    held.write_text("x")
    other.write_text("y")
    with open(held):
        assert procfs.has_open(os.getpid(), held) is True
        assert procfs.has_open(os.getpid(), other) is False


def test_pids_include_ours() -> None:
    pids = procfs.pids()
    assert pids is not None and os.getpid() in pids


def test_a_gone_process_is_none(tmp_path: Path) -> None:
    assert procfs.stat_fields(GONE) is None
    assert procfs.start_time(GONE) is None
    assert procfs.cmdline(GONE) is None
    assert procfs.has_open(GONE, tmp_path) is None
