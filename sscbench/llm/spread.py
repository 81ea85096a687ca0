"""Several API roots behind one configuration (e.g. one vLLM server per GPU node): which
one takes the next request.

A configuration with ``endpoints`` sends each attempt to one of them, chosen when the
attempt is about to go out: the least loaded endpoint that is under its ``max_in_flight``
cap (``least_in_flight``, load = in flight / cap), or the next one in turn that has room
(``round_robin``); ties go to the endpoint after the last one chosen, so an idle set is
used in turn. When every endpoint is at its cap, the attempt waits for a place.

Which endpoint served a call changes nothing the measurement reads: the request, its cache
key and the ledger are the same whichever server answered (the servers are meant to serve
the same model); only ``provider_calls.jsonl`` records the endpoint. The counts are shared
by everything that uses an endpoint — every configuration, agent and user simulator of a
process, and on Ray the whole cluster (one actor holds them, see the Ray executor) — so a
cap is the server's, whoever sends to it.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Literal, Protocol

Policy = Literal["least_in_flight", "round_robin"]
POLICIES: tuple[Policy, ...] = ("least_in_flight", "round_robin")


class EndpointLoad:
    """The in-flight count of every endpoint and whose turn it is (not thread-safe: the
    holders below lock around it). Endpoints are named ``provider url``, so two providers
    on one URL do not share a count."""

    def __init__(self) -> None:
        self.in_flight: dict[str, int] = {}
        self._caps: dict[str, int | None] = {}
        self._turn: dict[tuple[str, ...], int] = {}

    def pick(self, names: Sequence[str], caps: Sequence[int | None], policy: Policy) -> str | None:
        """Claim a place on one of ``names`` (None: all are at their cap). The first cap
        given for an endpoint is kept, as a semaphore cannot shrink while it is held."""
        group = tuple(names)
        for name, cap in zip(group, caps, strict=True):
            self._caps.setdefault(name, cap)
        start = self._turn.get(group, 0)
        order = [group[(start + i) % len(group)] for i in range(len(group))]
        free = [n for n in order if self._room(n)]
        if not free:
            return None
        chosen = free[0] if policy == "round_robin" else min(free, key=self._load)
        self._turn[group] = (group.index(chosen) + 1) % len(group)
        self.in_flight[chosen] = self.in_flight.get(chosen, 0) + 1
        return chosen

    def done(self, name: str) -> None:
        """Give back the place ``pick`` claimed on ``name``."""
        left = self.in_flight.get(name, 0) - 1
        if left > 0:
            self.in_flight[name] = left
        else:
            self.in_flight.pop(name, None)

    def _room(self, name: str) -> bool:
        cap = self._caps.get(name)
        return cap is None or self.in_flight.get(name, 0) < cap

    def _load(self, name: str) -> float:
        cap = self._caps.get(name)
        count = self.in_flight.get(name, 0)
        return count / cap if cap else float(count)


class Spreader(Protocol):
    """Chooses the endpoint of each attempt and keeps the in-flight counts."""

    def acquire(
        self, provider: str, urls: Sequence[str], caps: Sequence[int | None], policy: Policy
    ) -> str:
        """Block until one of ``urls`` has room; that URL (its place is now held)."""
        ...

    def release(self, provider: str, url: str) -> None:
        """The attempt sent to ``url`` is over."""
        ...


def endpoint_name(provider: str, url: str) -> str:
    """How an endpoint is counted: one count per provider and API root."""
    return f"{provider} {url}"


class LocalSpreader:
    """The counts of this process, under one condition variable."""

    def __init__(self) -> None:
        self._load = EndpointLoad()
        self._changed = threading.Condition()

    def acquire(
        self, provider: str, urls: Sequence[str], caps: Sequence[int | None], policy: Policy
    ) -> str:
        """Wait for room on one of ``urls``; the chosen URL."""
        names = [endpoint_name(provider, u) for u in urls]
        with self._changed:
            while (chosen := self._load.pick(names, caps, policy)) is None:
                self._changed.wait()
        return urls[names.index(chosen)]

    def release(self, provider: str, url: str) -> None:
        """Free the place and wake the waiters."""
        with self._changed:
            self._load.done(endpoint_name(provider, url))
            self._changed.notify_all()

    def in_flight(self) -> dict[str, int]:
        """Current counts per endpoint name (for tests and progress)."""
        with self._changed:
            return dict(self._load.in_flight)


_LOCAL = LocalSpreader()
_SPREADER: Spreader | None = None


def use_spreader(spreader: Spreader | None) -> None:
    """Make :func:`shared_spreader` hand out ``spreader`` (None: this process's own); the
    Ray executor installs one whose counts are the whole cluster's."""
    global _SPREADER
    _SPREADER = spreader


def shared_spreader() -> Spreader:
    """The spreader every provider client of this process uses."""
    return _SPREADER if _SPREADER is not None else _LOCAL
