"""The cyclic garbage collector run rarely in a batch command (``demo``, ``run``, ``report``,
``oracles evaluate``, ``reconstruct``).

A batch command (the demo, a cold ``reconstruct``) allocates millions of short-lived objects
while holding a large long-lived working set: the τ² domains, the case set, the parsed
ledgers. At Python's default thresholds (a young collection every 700 allocations, an older
one every ten of those) the collector keeps re-walking that working set: 7.8 s of a demo's
90 s of CPU on the development machine, measured with ``gc.callbacks``, most of it full
passes over the parsed ledgers, for almost nothing freed — reference counting frees what
these commands drop, they make few cycles. With what exists when the command starts frozen
out of every pass and a young collection every :data:`YOUNG_THRESHOLD` allocations, the
same demo spent 3.4 s (benchmarks/README.md, "The collector in batch commands").
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import wraps
from typing import TypeVar

YOUNG_THRESHOLD = 100_000
"""Allocations between two young collections inside :func:`rare_collections` (700 by
default); cycles made meanwhile are still collected, just in larger batches."""

A = TypeVar("A")


@contextmanager
def rare_collections() -> Iterator[None]:
    """Collect once, freeze what is alive (imports, loaded domains: it lives as long as the
    process), and collect young objects rarely until the block ends, when the caller's
    thresholds come back. Nothing is frozen that was already garbage, so a long-lived
    process (a test run, a notebook) calling a command many times leaks no cycles."""
    gc.collect()
    gc.freeze()
    before = gc.get_threshold()
    gc.set_threshold(YOUNG_THRESHOLD, *before[1:])
    try:
        yield
    finally:
        gc.set_threshold(*before)


def collecting_rarely(handler: Callable[[A], int]) -> Callable[[A], int]:
    """A command handler run inside :func:`rare_collections`."""

    @wraps(handler)
    def run(args: A) -> int:
        with rare_collections():
            return handler(args)

    return run
