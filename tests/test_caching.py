"""shared_cache computes each key once, even when threads miss at the same moment."""

from __future__ import annotations

import threading
import time

from sscbench.caching import shared_cache


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
