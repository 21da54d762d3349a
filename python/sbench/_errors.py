"""The exceptions of sbench: one for each way sbctl exits 1 or 2.

The classes of children (failed, killed, ...) are data, never exceptions.
"""


class Error(Exception):
    """Base of every sbench exception; ``exit_code`` is the status sbctl
    exits with for the same failure (1: the operation could not be done)."""

    exit_code = 1

    def __init__(self, message):
        super().__init__(message)
        self.message = message


class UsageError(Error):
    """Bad arguments or input: what sbctl reports with exit status 2."""

    exit_code = 2


class NotFound(UsageError):
    """What was named does not exist: a spec file, a benchmark, a child."""


class SpecError(UsageError):
    """A bad spec; ``path``, ``line`` and ``column`` say where (None when the
    message names no position, e.g. a file too large)."""

    def __init__(self, message, path, line, column):
        super().__init__(message)
        self.path = path
        self.line = line
        self.column = column


class SchedulerError(Error):
    """The scheduler (sbatch, sacct, squeue) failed or did not answer."""


class Timeout(Error):
    """A wait ran out of time before every child was over."""
