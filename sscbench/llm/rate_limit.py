"""A per-provider request-rate limiter, safe across threads and asyncio tasks.

Each request reserves the next free slot under a lock (a few arithmetic operations, never
held while waiting) and then sleeps until its slot, in a thread with :meth:`acquire` or in
a coroutine with :meth:`acquire_async`. Agents and user simulators talking to the same
provider endpoint share one limiter, because providers limit the account, not the client.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from typing import Protocol


class RateLimiter:
    """At most ``per_minute`` requests per minute, evenly spaced (no bursts)."""

    def __init__(self, per_minute: float, clock: Callable[[], float] = time.monotonic) -> None:
        if per_minute <= 0:
            raise ValueError("per_minute must be positive")
        self.interval = 60.0 / per_minute
        self._clock = clock
        self._next = float("-inf")
        self._lock = threading.Lock()

    def tighten(self, per_minute: float) -> None:
        """Lower the rate to ``per_minute`` if that is stricter (shared limiters)."""
        with self._lock:
            self.interval = max(self.interval, 60.0 / per_minute)

    def reserve(self) -> float:
        """Claim the next slot; return how many seconds to wait for it."""
        with self._lock:
            now = self._clock()
            start = max(now, self._next)
            self._next = start + self.interval
            return start - now

    def acquire(self) -> None:
        """Block the calling thread until its slot."""
        delay = self.reserve()
        if delay > 0:
            time.sleep(delay)

    async def acquire_async(self) -> None:
        """Suspend the calling task until its slot."""
        delay = self.reserve()
        if delay > 0:
            await asyncio.sleep(delay)


class Limiter(Protocol):
    """What a provider client needs of a limiter (a local one, or a cluster-wide proxy)."""

    def acquire(self) -> None:
        """Block the calling thread until its slot."""
        ...


LimiterFactory = Callable[[str, str, float], Limiter]
"""(provider, endpoint, per_minute) → the limiter shared by everything using that endpoint."""

_SHARED: dict[tuple[str, str], RateLimiter] = {}
_SHARED_LOCK = threading.Lock()
_FACTORY: LimiterFactory | None = None


def use_limiters(factory: LimiterFactory | None) -> None:
    """Make :func:`shared_limiter` hand out ``factory``'s limiters (None: this process's
    own). An executor that runs episodes in several processes installs a factory whose
    limiters are shared across all of them, because providers limit the account."""
    global _FACTORY
    _FACTORY = factory


def shared_limiter(provider: str, endpoint: str, per_minute: float) -> Limiter:
    """The limiter of one provider endpoint; the strictest rate asked wins."""
    if _FACTORY is not None:
        return _FACTORY(provider, endpoint, per_minute)
    key = (provider, endpoint)
    with _SHARED_LOCK:
        limiter = _SHARED.get(key)
        if limiter is None:
            limiter = _SHARED[key] = RateLimiter(per_minute)
        else:
            limiter.tighten(per_minute)
        return limiter


class Gate(Protocol):
    """At most so many requests in flight to one endpoint (a local server's own queue,
    a vLLM server's batch size): held around each attempt."""

    def acquire(self) -> object:
        """Block until a request may go out."""
        ...

    def release(self) -> object:
        """The request is done."""
        ...


GateFactory = Callable[[str, str, int], Gate]
"""(provider, endpoint, max_in_flight) → the gate shared by everything using that endpoint."""

_GATES: dict[tuple[str, str], threading.BoundedSemaphore] = {}
_GATE_FACTORY: GateFactory | None = None


def use_gates(factory: GateFactory | None) -> None:
    """Make :func:`shared_gate` hand out ``factory``'s gates (None: this process's own);
    the Ray executor installs gates shared by every worker of the cluster."""
    global _GATE_FACTORY
    _GATE_FACTORY = factory


def shared_gate(provider: str, endpoint: str, max_in_flight: int) -> Gate:
    """The in-flight gate of one provider endpoint (the first size asked for wins: a
    semaphore cannot shrink while requests hold it)."""
    if _GATE_FACTORY is not None:
        return _GATE_FACTORY(provider, endpoint, max_in_flight)
    key = (provider, endpoint)
    with _SHARED_LOCK:
        gate = _GATES.get(key)
        if gate is None:
            gate = _GATES[key] = threading.BoundedSemaphore(max_in_flight)
        return gate
