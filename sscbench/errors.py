"""Exception hierarchy: three lanes, never mixed.

Injected faults are data (never exceptions). Errors the model should see become tool
error observations inside :mod:`sscbench.envs`. Everything here is for the *harness*:
bad input from a user (:class:`ConfigError`), a bug or broken invariant in SSCBench
itself (:class:`HarnessError`), unreadable ledgers (:class:`LedgerError`) and an external
service — a model provider — that gave no usable reply (:class:`ServiceError`).
"""

from __future__ import annotations

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
