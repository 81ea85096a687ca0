"""The SDK clients' network layer, cut to the attempt deadline (see
:mod:`~sscbench.llm.deadline`).

Each SDK gets its own default HTTP client (same limits, keep-alive options and
environment proxies as without SSCBench), whose connection pools get a network backend
that clamps every socket operation's timeout to the time left and raises the transport's
own timeout error once none is left. The SDKs turn that error into ``APITimeoutError``:
transient, retried and recorded like any other timeout. Imported only when a request
really goes out (it imports the HTTP stack).
"""

from __future__ import annotations

import ssl
from collections.abc import Iterable
from types import ModuleType
from typing import Any

import httpcore2
import httpx2

from sscbench.errors import HarnessError
from sscbench.llm.deadline import time_left


def _bounded(timeout: float | None, error: type[Exception]) -> float | None:
    left = time_left()
    if left is None:
        return timeout
    if left <= 0:
        raise error("the attempt deadline has passed")
    return left if timeout is None else min(timeout, left)


class _Stream(httpcore2.NetworkStream):
    def __init__(self, inner: httpcore2.NetworkStream) -> None:
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, _bounded(timeout, httpcore2.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, _bounded(timeout, httpcore2.WriteTimeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore2.NetworkStream:
        bounded = _bounded(timeout, httpcore2.ConnectTimeout)
        return _Stream(self._inner.start_tls(ssl_context, server_hostname, bounded))

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class _Backend(httpcore2.NetworkBackend):
    def __init__(self, inner: httpcore2.NetworkBackend) -> None:
        self._inner = inner

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore2.NetworkStream:
        bounded = _bounded(timeout, httpcore2.ConnectTimeout)
        return _Stream(self._inner.connect_tcp(host, port, bounded, local_address, socket_options))

    def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore2.NetworkStream:
        bounded = _bounded(timeout, httpcore2.ConnectTimeout)
        return _Stream(self._inner.connect_unix_socket(path, bounded, socket_options))

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


KEEP_ALIVE = httpx2.Limits(
    max_connections=1000, max_keepalive_connections=1000, keepalive_expiry=5.0
)
"""The SDKs' own connection limits, except that every connection is kept alive: their
default keeps 100, so 256 episodes in flight to one endpoint closed and reopened 156
connections on every round of calls (a local model server's clients are many and busy)."""


def deadline_http_client(sdk: ModuleType) -> Any:
    """``sdk.DefaultHttpxClient()`` with every connection pool cut to the deadline.

    The pools' backends are reached through private attributes of the HTTP client (it has
    no public hook for them); if that layout changes this raises instead of silently
    leaving attempts unbounded, and the slow-drip tests fail.
    """
    client = sdk.DefaultHttpxClient(limits=KEEP_ALIVE)
    transports = [client._transport, *client._mounts.values()]
    for transport in transports:
        if transport is None:
            continue  # a NO_PROXY pattern: served by the default transport
        pool: Any = getattr(transport, "_pool", None)
        inner = getattr(pool, "_network_backend", None)
        if pool is None or inner is None:
            raise HarnessError(
                f"cannot bound attempts: {type(transport).__name__} has no network backend "
                f"(HTTP client layout changed; SDK {sdk.__name__} {sdk.__version__})"
            )
        if not isinstance(inner, _Backend):
            pool._network_backend = _Backend(inner)
    return client
