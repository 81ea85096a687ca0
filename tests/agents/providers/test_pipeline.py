"""The shared request pipeline's parts in isolation: cache, rate limiter, backoff."""

from __future__ import annotations

import asyncio
import json
import os
import threading
import time
from pathlib import Path

import pytest
from tenacity import RetryCallState

from sscbench.llm.cache import CacheWarning, ResponseCache, request_hash
from sscbench.llm.config import ProviderConfig
from sscbench.llm.rate_limit import RateLimiter, shared_limiter
from sscbench.llm.retry import (
    Backoff,
    Failure,
    retry_after_seconds,
    transient_status,
)


def test_request_hash_is_canonical() -> None:
    a = {"model": "m", "messages": [{"role": "user", "content": "é"}], "seed": 1}
    b = {"seed": 1, "messages": [{"content": "é", "role": "user"}], "model": "m"}
    assert request_hash(a) == request_hash(b)
    assert request_hash(a) != request_hash({**a, "seed": 2})


def test_cache_round_trip_is_atomic_and_tolerates_damage(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path)
    key = request_hash({"x": 1})
    assert cache.get(key) is None
    cache.put(key, {"choices": []}, provider="openai", model="m")
    assert cache.get(key) == {"choices": []}
    entry = json.loads(cache.path(key).read_text())
    assert entry["request_hash"] == key and entry["provider"] == "openai"
    assert [p.name for p in cache.path(key).parent.iterdir()] == [f"{key}.json"]  # no temp left
    cache.path(key).write_text('{"request_hash": "')
    with pytest.warns(CacheWarning):
        assert cache.get(key) is None
    cache.put(key, {"ok": True})
    assert cache.get(key) == {"ok": True}


def test_cache_put_from_many_threads_leaves_one_valid_entry(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path)
    key = request_hash({"y": 2})
    threads = [
        threading.Thread(target=cache.put, args=(key, {"n": i, "pad": "x" * 10_000}))
        for i in range(16)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert cache.get(key) is not None
    assert os.listdir(cache.path(key).parent) == [f"{key}.json"]


def test_rate_limiter_spaces_requests_evenly() -> None:
    now = [100.0]
    limiter = RateLimiter(per_minute=120, clock=lambda: now[0])
    assert [limiter.reserve() for _ in range(3)] == [0.0, 0.5, 1.0]
    now[0] += 5.0
    assert limiter.reserve() == 0.0


def test_rate_limiter_is_thread_safe() -> None:
    limiter = RateLimiter(per_minute=60_000, clock=lambda: 0.0)  # 1 ms slots, frozen time
    delays: list[float] = []
    lock = threading.Lock()

    def grab() -> None:
        for _ in range(50):
            d = limiter.reserve()
            with lock:
                delays.append(d)

    threads = [threading.Thread(target=grab) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(delays) == pytest.approx([i / 1000 for i in range(400)])  # no slot twice


def test_rate_limiter_is_async_safe() -> None:
    limiter = RateLimiter(per_minute=1200)  # 50 ms apart

    async def main() -> float:
        start = time.monotonic()
        await asyncio.gather(*(limiter.acquire_async() for _ in range(5)))
        return time.monotonic() - start

    assert 0.18 <= asyncio.run(main()) < 1.0


def test_shared_limiter_is_per_endpoint_and_strictest_wins() -> None:
    a = shared_limiter("openai", "http://test-endpoint-a", 600)
    assert shared_limiter("openai", "http://test-endpoint-a", 60) is a
    assert a.interval == pytest.approx(1.0)
    assert shared_limiter("openai", "http://test-endpoint-b", 60) is not a


def test_transient_classes_and_retry_after() -> None:
    assert all(transient_status(s) for s in (408, 409, 429, 500, 503, 529))
    assert not any(transient_status(s) for s in (400, 401, 403, 404, 422))
    assert retry_after_seconds({"retry-after": "2"}) == 2.0
    assert retry_after_seconds({"retry-after-ms": "250"}) == 0.25
    assert retry_after_seconds({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) is None
    assert retry_after_seconds(None) is None


def _state(attempt: int, exc: BaseException) -> RetryCallState:
    state = RetryCallState(retry_object=None, fn=None, args=(), kwargs={})  # type: ignore[arg-type]
    state.attempt_number = attempt
    state.set_exception((type(exc), exc, None))
    return state


def test_backoff_is_jittered_exponential_capped_and_honours_retry_after() -> None:
    failures: dict[int, Failure] = {}

    def classify(exc: BaseException) -> Failure | None:
        return failures.get(id(exc))

    backoff = Backoff(initial=1.0, maximum=8.0, failure_of=classify)
    exc = RuntimeError("x")
    waits = [backoff(_state(n, exc)) for n in (1, 2, 3, 4, 5, 6) for _ in range(50)]
    assert all(0 <= w <= 8.0 for w in waits)
    assert max(waits[:50]) <= 1.0 and max(waits[-50:]) > 1.0
    failures[id(exc)] = Failure(transient=True, http_status=429, retry_after=5.0)
    assert all(backoff(_state(1, exc)) == 5.0 for _ in range(10))
    failures[id(exc)] = Failure(transient=True, http_status=429, retry_after=100.0)
    assert backoff(_state(1, exc)) == 8.0


def test_cost_needs_both_prices_and_tokens() -> None:
    config = ProviderConfig(model="m", input_price_per_mtok=1.0, output_price_per_mtok=4.0)
    assert config.cost(2_000_000, 1_000_000) == pytest.approx(6.0)
    assert config.cost(None, 5) is None
    assert ProviderConfig(model="m").cost(1, 1) is None


def test_config_is_frozen_and_strict() -> None:
    config = ProviderConfig(model="m")
    with pytest.raises(Exception, match="frozen"):
        config.model = "n"  # type: ignore[misc]
    with pytest.raises(Exception, match="extra"):
        ProviderConfig(model="m", api_key="sk-x")  # type: ignore[call-arg]
