"""Runs on disk: ``$COLLAB_HOME/runs/<id>/state.json`` written atomically after every turn.

A run directory also holds ``lock`` (an fcntl lock held by the one process driving the
run), and at the end ``transcript.md`` and ``judge.md``. A new run's directory appears
whole, with its first state.json, or not at all.

Every write into COLLAB_HOME goes through :func:`storing`, which turns an ``OSError``
into a :class:`StorageError` that names the path, what is wrong (full, read-only, a file
where a directory should be) and the fix. state.json carries a ``schema_version``;
older ones are migrated on load (:mod:`collab.migrations`), newer ones refused.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import re
import shutil
import stat
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from collab.errors import DamagedRun, RunLockedError, StorageError, UsageError
from collab.json_text import Texts, document_text
from collab.migrations import LATEST, migrate
from collab.paths import collab_home
from collab.records import record

SCHEMA_VERSION = LATEST
LOCK_FILE = "lock"
STEERING = "steering"  # the lock file's second line while a steering operation holds it

_ELSEWHERE = "set COLLAB_HOME to a writable directory"
# errno → (what is wrong, the fix before a run starts, the fix for a run that stopped)
_PROBLEMS = {
    errno.ENOSPC: ("no space left on device",
                   "free some space there, or set COLLAB_HOME to a directory with room",
                   "free some space there"),
    errno.EDQUOT: ("disk quota exceeded",
                   "free some space there, or set COLLAB_HOME to a directory with room",
                   "free some space there"),
    errno.EROFS: ("read-only file system", _ELSEWHERE, "make it writable again"),
    errno.EACCES: ("permission denied", f"make it writable, or {_ELSEWHERE}",
                   "make it writable again"),
}  # fmt: skip
_PROBLEMS[errno.EPERM] = _PROBLEMS[errno.EACCES]


def new_run_id() -> str:
    """Sortable by time, unique across parallel runs: ``20261130-101502-3fa9c1``."""
    return (
        time.strftime("%Y%m%d-%H%M%S") + "-" + os.urandom(3).hex()
    )  # secrets.token_hex; without hmac and OpenSSL (~12 ms)


def runs_dir() -> Path:
    return collab_home() / "runs"


def make_private_dirs(path: Path) -> None:
    """``path`` and its missing parents up to COLLAB_HOME (itself included) made 0700,
    whatever the umask: run records hold topics, context and replies."""
    home = collab_home()
    chain = [path, *path.parents]
    if home not in chain:
        path.mkdir(parents=True, exist_ok=True, mode=0o700)
        return
    home.parent.mkdir(parents=True, exist_ok=True)
    for d in reversed(chain[: chain.index(home) + 1]):
        try:
            os.mkdir(d, 0o700)
        except FileExistsError:
            continue
        os.chmod(d, 0o700)  # the umask may have taken bits off, never added: set exactly


def atomic_write(path: Path, text: str, mode: int = 0o600) -> None:
    """Write-then-rename so a reader (or a crash) never sees half a file; the temp file
    is made new (never one planted there) and gets ``mode`` before it takes the name."""
    # Here, not at the top: tempfile (and the random and hashlib it imports, ~2.5 ms of
    # CPU) is for writing; the commands that only read runs (list, status) go without.
    import tempfile

    data = text.encode("utf-8")  # what a text file opened "w" writes on POSIX ("\n" stays)
    # The folder as a string: mkstemp makes one of a Path on each call (path.parent is new).
    folder, name = os.path.split(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=folder)
    try:
        # The bytes straight to mkstemp's descriptor: a text file object around it (its
        # buffer, encoder and the flush before fsync) cost more than the write itself.
        try:
            write_all(fd, data)
            os.fsync(fd)
            if mode != 0o600:  # mkstemp's
                os.fchmod(fd, mode)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


_FD_DIR = re.compile(r"/proc/([0-9]+)(?:/task/[0-9]+)?/fd")
_MAX_LINKS = 40  # as the kernel's own limit on a path's symlinks


def write_named(path: Path, text: str, mode: int = 0o600) -> int | None:
    """Write ``text`` to a path a person named (``collab export -o PATH``); the mode the
    file has after (None: written in place to a stream).

    - a regular file, or one not there yet: :func:`atomic_write` with ``mode``;
    - a symlink: its target written (atomically, when a regular file), the link kept and
      the target's mode kept;
    - one of this process's descriptors (``/dev/stdout``, ``/dev/fd/3``,
      ``/proc/self/fd/1``): written to that descriptor, at its own offset (what the shell
      writes there after follows it, as with ``> out.md 2>&1``);
    - a FIFO, a character device (``/dev/null``, a terminal) or another process's
      ``/proc/PID/fd`` link: written in place, appended, no temp file;
    - anything else (a block device, a socket, a directory): refused
      (:class:`UsageError`), nothing written.
    An ``OSError`` is left to the caller, who knows how to word it."""
    data = text.encode("utf-8")
    through = _fd_link(str(path))
    if through is not None and through >= 0:
        write_all(through, data)
        return None
    target = os.path.realpath(path)
    try:
        st = os.stat(target)
    except FileNotFoundError:
        st = None
    if through is not None or (
        st is not None and (stat.S_ISFIFO(st.st_mode) or stat.S_ISCHR(st.st_mode))
    ):
        _stream(str(path), data)
        return None
    if st is not None and not stat.S_ISREG(st.st_mode):
        kind = _KINDS.get(stat.S_IFMT(st.st_mode), "not a regular file")
        raise UsageError(f"{path} is {kind}: give a file instead")
    if st is not None and os.path.islink(path):
        mode = stat.S_IMODE(st.st_mode)  # the target's, as writing through the link keeps it
    atomic_write(Path(target), text, mode=mode)
    return mode


_KINDS = {stat.S_IFBLK: "a block device", stat.S_IFSOCK: "a socket", stat.S_IFDIR: "a directory"}


def _fd_link(path: str) -> int | None:
    """Does ``path`` reach its file through a ``/proc/PID/fd/N`` link (``/dev/stdout``,
    ``/dev/fd/3``, ``/proc/self/fd/1``)? Such a link names an open file: replacing it by
    name would take it from under the descriptor (``> out.md`` would lose the text).
    ``N`` when it is this process's own descriptor, -1 for another's, None for no link."""
    here = os.path.abspath(path)
    for _ in range(_MAX_LINKS):
        folder = os.path.realpath(os.path.dirname(here))
        if (m := _FD_DIR.fullmatch(folder)) is not None:
            fd = os.path.basename(here)
            own = int(m.group(1)) == os.getpid() and fd.isdigit()
            return int(fd) if own else -1
        try:
            link = os.readlink(here)
        except OSError:  # not a link (or not there): the end of the chain
            return None
        here = os.path.normpath(os.path.join(folder, link))
    return None


def _stream(path: str, data: bytes) -> None:
    """``data`` written in place to ``path`` (a FIFO waits for its reader)."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_NOCTTY)
    try:
        write_all(fd, data)
    finally:
        os.close(fd)


def write_all(fd: int, data: bytes) -> None:
    """Every byte of ``data`` to ``fd`` (a write may take only part of it)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def write_file(path: Path, text: str) -> None:
    """:func:`atomic_write` of a file in COLLAB_HOME (a failure is a StorageError)."""
    with storing(path):
        atomic_write(path, text)


def storage_error(exc: OSError, path: Path, doing: str = "write") -> StorageError:
    """``exc``, met writing ``path``, as one line: the path, what is wrong, the fix."""
    code = exc.errno or 0
    if code in _PROBLEMS:
        problem, fix, resume_fix = _PROBLEMS[code]
    elif code in (errno.ENOTDIR, errno.EEXIST) and (blocker := _in_the_way(path)) is not None:
        problem = f"{blocker} is a file, not a directory"
        fix = f"move {blocker} away, or set COLLAB_HOME to a directory"
        resume_fix = f"move {blocker} away"
    elif code == errno.EISDIR:
        problem, fix, resume_fix = (
            f"{path} is a directory",
            f"move {path} away",
            f"move {path} away",
        )
    else:
        strerror = exc.strerror or str(exc)
        problem = strerror[:1].lower() + strerror[1:]
        fix, resume_fix = f"check that disk, or {_ELSEWHERE}", "fix that"
    return StorageError(f"cannot {doing} {path}: {problem}", hint=fix, resume_fix=resume_fix)


@contextlib.contextmanager
def storing(path: Path, doing: str = "write") -> Iterator[None]:
    """Writes into COLLAB_HOME: an ``OSError`` becomes the :class:`StorageError` for it."""
    try:
        yield
    except OSError as exc:
        raise storage_error(exc, path, doing) from None


def _in_the_way(path: Path) -> Path | None:
    """The nearest of ``path`` and its parents that exists, if it is not a directory."""
    for p in (path, *path.parents):
        if p.is_symlink() or p.exists():
            return None if p.is_dir() else p
    return None


@contextlib.contextmanager
def hold_lock(path: Path, busy: str, role: str = "") -> Iterator[None]:
    """Hold the lock file at ``path`` (it records our pid, and on a second line ``role``
    when one is given); a second holder gets :class:`RunLockedError` with ``busy``
    instead of a race."""
    with storing(path, "lock"):
        make_private_dirs(path.parent)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            pid = _pid_in(path)
            raise RunLockedError(busy + (f" (pid {pid})" if pid else "")) from None
        with storing(path, "lock"):
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n{role and role + chr(10)}".encode(), 0)
        yield
    finally:
        os.close(fd)  # and with it the lock


def holder_by_locking(path: Path) -> int | None:
    """None when nobody holds the lock file at ``path``; else the holder's pid (0 when
    it cannot be read). Taking and dropping the lock is how we ask, so call this only
    for a lock no process of ours is about to take."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None  # no lock file: nobody ever drove it
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return _pid_in(path)
    finally:
        os.close(fd)  # and with it our lock
    return None


def _pid_in(path: Path) -> int:
    try:
        return int((path.read_text(encoding="utf-8").strip().splitlines() or ["0"])[0])
    except (OSError, ValueError):
        return 0


class RunDir:
    def __init__(self, run_id: str, root: Path | None = None) -> None:
        if not _valid_id(run_id):
            raise UsageError(f"not a run id: {run_id!r}")
        self.run_id = run_id
        self.path = (root or runs_dir()) / run_id
        self._texts: Texts = {}  # the text of the last save's frozen parts (collab.json_text)

    @property
    def state_path(self) -> Path:
        return self.path / "state.json"

    def exists(self) -> bool:
        return self.state_path.is_file()

    def create(self, state: dict[str, object] | None = None) -> None:
        """Make the run's directory; with ``state``, it appears with its first state.json
        in place (written under a hidden name, then renamed), or not at all."""
        with storing(self.path, "create"):
            make_private_dirs(self.path.parent)
            if state is None:
                self.path.mkdir(exist_ok=False, mode=0o700)
                return
            staged = self.path.with_name(f".{self.run_id}.new")
            try:
                staged.mkdir(exist_ok=False, mode=0o700)
                atomic_write(staged / "state.json", _document(state, self._texts))
                os.rename(staged, self.path)
            except BaseException:
                shutil.rmtree(staged, ignore_errors=True)
                raise

    def save(self, state: dict[str, object]) -> None:
        write_file(self.state_path, _document(state, self._texts))

    def load(self) -> dict[str, object]:
        """The run's state.json, migrated to :data:`SCHEMA_VERSION`; :class:`DamagedRun`
        when it cannot be read as a run (or comes from a newer collab)."""
        path = self.state_path
        if not path.is_file():
            raise UsageError(f"no run with id {self.run_id} (looked in {self.path.parent})")
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise DamagedRun(self.run_id, f"state.json cannot be read ({exc.strerror})") from None
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise DamagedRun(self.run_id, f"state.json is damaged (not JSON: {exc})") from None
        if not isinstance(data, dict):
            raise DamagedRun(self.run_id, "state.json is damaged (not a JSON object)")
        version = data.get("schema_version")
        if not isinstance(version, int) or isinstance(version, bool) or version < 1:
            raise DamagedRun(
                self.run_id, f"state.json is damaged (schema_version {version!r} is not a version)"
            )
        if version > SCHEMA_VERSION:
            newer = (
                f"written by a newer collab (schema {version}; this collab reads up to "
                f"{SCHEMA_VERSION}): upgrade collab"
            )
            raise DamagedRun(self.run_id, newer, message=f"run {self.run_id} was {newer}")
        return migrate(data, version) if version < SCHEMA_VERSION else data

    def write_text(self, name: str, text: str) -> Path:
        path = self.path / name
        write_file(path, text)
        return path

    def locked(self, *, steering: bool = False) -> contextlib.AbstractContextManager[None]:
        """Hold the run's lock; a second driver gets a clear error instead of a race.
        ``steering``: held by a steering operation (ask, decide, a continue's first save),
        not a debate's driver (it says so in the lock file: :data:`STEERING`)."""
        busy = f"run {self.run_id} is being driven by another collab process"
        return hold_lock(self.path / LOCK_FILE, busy, STEERING if steering else "")

    def holder_by_locking(self) -> int | None:
        """The pid of the process driving the run (0 if unknown), or None."""
        return holder_by_locking(self.path / LOCK_FILE)


@record
class StoredRun:
    """One entry of ``runs/``: its state as loaded, or why it cannot be read; ``parsed``
    is what :func:`scan_runs`'s ``parse`` made of the state (:mod:`collab.state`'s
    ``RunState``), so a caller never parses a state.json twice."""

    run_id: str
    state: dict[str, object] | None
    damage: str | None = None
    parsed: object | None = None


# A loaded state → (what it parses to, None) or (None, the damage found in it).
Parse = Callable[[dict[str, object]], tuple[object | None, str | None]]


def scan_runs(root: Path | None = None, parse: Parse | None = None) -> list[StoredRun]:
    """Every run, newest first, damaged ones too; each state.json is read and parsed
    once (``parse`` returns what a state that did load parses to, or the damage in it)."""
    base = root or runs_dir()
    if not base.exists():
        return []
    with storing(base, "read"):
        if not base.is_dir():
            raise NotADirectoryError(errno.ENOTDIR, "not a directory", str(base))
        with os.scandir(base) as listing:  # each entry's type comes with it: no stat a run
            entries = sorted(listing, key=lambda e: e.name, reverse=True)
    out: list[StoredRun] = []
    for entry in entries:
        if not entry.is_dir() or not _valid_id(entry.name):
            continue
        run = RunDir(entry.name, base)
        try:
            state = run.load()
        except DamagedRun as exc:
            out.append(StoredRun(entry.name, None, exc.reason))
            continue
        except UsageError:  # load's other one: no state.json (a stat fewer than asking first)
            out.append(StoredRun(entry.name, None, "state.json is missing"))
            continue
        parsed, damage = (None, None) if parse is None else parse(state)
        out.append(StoredRun(entry.name, state, damage, parsed))
    out.sort(key=lambda r: (_when(r), r.run_id), reverse=True)
    return out


def _when(run: StoredRun) -> float:
    ts = None if run.state is None else run.state.get("created_ts")
    if isinstance(ts, int | float) and not isinstance(ts, bool):
        return float(ts)
    try:  # a damaged run: the time its id was made
        return time.mktime(id_time(run.run_id[:15]))
    except ValueError:
        return 0.0


_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def id_time(text: str) -> time.struct_time:
    """``time.strptime(text, "%Y%m%d-%H%M%S")`` for what ``mktime`` takes of it, read by
    hand where ``text`` is exactly ``YYYYMMDD-HHMMSS`` (as a run id begins): strptime's
    first call costs ~3 ms of CPU (it imports _strptime, calendar and locale), and ``collab
    list`` dates each damaged run so. Same ValueError for a date or time out of range."""
    digits = text[:8] + text[9:]
    if len(text) != 15 or text[8] != "-" or not (digits.isascii() and digits.isdigit()):
        return time.strptime(text, "%Y%m%d-%H%M%S")
    y, mo, d = int(text[:4]), int(text[4:6]), int(text[6:8])
    h, mi, s = int(text[9:11]), int(text[11:13]), int(text[13:15])
    leap = y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)
    if not 1 <= mo <= 12 or y < 1 or not 1 <= d <= _DAYS[mo - 1] + (mo == 2 and leap):
        raise ValueError(f"no such date: {text!r}")
    if h > 23 or mi > 59 or s > 61:
        raise ValueError(f"no such time: {text!r}")
    return time.struct_time((y, mo, d, h, mi, s, 0, 1, -1))  # mktime reads no weekday or yday


def _valid_id(run_id: str) -> bool:
    return bool(run_id) and len(run_id) <= 64 and all(c.isalnum() or c in "-_" for c in run_id)


def _document(state: dict[str, object], texts: Texts) -> str:
    """``json.dumps(state, ensure_ascii=False, indent=1)``, stamped (:mod:`collab.json_text`)."""
    state["schema_version"] = SCHEMA_VERSION
    state["updated"] = _now()
    return document_text(state, texts)


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")
