"""The on-disk turn protocol shared by every runner.

Per turn we write, in a private temp dir (0700, files 0600): the prompt, the argv and
the environment as NUL-separated lists, and a tiny bash script that holds only
generated paths. The script reads argv/env with ``mapfile`` (data, never parsed as
shell), starts the agent in its own session, records its pid, and writes the exit
status atomically. No user or model text is ever on a command line we type.
"""

from __future__ import annotations

import codecs
import contextlib
import json
import os
import shlex
import shutil
import signal
import tempfile
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from collab import procfs
from collab.errors import PrerequisiteError
from collab.runners.base import TurnCancelled, TurnJob

POLL_INTERVAL = 0.005  # exit-file poll: completion is noticed within a few ms
KILL_GRACE = 2.0
CLEANUP_WAIT = 1.0

# The environment is cleared by bash itself (``exec -c`` re-runs the script: same pid, empty
# environment) and the agent's entries are exported from the env file with builtins in the
# fork that ``&`` makes anyway, which then execs the agent: no environment value is ever an
# argument of a process (``setsid env -i K=V …`` was, for every variable: ps showed it).
# Entries bash cannot export (readonly or invalid names, e.g. BASH_FUNC_f%%) are dropped.
_SCRIPT = """\
#!/usr/bin/env bash
# collab turn {step}: generated; holds only generated paths.
[ "${{1-}}" = clean ] || exec -c "$BASH" --norc --noprofile "$0" clean
unset PWD OLDPWD SHLVL
umask 077
d={dir}
s={step}
mkdir "$d/$s.started" 2>/dev/null || exit 0
mapfile -d '' -t _collab_argv < "$d/$s.argv"
mapfile -d '' -t _collab_env < "$d/$s.env"
rm -f "$d/$s.env"
{announce}(
  for _collab_kv in "${{_collab_env[@]}}"; do export "$_collab_kv" 2>/dev/null; done
  unset _collab_kv _collab_env
  exec {setsid} "${{_collab_argv[@]}}"
) < {stdin} > "$d/$s.out" 2> "$d/$s.err" &
pid=$!
printf '%s\\n' "$pid" > "$d/$s.pid.tmp" && mv -f "$d/$s.pid.tmp" "$d/$s.pid"
wait "$pid"
rc=$?
printf '%s\\n' "$rc" > "$d/$s.exit.tmp" && mv -f "$d/$s.exit.tmp" "$d/$s.exit"
{done}: > "$d/$s.ended"
"""
_ANNOUNCE = "printf '\\033[2m[collab] %s running\\033[0m\\n' \"$s\"\n"
_DONE = 'printf \'\\033[2m[collab] %s exit %s\\033[0m\\n\' "$s" "$rc"\n'


def find_bash() -> str:
    bash = shutil.which("bash")
    if not bash:
        raise PrerequisiteError("bash not found on PATH", hint="install bash")
    _find_setsid()
    return bash


def _find_setsid() -> str:
    setsid = shutil.which("setsid")
    if not setsid:
        raise PrerequisiteError("setsid not found on PATH", hint="install util-linux")
    return os.path.abspath(setsid)


class TurnDir:
    """The private per-run temp dir and the files of each turn in it."""

    def __init__(self, keep: bool = False) -> None:
        self.path = Path(tempfile.mkdtemp(prefix="collab-"))
        os.chmod(self.path, 0o700)
        self.keep = keep

    def file(self, step: str, suffix: str) -> Path:
        return self.path / f"{step}.{suffix}"

    def prompt_path(self, step: str) -> Path:
        return self.file(step, "prompt")

    def write(self, job: TurnJob) -> Path:
        """Write every file of ``job``; returns the script path."""
        self._clear(job.step)
        _write_private(self.prompt_path(job.step), job.prompt.encode("utf-8"))
        _write_private(self.file(job.step, "argv"), _nul_list(job.argv))
        _write_private(self.file(job.step, "env"), _nul_list(f"{k}={v}" for k, v in job.env))
        stdin = '"$d/$s.prompt"' if job.stdin_prompt else "/dev/null"
        if job.view:
            # For the pane's live view (collab.runners.pane_view), which starts the script.
            header = {
                "title": job.title, "pane_title": job.pane_title, "output": job.output,
                "limit": job.text_limit,
            }  # fmt: skip
            _write_private(self.file(job.step, "view"), json.dumps(header).encode("utf-8"))
        script = _SCRIPT.format(
            step=shlex.quote(job.step),
            dir=shlex.quote(str(self.path)),
            stdin=stdin,
            announce="" if job.view else _ANNOUNCE,
            done="" if job.view else _DONE,
            setsid=shlex.quote(_find_setsid()),
        )
        path = self.file(job.step, "sh")
        _write_private(path, script.encode("utf-8"))
        return path

    def _clear(self, step: str) -> None:
        for suffix in ("pid", "exit", "out", "err", "pid.tmp", "exit.tmp", "summary", "view",
                       "ended"):  # fmt: skip
            self.file(step, suffix).unlink(missing_ok=True)
        started = self.file(step, "started")
        if started.is_dir():
            started.rmdir()

    def pid(self, step: str) -> int | None:
        try:
            return int(self.file(step, "pid").read_text().strip())
        except (OSError, ValueError):
            return None

    def exit_code(self, step: str) -> int | None:
        try:
            return int(self.file(step, "exit").read_text().strip())
        except (OSError, ValueError):
            return None

    def outputs(self, step: str) -> tuple[str, str]:
        return _read(self.file(step, "out")), _read(self.file(step, "err"))

    def write_summary(self, step: str, text: str) -> None:
        """The line the pane shows when the turn ends (written once the reply is parsed)."""
        # Paths as strings: a Path built per file cost more than the two system calls.
        final = f"{self.path}/{step}.summary"
        tmp = final + ".tmp"
        try:
            _write_private(tmp, text.encode("utf-8"))
            os.replace(tmp, final)
        except OSError:
            pass

    def cleanup(self) -> None:
        if not self.keep:
            try:
                self._remove()
            except KeyboardInterrupt:  # a late Ctrl-C/SIGTERM: finish removing, then stop
                self._remove()
                raise

    def _remove(self) -> None:
        """A turn script being stopped may still write its last files (exit, ended) while
        the dir goes: remove again until it is gone (bounded)."""
        deadline = time.monotonic() + CLEANUP_WAIT
        shutil.rmtree(self.path, ignore_errors=True)
        while self.path.exists() and time.monotonic() < deadline:
            time.sleep(POLL_INTERVAL)
            shutil.rmtree(self.path, ignore_errors=True)


class OutputTail:
    """What a file gained since the last read, as text (UTF-8 split anywhere is fine)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.offset = 0
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

    def read_new(self, most: int = 1 << 20) -> str:
        try:
            with open(self.path, "rb") as fh:
                fh.seek(self.offset)
                data = fh.read(most)
        except OSError:
            return ""
        self.offset += len(data)
        return self._decoder.decode(data)


def reap_stale(path: Path) -> int:
    """After a crash of the process that owned ``path``: kill agents still running from it
    and remove the dir. Returns how many process groups were killed.

    A pid is trusted only if its process started before the pid file was written, so a
    pid reused by an unrelated process since then is never signalled."""
    if not path.is_dir() or not path.name.startswith("collab-"):
        return 0
    killed = stop_agents(path)
    # The killed agents' scripts may still write their exit files: retry until gone.
    end = time.monotonic() + 2.0
    while path.exists() and time.monotonic() < end:
        shutil.rmtree(path, ignore_errors=True)
        if path.exists():
            time.sleep(0.02)
    return killed


def stop_agents(path: Path) -> int:
    """Kill every agent of ``path`` whose turn has no exit file yet; how many were killed.

    A pid is trusted only if its process started before the pid file was written, so a
    pid reused by an unrelated process since then is never signalled."""
    killed = 0
    for pid_file in path.glob("*.pid"):
        if pid_file.with_suffix(".exit").exists():
            continue
        try:
            pid = int(pid_file.read_text().strip())
            written = pid_file.stat().st_mtime
        except (OSError, ValueError):
            continue
        started = procfs.start_time(pid)
        if started is not None and started <= written + 0.05 and kill_group(pid, grace=1.0):
            killed += 1
    return killed


@dataclass(frozen=True)
class WaitOutcome:
    exit_code: int | None
    timed_out: bool
    # Seen by the runner's liveness probe: the pane or process running the script is gone.
    lost: bool
    noticed_at: float


OUTPUT_EVERY = 0.05  # how often a turn's output is handed to its hook while it runs


def wait_for_exit(
    tdir: TurnDir,
    step: str,
    deadline: float,
    alive: Callable[[], bool],
    alive_every: float = 0.25,
    on_output: Callable[[str, float], None] | None = None,
    cancel: threading.Event | None = None,
) -> WaitOutcome:
    """Poll for the exit file until ``deadline`` (monotonic); probe ``alive`` now and then,
    and hand the output written so far to ``on_output`` every ``OUTPUT_EVERY`` seconds.
    ``cancel`` set: raise TurnCancelled (the caller kills the agent)."""
    exit_path = tdir.file(step, "exit")
    started = time.monotonic()
    next_probe = started + alive_every
    tail = OutputTail(tdir.file(step, "out")) if on_output is not None else None
    next_output = started
    while True:
        if cancel is not None and cancel.is_set():
            raise TurnCancelled
        if tail is not None and on_output is not None and time.monotonic() >= next_output:
            next_output = time.monotonic() + OUTPUT_EVERY
            on_output(tail.read_new(), time.monotonic() - started)
        if exit_path.exists():
            code = tdir.exit_code(step)
            if code is not None:
                if tail is not None and on_output is not None:
                    # What the agent wrote just before it exited (codex's whole message).
                    on_output(tail.read_new(), time.monotonic() - started)
                return WaitOutcome(code, False, False, time.monotonic())
        now = time.monotonic()
        if now >= deadline:
            return WaitOutcome(None, True, False, now)
        if now >= next_probe:
            next_probe = now + alive_every
            if not alive() and not exit_path.exists():
                return WaitOutcome(None, False, True, now)
        time.sleep(min(POLL_INTERVAL, max(0.0, deadline - now)))


def wait_for_file(path: Path, deadline: float) -> bool:
    while not path.exists():
        if time.monotonic() >= deadline:
            return False
        time.sleep(POLL_INTERVAL)
    return True


def group_alive(pgid: int) -> bool:
    """True while any non-zombie process is in the group (zombies wait on a slow reaper)."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    pids = procfs.pids()
    if pids is None:
        return True
    for pid in pids:
        fields = procfs.stat_fields(pid)  # state, ppid, pgrp, ...
        if fields is not None and len(fields) > 2 and fields[2] == str(pgid) and fields[0] != "Z":
            return True
    return False


def kill_group(pgid: int, grace: float = KILL_GRACE) -> bool:
    """TERM the agent's process group, then KILL; True once the group is gone.

    ``pgid`` is the agent's pid, which leads its own group once ``setsid`` has run; in
    the first instants after launch it may not yet, so wait for that before signalling."""
    end = time.monotonic() + grace
    while _pgid_of(pgid) not in (pgid, None) and time.monotonic() < end:
        time.sleep(POLL_INTERVAL)
    if _pgid_of(pgid) not in (pgid, None):
        # Never became a group leader: kill the process itself.
        with contextlib.suppress(ProcessLookupError):
            os.kill(pgid, signal.SIGKILL)
        return _pgid_of(pgid) is None
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, grace)):
        try:
            os.killpg(pgid, sig)
        except ProcessLookupError:
            return True
        end = time.monotonic() + wait
        while time.monotonic() < end:
            if not group_alive(pgid):
                return True
            time.sleep(POLL_INTERVAL)
    return not group_alive(pgid)


def _pgid_of(pid: int) -> int | None:
    """The process group of a live (non-zombie) ``pid``, or None when it is gone."""
    fields = procfs.stat_fields(pid)
    if fields is None:
        try:
            return os.getpgid(pid)
        except ProcessLookupError:
            return None
    if not fields or fields[0] == "Z":
        return None
    return int(fields[2])


def _nul_list(items: Iterable[str]) -> bytes:
    parts = list(items)
    for p in parts:
        if "\0" in p:
            raise ValueError("NUL byte in an argv or env item")
    return b"".join(p.encode("utf-8") + b"\0" for p in parts)


def _write_private(path: Path | str, data: bytes) -> None:
    # Straight to the descriptor: a file object around it (its buffer, the flush at
    # close) cost as much again as the write itself.
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


def _read(path: Path) -> str:
    try:
        return path.read_bytes().decode("utf-8", errors="replace")
    except OSError:
        return ""
