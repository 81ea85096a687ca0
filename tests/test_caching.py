"""shared_cache computes each key once, even when threads miss at the same moment; a
bounded memo keeps its latest entries and survives another thread evicting first."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

from sscbench.caching import bounded, shared_cache


def test_concurrent_misses_compute_once() -> None:
    calls: list[int] = []

    @shared_cache
    def slow(x: int) -> int:
        calls.append(x)
        time.sleep(0.05)
        return x * 2

    results: list[int] = []
    threads = [threading.Thread(target=lambda: results.append(slow(3))) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [6] * 8
    assert calls == [3]
    assert slow(4) == 8 and calls == [3, 4]


def test_a_bounded_memo_keeps_the_latest() -> None:
    memo: dict[str, int] = {}
    for key in ("a", "b", "c"):
        assert bounded(memo, key, lambda k=key: ord(k), 2) == ord(key)
    assert list(memo) == ["b", "c"]
    assert bounded(memo, "b", lambda: -1, 2) == ord("b")  # a hit: not made again


class _EvictedMeanwhile(dict[str, Any]):
    """A memo another thread evicts from between this thread's look at its oldest key and
    the deletion (as two episodes sharing one memo can)."""

    def __iter__(self) -> Iterator[str]:
        keys = list(super().__iter__())
        super().__delitem__(keys[0])
        return iter(keys)


def test_a_bounded_memo_survives_a_concurrent_eviction() -> None:
    memo = _EvictedMeanwhile(a=1, b=2)
    assert bounded(memo, "c", lambda: 3, 2) == 3
    assert dict(memo) == {"b": 2, "c": 3}
