"""Deadlines that bound a whole attempt, and a whole run, rather than each socket read.

The SDKs' ``timeout`` is the HTTP client's: it bounds every single read, so a server
that sends one byte a second keeps an attempt alive as long as it likes. The provider
layer therefore sets an absolute deadline around every attempt (``timeout`` after it
starts, or the run's wall-clock limit if that comes first) and the SDK clients' network
layer (:mod:`~sscbench.llm.transport`) cuts each connect, read, write and
TLS handshake to the time left. The deadline is a context variable, so threads sharing
one connection pool each keep their own.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_DEADLINE: ContextVar[float | None] = ContextVar("sscbench_attempt_deadline", default=None)


@contextmanager
def attempt_deadline(at: float) -> Iterator[None]:
    """Bound all network I/O of the calling context until ``at`` (``time.monotonic``)."""
    token = _DEADLINE.set(at)
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def time_left() -> float | None:
    """Seconds until the current deadline (may be ≤ 0), or None outside any attempt."""
    at = _DEADLINE.get()
    return None if at is None else at - time.monotonic()
