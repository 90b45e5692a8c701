"""Known errors: each maps to one line of text and one exit code, never a traceback.

CollabError
├── UsageError (2)            bad input or options; nothing started
│   ├── InputRefused          refused before anything was sent: over the context budget,
│   │                         or a possible secret (``refused`` says which, for --json)
│   ├── RunLockedError        another process drives the run (or batch)
│   └── DamagedRun            a state.json that cannot be read as a run
├── PrerequisiteError (3)     tmux, an agent CLI or a login is missing
│   └── LoginFailed           an agent's login failed on a call (``first`` keeps the message)
├── StorageError (3, or 1)    COLLAB_HOME cannot be written; 1 once a run has begun
├── RunnerError (1)
└── Interrupted (130)
"""

from __future__ import annotations

from typing import Literal

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_PREREQ = 3
EXIT_INTERRUPTED = 130


class CollabError(Exception):
    """Base of every error the CLI knows how to explain in one line."""

    exit_code = EXIT_FAILED
    kind = "error"

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return self.message if not self.hint else f"{self.message} ({self.hint})"

    def saved(self, run_id: str) -> CollabError:
        """This error as it ends a run whose state was saved: a new error of the same
        kind that also says how to go on (the one raised below stays as it was)."""
        out = type(self).__new__(type(self), *self.args)
        out.__dict__.update(self.__dict__)
        out.message = f"{self.message}; state saved — fix it, then: collab resume {run_id}"
        return out


class UsageError(CollabError):
    """Bad input or options: nothing was started, nothing written."""

    exit_code = EXIT_USAGE
    kind = "usage"


# Why an input was refused before anything was sent: ``error.refused`` in a --json error
# document (collab.error/1), which the GitHub Action reads instead of the message's words.
Refusal = Literal["context-budget", "secret"]


class InputRefused(UsageError):
    """An input refused before anything was sent to a model: context over the budget
    (``context-budget``) or a possible secret (``secret``)."""

    def __init__(self, message: str, *, refused: Refusal, hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.refused: Refusal = refused


class PrerequisiteError(CollabError):
    """tmux, an agent CLI or a login is missing."""

    exit_code = EXIT_PREREQ
    kind = "prerequisite"


class LoginFailed(PrerequisiteError):
    """An agent CLI answered that it has no usable login: no retry can mend it. ``first``
    is the message as raised, before a run adds how to resume."""

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.first = message


class RunLockedError(UsageError):
    """Another process is driving this run."""

    kind = "locked"


class DamagedRun(UsageError):
    """A run's state.json that cannot be read as a run: ``reason`` says why, in words
    ``collab list`` shows next to it."""

    def __init__(self, run_id: str, reason: str, *, message: str | None = None) -> None:
        super().__init__(message or f"run {run_id}: {reason}")
        self.run_id = run_id
        self.reason = reason


class StorageError(CollabError):
    """A file of COLLAB_HOME could not be written: the disk is full, read-only, or a file
    stands where a directory should be. Before anything started it is a missing
    prerequisite (exit 3); once a run has begun, :meth:`stopped` makes it a failed run
    (exit 1) that says what was kept. ``resume_fix`` is the fix for a run that stopped
    (the run stays in this COLLAB_HOME, so "use another one" does not help it)."""

    exit_code = EXIT_PREREQ
    kind = "storage"

    def __init__(self, message: str, *, hint: str, resume_fix: str) -> None:
        super().__init__(message, hint=hint)
        self.resume_fix = resume_fix

    def stopped(self, kept: str, then: str) -> StorageError:
        """A run stopped by this failure (once): exit 1, what is kept, how to go on."""
        if self.exit_code != EXIT_FAILED:
            self.exit_code = EXIT_FAILED
            self.message = f"{self.message}; the run stopped, keeping what it last saved ({kept})"
            self.hint = f"{self.resume_fix}, then: {then}"
        return self


class RunnerError(CollabError):
    """The runner lost its pane, server or process in a way a retry cannot mend."""

    kind = "runner"


class Interrupted(CollabError):
    """Ctrl-C or SIGTERM: state is saved, the run is resumable."""

    exit_code = EXIT_INTERRUPTED
    kind = "interrupted"
