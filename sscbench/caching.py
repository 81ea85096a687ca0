"""Process-wide memoisation that concurrent episodes can share, and a bounded memo.

``functools.cache`` is thread-safe for reads but lets two threads that miss at the same
moment both compute the value; for a τ² domain load (hundreds of ms, and a ``gc.freeze``)
or a plan compilation that is wasted work and, for side effects, a hazard. ``shared_cache``
computes each key once: the first thread computes, the others wait for its result.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextlib import suppress
from functools import wraps
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")
K = TypeVar("K")
V = TypeVar("V")


def shared_cache(func: Callable[P, R]) -> Callable[P, R]:
    """Memoise ``func`` on its (hashable) arguments, computing each key exactly once."""
    values: dict[object, R] = {}
    locks: dict[object, threading.Lock] = {}
    guard = threading.Lock()

    @wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        key = (args, tuple(sorted(kwargs.items())))
        try:
            return values[key]
        except KeyError:
            pass
        with guard:
            lock = locks.setdefault(key, threading.Lock())
        with lock:
            if key not in values:
                values[key] = func(*args, **kwargs)
            return values[key]

    return wrapper


def bounded(cache: dict[K, V], key: K, make: Callable[[], V], limit: int) -> V:
    """``cache[key]``, made by ``make`` on a miss; past ``limit`` entries the oldest one is
    dropped. For values keyed by a text the runs of a case share (a parsed observation,
    what a walk over a record found): kept while the text is among the latest, so memory
    stays bounded over any number of runs."""
    found = cache.get(key)
    if found is None:
        found = cache[key] = make()
        if len(cache) > limit:
            # Another thread may have evicted the same oldest entry, or inserted, meanwhile.
            with suppress(KeyError, RuntimeError):
                del cache[next(iter(cache))]
    return found
