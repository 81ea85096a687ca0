"""Exception hierarchy: three lanes, never mixed.

Injected faults are data (never exceptions). Errors the model should see become tool
error observations inside :mod:`sscbench.envs`. Everything here is for the *harness*:
bad input from a user (:class:`ConfigError`), a bug or broken invariant in SSCBench
itself (:class:`HarnessError`), unreadable ledgers (:class:`LedgerError`) and an external
service — a model provider — that gave no usable reply (:class:`ServiceError`).
"""

from __future__ import annotations

import errno
from pathlib import Path


class SSCBenchError(Exception):
    """Base class of every error SSCBench raises on purpose."""


class ConfigError(SSCBenchError):
    """Bad user input: unknown domain, task, agent, unwritable path, invalid file."""


class HarnessError(SSCBenchError):
    """A bug or broken invariant inside the harness; the run fails visibly."""


class ServiceError(SSCBenchError):
    """An external service (a model provider) gave no usable reply; transient by nature,
    so a run it ended is retried by the next invocation."""


class ClientError(SSCBenchError):
    """An external agent's client broke its session: it never connected, went silent,
    disconnected mid-run, or its program failed. The run is not a result; like a provider
    failure it is retried by the next invocation."""


class LedgerError(SSCBenchError):
    """A ledger line that cannot be read; names the file and line."""

    def __init__(self, path: Path | str, line: int, problem: str) -> None:
        self.path = Path(path)
        self.line = line
        self.problem = problem
        super().__init__(f"{self.path}:{line}: {problem}")


FULL = frozenset({errno.ENOSPC, errno.EDQUOT})
"""No space (or no quota) left: the user frees some and runs the command again."""


class OutputError(SSCBenchError):
    """A file SSCBench was writing could not be written — a full disk, a quota, an I/O
    error. The command stops with one line naming the file and the cause; what it was
    writing is left as a crash would leave it (an append-only ledger or status file with
    a cut last line, which the next run sets aside) or removed (a temporary file that
    would have replaced a derived document), never half-written in its place."""

    def __init__(self, path: Path | str, exc: OSError) -> None:
        self.path = Path(path)
        self.errno = exc.errno
        cause = exc.strerror or type(exc).__name__
        if exc.errno in FULL:
            advice = "free some space and run the same command again"
        else:
            advice = "check the file system, then run the same command again"
        super().__init__(f"cannot write {self.path}: {cause}; {advice}")
