"""The request pipeline shared by every provider: cache → rate limit → retries → records.

A :class:`Backend` knows one wire format (how to build, send and parse a request and how
to classify its SDK's errors); :class:`ProviderClient` adds everything else the same way
for all of them, and records every attempt as a :class:`ProviderCall`. Each attempt is
bounded as a whole by ``timeout``, and all of a run's network time by ``run_time_limit``
(see :mod:`~sscbench.llm.deadline`); every response is redacted of API keys
before anything else sees it.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any, Literal, Protocol

from tenacity import RetryCallState, Retrying, retry_if_exception, stop_after_attempt

from sscbench.errors import ConfigError
from sscbench.llm.cache import ResponseCache, request_hash
from sscbench.llm.config import ProviderConfig
from sscbench.llm.credentials import redact, redact_json
from sscbench.llm.deadline import attempt_deadline
from sscbench.llm.errors import ProviderError
from sscbench.llm.rate_limit import Gate, Limiter, shared_gate, shared_limiter
from sscbench.llm.records import CallStatus, Completion, ProviderCall
from sscbench.llm.retry import Backoff, Failure
from sscbench.llm.spread import shared_spreader
from sscbench.llm.transcript import Message

ERROR_TEXT_LIMIT = 500


class Backend(Protocol):
    """One provider wire format on top of its official SDK."""

    provider: str
    """Recorded provider name: ``openai``, ``anthropic`` or ``openai-compatible``."""

    endpoint: str
    """API root (rate limits are shared per provider endpoint)."""

    def build_request(
        self,
        system: str,
        transcript: Sequence[Message],
        tools: Sequence[Mapping[str, Any]] | None,
        seed: int,
    ) -> dict[str, Any]:
        """The JSON request for one reply (SDK keyword arguments plus extra body)."""
        ...

    def prepare(self, url: str | None = None) -> None:
        """Make ready what a request to ``url`` (default: the endpoint) needs — the SDK
        imported, its shared client built, a managed server started — outside any
        attempt's clock: none of it is the server's latency."""
        ...

    def send(self, request: Mapping[str, Any]) -> dict[str, Any]:
        """Send ``request`` once (no SDK retries) and return the raw response JSON."""
        ...

    def parse(self, response: Mapping[str, Any]) -> Completion:
        """Read a raw response (live or cached) into a :class:`Completion`."""
        ...

    def classify(self, exc: BaseException) -> Failure | None:
        """Classify an SDK error; None for anything that is not a provider error."""
        ...

    def secret(self) -> str | None:
        """The API key in use, if one was read (for redaction only)."""
        ...


class ProviderClient:
    """Sends one participant's requests and keeps its :class:`ProviderCall` records.

    A client lives for one episode (participants build a fresh one in ``start``), so the
    run's wall-clock limit counts from its creation.
    """

    def __init__(
        self,
        backend: Backend,
        config: ProviderConfig,
        role: Literal["agent", "user"],
        calls: list[ProviderCall],
    ) -> None:
        self.backend = backend
        self.config = config
        self.role = role
        self.calls = calls
        self.cache = ResponseCache(config.cache_dir) if config.cache_dir else None
        self._backoff = Backoff(config.retry_initial_wait, config.retry_max_wait, backend.classify)
        self._run_deadline: float | None = None
        if config.run_time_limit is not None:
            self._run_deadline = time.monotonic() + config.run_time_limit
        self._gate: Gate | None = None
        self._urls, self._caps = config.endpoint_caps()
        if self._urls and not callable(getattr(backend, "send_at", None)):
            raise ConfigError(f"{backend.provider} cannot spread requests over endpoints")
        if config.max_in_flight is not None and not self._urls:
            self._gate = shared_gate(backend.provider, backend.endpoint, config.max_in_flight)
        self._limiter: Limiter | None = None
        if config.requests_per_minute is not None:
            self._limiter = shared_limiter(
                backend.provider, backend.endpoint, config.requests_per_minute
            )

    def complete(self, request: Mapping[str, Any], *, seed: int, step: int) -> Completion:
        """One reply for ``request``, re-asking after empty replies as τ² does.

        Each re-ask has its own cache key (``empty_retry`` in the salt), so a replay sees
        the same empty replies and the same final one. The episode seed is part of every
        key, also for providers that do not accept a seed: repetitions are then distinct
        samples, never replays of each other.
        """
        completion = Completion(text=None)
        for empty_retry in range(self.config.empty_retries + 1):
            salt: dict[str, Any] = {"seed": seed}
            if empty_retry:
                salt["empty_retry"] = empty_retry
            completion = self._complete_once(request, salt, step)
            if not completion.is_empty:
                break
        return completion

    def _complete_once(
        self, request: Mapping[str, Any], salt: Mapping[str, Any], step: int
    ) -> Completion:
        key = request_hash({"provider": self.backend.provider, "request": request, "salt": salt})
        if self.cache is not None:
            cached = self.cache.get(key)
            if cached is not None:
                start = time.monotonic()
                completion = self.backend.parse(cached)
                self._record(key, step, 1, "cache_hit", start, completion=completion)
                return completion
        response, completion = self._send_with_retries(request, key, step)
        if self.cache is not None:
            self.cache.put(key, response, provider=self.backend.provider, model=self.config.model)
        return completion

    def _send_with_retries(
        self, request: Mapping[str, Any], key: str, step: int
    ) -> tuple[dict[str, Any], Completion]:
        retrying = Retrying(
            stop=stop_after_attempt(self.config.max_retries + 1),
            wait=self._wait,
            retry=retry_if_exception(self._transient),
            reraise=True,
        )
        try:
            for attempt in retrying:
                with attempt:
                    return self._attempt(request, key, step, attempt.retry_state.attempt_number)
        except ProviderError:
            raise
        except Exception as exc:
            failure = self.backend.classify(exc)
            if failure is None:
                raise  # not a provider error: a harness bug, with its own traceback
            if self._run_left() == 0.0:
                raise self._run_limit_error() from None
            raise ProviderError(self._describe(exc, failure)) from None
        raise AssertionError("unreachable: tenacity either returns or raises")

    def _attempt(
        self, request: Mapping[str, Any], key: str, step: int, number: int
    ) -> tuple[dict[str, Any], Completion]:
        # The first call's SDK import (and each endpoint's client) is neither its latency
        # nor time spent holding a rate-limit token: the token is taken right before the
        # request goes out. After the first call this is a lookup per endpoint.
        for endpoint in self._urls or (None,):
            self.backend.prepare(endpoint)
        if self._limiter is not None:
            self._limiter.acquire()
        if self._run_left() == 0.0:
            raise self._run_limit_error()
        # Queued for an endpoint (a place under its cap): not the attempt's latency.
        url = self._spread() if self._urls else None
        if self._gate is not None:
            self._gate.acquire()
        start = time.monotonic()
        deadline = start + self.config.timeout
        if self._run_deadline is not None:
            deadline = min(deadline, self._run_deadline)
        try:
            with attempt_deadline(deadline):
                if url is None:
                    sent = self.backend.send(request)
                else:
                    sent = self.backend.send_at(url, request)  # type: ignore[attr-defined]
                response = redact_json(sent)
        except Exception as exc:
            failure = self.backend.classify(exc)
            if failure is not None:
                self._record(
                    key, step, number, "error", start, exc=exc, failure=failure, endpoint=url
                )
            raise
        finally:
            if self._gate is not None:
                self._gate.release()
            if url is not None:
                shared_spreader().release(self.backend.provider, url)
        try:
            completion = self.backend.parse(response)
        except (KeyError, IndexError, TypeError, ValueError) as exc:
            self._record(key, step, number, "error", start, exc=exc, endpoint=url)
            raise ProviderError(
                f"{self.backend.provider} model {self.config.model}: unreadable response "
                f"({type(exc).__name__}: {exc})"
            ) from None
        status: CallStatus = "empty" if completion.is_empty else "ok"
        self._record(key, step, number, status, start, completion=completion, endpoint=url)
        return response, completion

    def _spread(self) -> str:
        """The endpoint this attempt goes to (its place held until the attempt ends)."""
        policy = self.config.endpoint_policy
        return shared_spreader().acquire(self.backend.provider, self._urls, self._caps, policy)

    def _transient(self, exc: BaseException) -> bool:
        failure = self.backend.classify(exc)
        return failure is not None and failure.transient and self._run_left() != 0.0

    def _wait(self, state: RetryCallState) -> float:
        wait = self._backoff(state)
        left = self._run_left()
        return wait if left is None else min(wait, left)

    def _run_left(self) -> float | None:
        """Seconds left of the run's wall-clock limit (0 once spent); None without one."""
        if self._run_deadline is None:
            return None
        return max(0.0, self._run_deadline - time.monotonic())

    def _run_limit_error(self) -> ProviderError:
        return ProviderError(
            f"{self.backend.provider} model {self.config.model}: run wall-clock limit reached "
            f"(run_time_limit={self.config.run_time_limit} seconds); the run is incomplete, "
            "re-run to retry it"
        )

    def _describe(self, exc: BaseException, failure: Failure) -> str:
        status = f"HTTP {failure.http_status}" if failure.http_status else "no HTTP status"
        kind = "after retries" if failure.transient else "(not retryable)"
        message = redact(str(exc), self.backend.secret())[:ERROR_TEXT_LIMIT]
        return (
            f"{self.backend.provider} model {self.config.model} failed {kind}: "
            f"{type(exc).__name__}, {status}: {message}"
        )

    def _record(
        self,
        key: str,
        step: int,
        attempt: int,
        status: CallStatus,
        start: float,
        *,
        completion: Completion | None = None,
        exc: BaseException | None = None,
        failure: Failure | None = None,
        endpoint: str | None = None,
    ) -> None:
        input_tokens = completion.input_tokens if completion else None
        output_tokens = completion.output_tokens if completion else None
        cost: float | None = None
        if status == "cache_hit":
            cost = 0.0
        elif completion is not None:
            cost = self.config.cost(input_tokens, output_tokens)
        error = None
        if exc is not None:
            error = redact(str(exc), self.backend.secret())[:ERROR_TEXT_LIMIT]
        self.calls.append(
            ProviderCall(
                ts=time.time(),
                role=self.role,
                provider=self.backend.provider,
                model=self.config.model,
                step=step,
                request_hash=key,
                attempt=attempt,
                status=status,
                http_status=failure.http_status if failure else None,
                error_class=type(exc).__name__ if exc is not None else None,
                error=error,
                latency_s=time.monotonic() - start,
                input_tokens=input_tokens,
                output_tokens=output_tokens,
                cost_usd=cost,
                cache_hit=status == "cache_hit",
                endpoint=endpoint,
            )
        )
