"""collab export's writing to the path a person named (collab.store.write_named): a regular
file atomically, a symlink's target in its own mode, a FIFO, a device or /dev/stdout in
place, a block device refused."""

from __future__ import annotations

import os
import socket
import stat
import threading
from pathlib import Path

import pytest

from collab.errors import UsageError
from collab.formats import EXPORT_FORMATS, REPORT_FORMATS, SUFFIXES, check_format, spelled
from collab.store import write_named
from tests.helpers import wait_until

TEXT = "# Report\n\nsessions win — ünïcode too\n"


def _node(path: Path, kind: int, device: tuple[int, int]) -> Path:
    """A device node of our own in a scratch directory (never one under /dev: the old code
    would have replaced it); skipped where this user may not make one."""
    try:
        os.mknod(path, kind | 0o600, os.makedev(*device))
    except (PermissionError, OSError) as exc:
        pytest.skip(f"cannot make a device node here: {exc}")
    return path


def test_a_regular_file_is_written_whole_in_the_mode_asked(tmp_path: Path) -> None:
    out = tmp_path / "report.md"
    out.write_text("old and longer than the new text " * 10)
    assert write_named(out, TEXT) == 0o600
    assert out.read_text(encoding="utf-8") == TEXT
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.md"]  # no temp file left


def test_a_symlink_is_written_through_keeping_the_target_and_its_mode(tmp_path: Path) -> None:
    target = tmp_path / "docs" / "decision.md"
    target.parent.mkdir()
    target.write_text("old\n")
    os.chmod(target, 0o640)
    link = tmp_path / "latest.md"
    link.symlink_to(Path("docs") / "decision.md")  # relative, as people make them
    assert write_named(link, TEXT) == 0o640
    assert link.is_symlink() and os.readlink(link) == os.path.join("docs", "decision.md")
    assert target.read_text(encoding="utf-8") == TEXT
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert sorted(p.name for p in target.parent.iterdir()) == ["decision.md"]


def test_a_fifo_is_written_in_place_for_its_reader(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    fifo = out / "pipe"
    os.mkfifo(fifo)
    spare = tmp_path / "spare"  # the same FIFO by another name: a way to free the reader
    os.link(fifo, spare)
    got: list[bytes] = []

    def read() -> None:
        with open(fifo, "rb") as fh:  # blocks until a writer opens its end
            got.append(fh.read())

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        assert write_named(fifo, TEXT) is None
    finally:
        if wait_until(lambda: not reader.is_alive(), timeout=2) is False:
            os.close(os.open(spare, os.O_WRONLY | os.O_NONBLOCK))  # its writer, at once gone
        reader.join(timeout=10)
    assert not reader.is_alive()
    assert got == [TEXT.encode("utf-8")]
    assert stat.S_ISFIFO(fifo.lstat().st_mode)  # still the FIFO, not a file put there
    assert sorted(p.name for p in out.iterdir()) == ["pipe"]


def test_a_character_device_is_written_in_place(tmp_path: Path) -> None:
    null = _node(tmp_path / "null", stat.S_IFCHR, (1, 3))  # /dev/null's numbers
    assert write_named(null, TEXT) is None
    assert stat.S_ISCHR(null.lstat().st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["null"]


def test_a_block_device_is_refused_with_one_line(tmp_path: Path) -> None:
    disk = _node(tmp_path / "disk", stat.S_IFBLK, (7, 0))  # a loop device's numbers
    with pytest.raises(UsageError) as caught:
        write_named(disk, TEXT)
    message = str(caught.value)
    assert message == f"{disk} is a block device: give a file instead"
    assert "\n" not in message
    assert stat.S_ISBLK(disk.lstat().st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["disk"]


def test_an_fd_link_to_a_pipe_is_streamed(tmp_path: Path) -> None:
    """``-o /dev/stdout`` with stdout a pipe: /proc/self/fd/N, written in place."""
    r, w = os.pipe()
    try:
        assert write_named(Path(f"/dev/fd/{w}"), TEXT) is None
        os.close(w)
        w = -1
        with os.fdopen(r, "rb") as fh:
            r = -1
            assert fh.read() == TEXT.encode("utf-8")
    finally:
        for fd in (r, w):
            if fd >= 0:
                os.close(fd)
    assert list(tmp_path.iterdir()) == []


def test_an_fd_link_to_a_regular_file_writes_the_open_file_not_a_new_one(
    tmp_path: Path,
) -> None:
    """``collab export -o /dev/stdout > out.md``: the shell's open file gets the text; a
    rename over the name would leave the descriptor on a file nobody can see."""
    out = tmp_path / "out.md"
    with open(out, "wb") as fh:
        fh.write(b"before\n")
        fh.flush()
        inode = os.fstat(fh.fileno()).st_ino
        assert write_named(Path(f"/proc/self/fd/{fh.fileno()}"), TEXT) is None
    assert out.stat().st_ino == inode
    assert out.read_text(encoding="utf-8") == "before\n" + TEXT
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.md"]


def test_own_descriptor_is_written_at_its_own_offset(tmp_path: Path) -> None:
    """``export -o /dev/stdout > out.md 2>&1``: the report goes to the descriptor itself,
    so what is written to it after (export's "wrote" line) follows the report instead of
    overwriting its start (a new open file of the link would have an offset of its own)."""
    out = tmp_path / "out.md"
    fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)  # as the shell opens it
    try:
        os.write(fd, b"before\n")
        assert write_named(Path(f"/proc/self/fd/{fd}"), TEXT) is None
        os.write(fd, b"after\n")
    finally:
        os.close(fd)
    assert out.read_text(encoding="utf-8") == "before\n" + TEXT + "after\n"


def test_a_socket_or_a_directory_is_refused_and_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only a regular file is replaced: a socket behind a symlink (``-o /dev/log``) or a
    directory is refused with one line, and left as it was."""
    monkeypatch.chdir(tmp_path)  # a short name: a socket's path has ~108 bytes at most
    with socket.socket(socket.AF_UNIX) as server:
        server.bind("s")
        (tmp_path / "log").symlink_to("s")
        for named, kind in ((tmp_path / "log", "a socket"), (tmp_path, "a directory")):
            with pytest.raises(UsageError) as caught:
                write_named(named, TEXT)
            assert str(caught.value) == f"{named} is {kind}: give a file instead"
        assert stat.S_ISSOCK((tmp_path / "s").lstat().st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["log", "s"]


# -- the formats, declared once (collab.formats) -------------------------------------------


@pytest.mark.parametrize(
    ("typed", "formats", "message"),
    [
        ("pdf", EXPORT_FORMATS, "--format must be md, json, html or adr, got 'pdf'"),
        ("ard", EXPORT_FORMATS, "--format must be md, json, html or adr, got 'ard'; "
                                "did you mean 'adr'?"),
        ("ADR", EXPORT_FORMATS, "--format must be md, json, html or adr, got 'ADR'; "
                                "did you mean 'adr'?"),
        ("htlm", REPORT_FORMATS, "--format must be md, json or html, got 'htlm'; "
                                 "did you mean 'html'?"),
        ("adr", REPORT_FORMATS, "--format must be md, json or html, got 'adr'"),
    ],
)  # fmt: skip
def test_an_unknown_format_is_refused_with_the_formats_and_a_hint(
    typed: str, formats: tuple[str, ...], message: str
) -> None:
    with pytest.raises(UsageError) as caught:
        check_format(typed, formats)
    assert str(caught.value) == message


def test_every_format_is_accepted_and_the_docs_and_help_name_them_all() -> None:
    for fmt in EXPORT_FORMATS:
        assert check_format(fmt, EXPORT_FORMATS) == fmt
    assert set(SUFFIXES.values()) == set(REPORT_FORMATS)  # an ADR is named by --format
    root = Path(__file__).resolve().parents[2]
    storage = " ".join((root / "docs" / "storage.md").read_text(encoding="utf-8").split())
    assert f"`--format` {spelled(REPORT_FORMATS)};" in storage
    assert f"export's takes {spelled(EXPORT_FORMATS)}," in storage
    readme = (root / "README.md").read_text(encoding="utf-8")
    assert "--format " + "|".join(REPORT_FORMATS) in readme


# -- not while the run is driven: collab result's check, shared (control.refuse_while_driven)


def test_the_adr_export_is_refused_while_the_run_is_driven_as_result_is(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A finished run driven again (a follow-up, a continue: its lock held) has no end to
    record yet: export --format adr refuses it as collab result does, in the same words."""
    import collab.control.ops as ops
    from collab.cli.runs import export
    from collab.control.ops import RunStillGoing, result_of
    from collab.store import RunDir
    from tests.unit.test_orchestrator import debate

    rid = debate({}, rounds=1).state.run_id
    monkeypatch.setattr(ops, "FINISH_WAIT", 0.05)  # the moment a finishing driver is given
    records = tmp_path / "adr"
    records.mkdir()
    with RunDir(rid).locked():  # this process drives it now
        with pytest.raises(RunStillGoing) as by_result:
            result_of(rid)
        with pytest.raises(RunStillGoing) as by_export:
            export(rid, output=records, fmt="adr")
    assert str(by_export.value) == str(by_result.value)
    assert f"run {rid} is still running" in str(by_export.value)
    assert list(records.iterdir()) == []  # nothing written
    export(rid, output=records, fmt="adr")  # let go: the record is written
    assert [p.name[:5] for p in records.iterdir()] == ["0001-"]
