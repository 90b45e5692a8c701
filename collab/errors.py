"""Known errors: each maps to one line of text and one exit code, never a traceback."""

from __future__ import annotations

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


class UsageError(CollabError):
    """Bad input or options: nothing was started, nothing written."""

    exit_code = EXIT_USAGE
    kind = "usage"


class PrerequisiteError(CollabError):
    """tmux, an agent CLI or a login is missing."""

    exit_code = EXIT_PREREQ
    kind = "prerequisite"


class RunLockedError(UsageError):
    """Another process is driving this run."""

    kind = "locked"


class RunnerError(CollabError):
    """The runner lost its pane, server or process in a way a retry cannot mend."""

    kind = "runner"


class Interrupted(CollabError):
    """Ctrl-C or SIGTERM: state is saved, the run is resumable."""

    exit_code = EXIT_INTERRUPTED
    kind = "interrupted"
