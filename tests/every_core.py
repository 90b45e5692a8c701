"""``python -m pytest tests/unit`` on every core: forked workers that each collect the test
files they take.

Collecting tests/unit is mostly importing its ~90 test modules, which pytest rewrites (for
its assert messages) on every run here: PYTHONDONTWRITEBYTECODE=1 keeps no cache of it. That
is ~2.5 s of CPU. Collect everything and fork afterwards (pytest-parallex) and it stays on one
core while the others wait; start a fresh worker per core (xdist) and each pays it in full.
Here the main process walks the folders down to the test files without importing any (pytest's
own collection, stopped at each file: ``--ignore``, ``-k``, conftests all as usual), then forks
a worker per core. Each worker takes the next file off a shared queue (a pipe holding the files'
numbers, largest file first), imports and collects it, runs its tests in pytest's order, and
sends their reports back; the main process replays them on its own hooks, where the terminal,
``--junitxml`` and ``--durations`` see them as from a run in one process: the collection
once every file is collected (its line counts the tests), then each file's tests as they come.
The last file is taken near the end, so this overlaps only the workers' last tests: what is
left after them is ~0.15 s of replaying, not ~0.3 s.

As under xdist, session-scoped fixtures are set up once per worker; a file's tests all run in
one worker, so module-scoped fixtures and module state behave as in one process. A test that
ends the session (``pytest.exit()``, or setting its ``shouldstop`` or ``shouldfail``) ends it
as in one process: the other workers stop after the test they are at, everyone's fixtures
are torn down, and the run ends with that test's exit code and line.
tests/conftest.py's ``unit_on_every_core`` says when a run goes this way.
"""

from __future__ import annotations

import contextlib
import gc
import io
import itertools
import os
import pickle
import select
import signal
import struct
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

_HEAD = struct.Struct("<I")  # a message's length, before its pickle
_INDEX = struct.Struct("<H")  # a file's number in the queue
_QUEUE_MAX = 16_384  # files the queue pipe holds before a write would block (64 KiB)
_GRACE = 10.0  # seconds the workers get to tear down after ^C, before they are killed
_STOP = signal.SIGUSR1  # to a worker: another's test ended the session; stop after this test
_stop_asked = False  # (in a worker: _STOP came)


class EveryCore:
    """The plugin (tests/conftest.py registers it as ``every_core``: ``-p no:every_core``
    keeps a run one test at a time)."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self.files: list[pytest.File] = []
        self.ran = 0  # workers forked

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection(self, session: pytest.Session) -> bool:
        """pytest's collection, stopped at each test file: the files are the workers'."""
        files = self.files

        def walk(node: pytest.Item | pytest.Collector) -> Any:
            if isinstance(node, pytest.File):
                files.append(node)
                return iter(())
            return pytest.Session.genitems(session, node)

        option = session.config.option
        verbose = option.verbose
        session.genitems = walk  # type: ignore[method-assign]
        option.verbose = -1  # no "collected 0 items" line: the count is known at the end
        try:
            session.perform_collect()
        finally:
            del session.genitems
            option.verbose = verbose
        return True

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: pytest.Session) -> bool:
        if session.testsfailed and not session.config.option.continue_on_collection_errors:
            raise session.Interrupted(_errors(session.testsfailed))
        files = sorted(self.files, key=_size, reverse=True)
        if len(files) > _QUEUE_MAX:
            raise pytest.UsageError(f"{len(files)} test files: run them with -p no:every_core")
        queue, queue_in = os.pipe()
        os.write(queue_in, b"".join(_INDEX.pack(i) for i in range(len(files))))
        os.close(queue_in)  # a worker that reads nothing more sees the queue is empty
        base_temp(session.config)
        _imported_before_the_fork(session.config)
        count = min(self.workers, len(files))
        previous = signal.signal(_STOP, _ask_to_stop)  # (set before the fork: no worker lacks it)
        try:
            workers = [_fork(session, files, queue, n) for n in range(1, count + 1)]
        finally:
            signal.signal(_STOP, previous)
        os.close(queue)
        self.ran = len(workers)
        replay = _Replay(session, len(files), workers)
        try:
            _gather(workers, replay.take)
        except KeyboardInterrupt:  # the workers had it too: what they reported, then the stop
            try:
                _gather(workers, replay.take, deadline=time.monotonic() + _GRACE)
            finally:  # (a second ^C: no more waiting)
                _kill(workers)
            replay.end(workers, interrupted=True)
            raise
        finally:
            _reap(workers)
        replay.end(workers)
        replay.ended_by_a_test()
        return True

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.ran:
            files = f"{len(self.files)} file{'s' if len(self.files) != 1 else ''}"
            workers = f"{self.ran} worker{'s' if self.ran != 1 else ''}"
            terminalreporter.write_line(f"on every core: {workers} took {files}")


def base_temp(config: pytest.Config) -> None:
    """pytest's base temporary folder (``tmp_path``'s parent), made here for every worker:
    made in each, its lock file would outlive the worker (which ends with os._exit, running
    no atexit) and keep its folder from ever being cleaned up: two more folders a run. The
    workers make their tests' numbered folders in it side by side, as pytest allows."""
    factory = getattr(config, "_tmp_path_factory", None)  # (the tmpdir plugin's)
    if factory is not None:
        factory.getbasetemp()


def _imported_before_the_fork(config: pytest.Config) -> None:
    """Hypothesis's pytest plugin imports Hypothesis (~0.15 s, not rewritten: tests/conftest.py's
    NOT_REWRITTEN) in this process's terminal summary, after every worker has ended: imported
    here instead, once for the workers too (those whose files use it find it imported)."""
    if config.pluginmanager.has_plugin("hypothesispytest"):
        import hypothesis.internal.observability  # noqa: F401


def _ask_to_stop(signum: int, frame: object) -> None:
    global _stop_asked
    _stop_asked = True


class _Stop(Exception):
    """In a worker: the session ends (another worker's test ended it, or one of its own)."""


def _size(file: pytest.File) -> int:
    try:
        return file.path.stat().st_size
    except OSError:
        return 0


def _errors(count: int) -> str:
    return f"{count} error{'s' if count != 1 else ''} during collection"


@dataclass
class _Worker:
    pid: int
    pipe: int  # the main process's end: the worker's messages
    number: int
    status: int | None = None
    file: str | None = None  # the file it was at last (collecting it, or running a test of it)
    done: bool = False
    buffer: bytearray = field(default_factory=bytearray)


def _fork(session: pytest.Session, files: list[pytest.File], queue: int, number: int) -> _Worker:
    sys.stdout.flush()  # else what is buffered is written once more by each worker
    sys.stderr.flush()
    out, into = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.close(out)
            code = _Run(session, files, queue, into).run()
        except BaseException:  # the main process says this worker ended early; here, why
            import traceback

            traceback.print_exc()
        finally:
            os._exit(code)  # not the main process's atexit handlers, nor its buffers
    os.close(into)
    return _Worker(pid, out, number)


def _gather(
    workers: list[_Worker],
    take: Callable[[_Worker, tuple[Any, ...]], None],
    deadline: float | None = None,
) -> None:
    """Every message from the workers, to ``take`` in the order they come, until all have
    ended (or, after ^C, until ``deadline``)."""
    open_ = {w.pipe: w for w in workers if w.pipe >= 0}
    while open_:
        wait = None if deadline is None else deadline - time.monotonic()
        if wait is not None and wait <= 0:
            return
        ready, _, _ = select.select(list(open_), [], [], wait)
        for fd in ready:
            worker = open_[fd]
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                os.close(fd)
                worker.pipe = -1
                del open_[fd]
                continue
            worker.buffer += chunk
            for message in _messages(worker.buffer):
                take(worker, message)


def _messages(buffer: bytearray) -> list[tuple[Any, ...]]:
    """The whole messages at the start of ``buffer``, taken out of it."""
    out = []
    while len(buffer) >= _HEAD.size:
        (size,) = _HEAD.unpack_from(buffer)
        if len(buffer) < _HEAD.size + size:
            break
        out.append(pickle.loads(buffer[_HEAD.size : _HEAD.size + size]))
        del buffer[: _HEAD.size + size]
    return out


def _kill(workers: list[_Worker]) -> None:
    """Those still at work (they still hold their end of the pipe)."""
    for worker in workers:
        if worker.pipe >= 0:
            with contextlib.suppress(ProcessLookupError):
                os.kill(worker.pid, signal.SIGKILL)


def _reap(workers: list[_Worker]) -> None:
    for worker in workers:
        if worker.pipe >= 0:
            os.close(worker.pipe)
            worker.pipe = -1
        worker.status = os.waitpid(worker.pid, 0)[1]


class _Replay:
    """What the workers did, on this process's hooks, as if it had been done here: the
    collection once every file is collected (its line counts the tests), then each file's
    tests as their reports come, while the workers still run (after ^C, or when a worker
    died, what was done till then)."""

    def __init__(self, session: pytest.Session, files: int, workers: list[_Worker]) -> None:
        self.session = session
        self.workers = workers
        self.config = session.config
        self.hook = session.config.hook
        self.files_left = files
        self.collected = 0
        self.deselected: list[str] = []
        self.collection: list[tuple[str, Any]] = []  # collect reports and their warnings
        self.waiting: list[tuple[str, Any]] = []  # tests' reports before the collected line
        self.started = False
        self.errors = 0
        self.ending: tuple[str, str, int | None] | None = None  # how a test ended the session

    def take(self, worker: _Worker, message: tuple[Any, ...]) -> None:
        kind = message[0]
        if kind == "file":
            worker.file = message[1]
        elif kind == "collected":
            self.collected += message[1]
            self.deselected += message[2]
            self.collection += message[3]
            self.files_left -= 1
            if self.files_left == 0:
                self._start()
        elif kind == "results":
            if self.started:
                self._tests(message[1])
            else:
                self.waiting += message[1]
        elif kind == "seen":
            _seen(self.config).update(message[1])
        elif kind == "done":
            worker.done = True
        elif kind == "ended":  # pytest.exit(), or a test set session.shouldstop / shouldfail
            if self.ending is None:
                self.ending = message[1:]
            for other in self.workers:  # each stops after its test (as one process stops)
                if other is not worker and other.pipe >= 0:
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(other.pid, _STOP)

    def ended_by_a_test(self) -> None:
        """The session ended as the test that ended it asked, once every worker has stopped."""
        if self.ending is None:
            return
        how, reason, code = self.ending
        if how == "exit":
            raise pytest.exit.Exception(reason, returncode=code)
        session = self.session
        setattr(session, how, reason)  # (what the terminal's summary names)
        if how == "shouldfail":
            raise session.Failed(reason)
        raise session.Interrupted(reason)

    def end(self, workers: list[_Worker], interrupted: bool = False) -> None:
        if not self.started:  # (a worker that died, or ^C, before every file was collected)
            self._start()
        if interrupted:
            return
        session = self.session
        for worker in workers:
            if worker.done and worker.status == 0:
                continue
            where = f" in {worker.file}" if worker.file else ""
            sys.stderr.write(
                f"\nworker {worker.number} ended early ({_status(worker.status)}){where}: "
                f"the tests it had taken and not reported are missing from this run\n"
            )
            session.testsfailed += 1
        if self.errors:
            raise session.Interrupted(_errors(self.errors))

    def _start(self) -> None:
        self.started = True
        config, hook = self.config, self.hook
        # as pytest counts: those selected
        self.session.testscollected = self.collected - len(self.deselected)
        terminal = config.pluginmanager.getplugin("terminalreporter")
        if terminal is not None:
            terminal._numcollected = self.collected  # ("collected N items / M deselected")
        if self.deselected:  # by name only: the items themselves stayed in the workers
            hook.pytest_deselected(items=[SimpleNamespace(nodeid=n) for n in self.deselected])
        for kind, data in self.collection:
            if kind == "collect":
                report = hook.pytest_report_from_serializable(config=config, data=data)
                self.errors += report.failed
                hook.pytest_collectreport(report=report)
            elif kind == "warning":
                hook.pytest_warning_recorded.call_historic(kwargs=_warning(data))
        if terminal is not None:
            terminal.report_collect(True)
        waiting, self.waiting = self.waiting, []
        self._tests(waiting)

    def _tests(self, results: list[tuple[str, Any]]) -> None:
        config, hook = self.config, self.hook
        for kind, data in results:
            if kind == "warning":
                hook.pytest_warning_recorded.call_historic(kwargs=_warning(data))
            elif kind == "test":
                report = hook.pytest_report_from_serializable(config=config, data=data)
                if report.when == "setup":  # the terminal names each file as its first test starts
                    hook.pytest_runtest_logstart(nodeid=report.nodeid, location=report.location)
                hook.pytest_runtest_logreport(report=report)
                if report.when == "teardown":
                    hook.pytest_runtest_logfinish(nodeid=report.nodeid, location=report.location)


def _seen(config: pytest.Config) -> set[Any]:
    """The test ids the cache provider keeps (``cache/nodeids``: what ``--nf`` calls new is
    what is not in it): in a worker, those it had and those it collected; in the main
    process, which collects none, the workers' added to its own before it writes them."""
    plugin = config.pluginmanager.get_plugin("nfplugin")
    return set() if plugin is None else plugin.cached_nodeids


def _status(status: int | None) -> str:
    if status is None:
        return "unknown"
    if os.WIFSIGNALED(status):
        return f"killed by {signal.Signals(os.WTERMSIG(status)).name}"
    return f"exit code {os.waitstatus_to_exitcode(status)}"


def _file_of(item: pytest.Item) -> str:
    file = item.getparent(pytest.File)
    return item.nodeid.split("::")[0] if file is None else file.nodeid


def _capture_of_its_own(config: pytest.Config) -> None:
    """pytest's global capture (``--capture=fd``, the default) made anew in this worker: the
    one forked from the main process writes to the main process's temporary files, which
    every worker would share (one offset, one file): a test's captured output read, and
    the file truncated, with another worker's in it or its own gone."""
    capman = config.pluginmanager.getplugin("capturemanager")
    capturing = None if capman is None else capman._global_capturing
    if capturing is None:
        return
    capturing.stop_capturing()  # (suspended here: nothing to read; its files closed here only)
    capman._global_capturing = None
    capman.start_global_capturing()
    capman.suspend_global_capture()


class _Run:
    """A worker: takes files off the queue until it is empty, and says what it did."""

    def __init__(
        self, session: pytest.Session, files: list[pytest.File], queue: int, into: int
    ) -> None:
        self.session = session
        self.config = session.config
        self.files = files
        self.queue = queue
        self.into = into
        self.results: list[tuple[str, Any]] = []
        self.deselected: list[str] = []
        self.interrupted = False
        self.sending = False  # (^C is acted on after a message is whole)
        self.stopping = False  # (what was done is being sent: ^C is not raised again)
        self.file = ""  # the last file it said it was at
        self.known = frozenset(sys.modules)  # the modules the main process has, as forked

    def run(self) -> int:
        # This process prints nothing (the main one replays what it reports), but keeps the
        # terminal reporter: pytest's assert messages ask it for the terminal's settings.
        terminal = self.config.pluginmanager.getplugin("terminalreporter")
        if terminal is not None:
            terminal._tw = type(terminal._tw)(file=Path(os.devnull).open("w"))  # noqa: SIM115
        self.config.pluginmanager.register(self, "every_core_worker")
        _capture_of_its_own(self.config)
        signal.signal(signal.SIGINT, self._on_interrupt)
        try:
            items = self._take()
            while items is not None:
                self._at(_file_of(items[0]))
                for item, following in itertools.pairwise(items):
                    self._protocol(item, following)
                after = self._take()  # the last test's teardown depends on what follows
                self._at(_file_of(items[-1]))  # (not the file just taken: a crash is here)
                self._protocol(items[-1], after[0] if after else None)
                self._send(("results", self.results))
                self.results = []
                items = after
        except KeyboardInterrupt:  # what was done, and the fixtures' own cleanup, at least
            self.stopping = True
            self._send(("results", self.results))
            self._teardown()
            return 2
        except (_Stop, pytest.exit.Exception) as stop:  # as pytest ends its session early
            self.stopping = True
            self._send(("results", self.results))
            self.results = []
            if isinstance(stop, pytest.exit.Exception):
                self._send(("ended", "exit", stop.msg, stop.returncode))
            self._teardown()
        self._send(("results", self.results))
        self._send(("seen", _seen(self.config)))
        self._send(("done",))
        return 0

    def _teardown(self) -> None:
        """Every fixture still set up, torn down (pytest's own at the session's end)."""
        with contextlib.suppress(BaseException):
            self.session._setupstate.teardown_exact(None)

    def _at(self, file: str) -> None:
        """Says which file this worker is at (collecting, or running a test of): the one a
        crash is reported in."""
        if file != self.file:
            self.file = file
            self._send(("file", file))

    def _on_interrupt(self, signum: int, frame: object) -> None:
        self.interrupted = True
        if not self.sending:  # (else raised once the message is whole: see _send)
            raise KeyboardInterrupt

    def _protocol(self, item: pytest.Item, nextitem: pytest.Item | None) -> None:
        self.config.hook.pytest_runtest_protocol(item=item, nextitem=nextitem)
        if self.interrupted:  # ^C, taken by the test as its own (a run saves and stops)
            raise KeyboardInterrupt
        session = self.session
        for how in ("shouldfail", "shouldstop"):  # (pytest's order)
            reason = getattr(session, how)
            if reason:
                self._send(("ended", how, str(reason), None))
                raise _Stop
        if _stop_asked:
            raise _Stop

    def _take(self) -> list[pytest.Item] | None:
        """The next file's tests (None once the queue is empty)."""
        while True:
            if _stop_asked:
                raise _Stop
            raw = os.read(self.queue, _INDEX.size)  # two bytes, whole: one pipe read at a time
            if len(raw) < _INDEX.size:
                return None
            file = self.files[_INDEX.unpack(raw)[0]]
            self._at(file.nodeid)
            mark, deselected = len(self.results), len(self.deselected)
            with self._collect_warnings():  # (pytest's own pytest_collection does the same)
                items = self._collect(file)
                collected = len(items)
                self.config.hook.pytest_collection_modifyitems(
                    session=self.session, config=self.config, items=items
                )
            # What collecting it gave, said at once: the main process writes the run's first
            # lines once every file is collected, and each file's tests as they come after.
            gave = self.results[mark:]
            del self.results[mark:]
            self._send(("collected", collected, self.deselected[deselected:], gave))
            if items:
                return items

    def _collect_warnings(self) -> contextlib.AbstractContextManager[None]:
        """The warnings a file's import and collection give, recorded as pytest records them
        while it collects (``when="collect"``: the warnings summary), unless ``-p no:warnings``."""
        if not self.config.pluginmanager.has_plugin("warnings"):
            return contextlib.nullcontext()
        from _pytest.warnings import catch_warnings_for_item

        return catch_warnings_for_item(self.config, self.config.hook, when="collect", item=None)

    def _collect(self, file: pytest.File) -> list[pytest.Item]:
        """Its tests, collected with the cyclic GC off (tests/conftest.py's
        ``pytest_collection`` says why), then frozen out of the collector's way."""
        was_on = gc.isenabled()
        gc.disable()
        try:
            return list(self.session.genitems(file))
        finally:
            if was_on:
                gc.enable()
            gc.freeze()

    def _send(self, message: tuple[Any, ...]) -> None:
        """One message, whole: ^C while it is written is raised after it (a message cut
        short would be read with the next one's bytes as its own)."""
        body = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
        view = memoryview(_HEAD.pack(len(body)) + body)
        self.sending = True
        try:
            while view:
                view = view[os.write(self.into, view) :]
        finally:
            self.sending = False
        if self.interrupted and not self.stopping:
            raise KeyboardInterrupt

    def _travels(self, value: object) -> object:
        """A value as the main process can have it: itself when it pickles and unpickles
        there, else its text (what ``--junitxml`` writes of any value)."""
        try:
            pickled = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
            _Known(io.BytesIO(pickled), self.known).load()
        except Exception:
            return str(value)
        return value

    # -- hooks, in this worker --------------------------------------------------------
    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        data = self.config.hook.pytest_report_to_serializable(config=self.config, report=report)
        if report.user_properties:  # (record_property's: any object a test gives)
            data["user_properties"] = [
                (name, self._travels(value)) for name, value in report.user_properties
            ]
        self.results.append(("test", data))

    @pytest.hookimpl(tryfirst=True)
    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if not report.passed:  # a file that fails to import, or is skipped whole
            data = self.config.hook.pytest_report_to_serializable(config=self.config, report=report)
            self.results.append(("collect", data))

    def pytest_deselected(self, items: list[pytest.Item]) -> None:
        self.deselected += [item.nodeid for item in items]

    def pytest_warning_recorded(
        self,
        warning_message: warnings.WarningMessage,
        when: str,
        nodeid: str,
        location: tuple[str, int, str] | None,
    ) -> None:
        w = warning_message
        message = warnings.WarningMessage(w.message, w.category, w.filename, w.lineno, line=w.line)
        try:  # (without its source object) pickled alone: the main process may not unpickle it
            pickled: bytes | None = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:
            pickled = None
        text = warnings.WarningMessage(
            UserWarning(f"{w.category.__name__}: {w.message}"),
            UserWarning, w.filename, w.lineno, line=w.line,
        )  # fmt: skip
        kwargs = {"warning_message": (pickled, text), "when": when, "nodeid": nodeid,
                  "location": location}  # fmt: skip
        self.results.append(("warning", kwargs))


class _Known(pickle.Unpickler):
    """Unpickles what refers to modules the main process has imported only (``known``:
    those a worker was forked with): not a test module's class (it would import the test
    module there, or fail)."""

    def __init__(self, file: io.BytesIO, known: frozenset[str] | None = None) -> None:
        super().__init__(file)
        self.known = known

    def find_class(self, module: str, name: str) -> Any:
        if module not in (sys.modules if self.known is None else self.known):
            raise pickle.UnpicklingError(f"{module} is not imported here")
        return super().find_class(module, name)


def _warning(data: dict[str, Any]) -> dict[str, Any]:
    """A worker's warning as pytest_warning_recorded's arguments: the warning itself, or,
    when it does not unpickle here (a class of a test module's, or one that takes other
    arguments than it keeps), its text as a UserWarning."""
    pickled, text = data["warning_message"]
    try:
        message = text if pickled is None else _Known(io.BytesIO(pickled)).load()
    except Exception:
        message = text
    return {**data, "warning_message": message}
