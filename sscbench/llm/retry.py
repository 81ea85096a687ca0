"""Which provider failures are retried, and how long to wait between attempts.

Retried: HTTP 408, 409, 429 and 5xx (including Anthropic's 529 "overloaded"), timeouts
and connection errors — the same classes the official SDKs retry, whose own retries are
turned off (``max_retries=0``) so that every attempt is visible and recorded here — and a
success status whose body is not JSON (a proxy's error page: as transient as a 502).
Waits are "full jitter" exponential backoff, raised to the server's ``Retry-After`` when
it asks for longer, capped at ``retry_max_wait``.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from tenacity import RetryCallState

from sscbench.llm.errors import UnreadableResponse

TRANSIENT_STATUS = frozenset({408, 409, 429})


@dataclass(frozen=True)
class Failure:
    """A provider error, classified."""

    transient: bool
    http_status: int | None = None
    retry_after: float | None = None


def transient_status(status: int) -> bool:
    """True for the HTTP statuses worth retrying."""
    return status in TRANSIENT_STATUS or status >= 500


def retry_after_seconds(headers: Mapping[str, str] | None) -> float | None:
    """The server's requested delay (``retry-after-ms`` or numeric ``retry-after``)."""
    if headers is None:
        return None
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            seconds = float(value) * scale
        except ValueError:
            continue  # an HTTP date: rare for model APIs; fall back to backoff
        if seconds >= 0:
            return seconds
    return None


class Backoff:
    """Tenacity ``wait`` callable: full-jitter exponential backoff honouring Retry-After.

    The jitter source is an unseeded ``random.Random`` on purpose: its only job is to
    decorrelate parallel clients, and nothing measured depends on it.
    """

    def __init__(
        self,
        initial: float,
        maximum: float,
        failure_of: Callable[[BaseException], Failure | None],
    ) -> None:
        self.initial = initial
        self.maximum = maximum
        self._failure_of = failure_of
        self._rng = random.Random()

    def __call__(self, state: RetryCallState) -> float:
        ceiling = min(self.maximum, self.initial * 2 ** (state.attempt_number - 1))
        wait = self._rng.uniform(0, ceiling)
        exc = state.outcome.exception() if state.outcome is not None else None
        failure = self._failure_of(exc) if exc is not None else None
        if failure is not None and failure.retry_after is not None:
            wait = max(wait, failure.retry_after)
        return min(wait, self.maximum)


def classify_sdk_error(exc: BaseException, sdk: str) -> Failure | None:
    """Classify an error of the ``openai`` or ``anthropic`` SDK (they share error classes).

    HTTP errors by status (429, 5xx and Anthropic's 529 are transient); connection errors,
    timeouts and unreadable bodies as transient; other SDK errors as permanent; ``None`` for
    anything else, without importing an SDK that was never used.
    """
    if isinstance(exc, UnreadableResponse):
        return Failure(transient=True, http_status=exc.http_status)
    module = sys.modules.get(sdk)
    if module is None:
        return None  # the SDK was never used, so this cannot be one of its errors
    if isinstance(exc, module.APIStatusError):
        return Failure(
            transient=transient_status(exc.status_code),
            http_status=exc.status_code,
            retry_after=retry_after_seconds(exc.response.headers),
        )
    if isinstance(exc, module.APIConnectionError):  # includes APITimeoutError
        return Failure(transient=True)
    if isinstance(exc, module.APIError):
        return Failure(transient=False)
    return None
