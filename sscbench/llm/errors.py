"""The errors the provider layer raises on purpose."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from sscbench.errors import ServiceError


class ProviderError(ServiceError):
    """A model provider gave no usable reply: a non-retryable error, retries exhausted,
    an unreadable response, the run's wall-clock limit spent, or an empty reply from the
    user simulator.

    It is not a result about the agent: the episode loop records the run as a harness
    failure (counted as missing, never scored). The message names the provider, model,
    HTTP status and error class, and never contains the API key.
    """


class EmptyReply(Exception):
    """The model's reply stayed empty (no text, no tool call) after τ²'s re-asks.

    Raised by a provider agent's ``next_turn`` instead of returning an empty turn, so the
    episode loop records the empty reply as what it was and ends the run as
    ``empty_reply``: the model did not choose to stop (``agent_stop``), it said nothing.
    """


class UnreadableResponse(Exception):
    """One attempt got a success status but a body that is not a JSON object (an HTML
    error page from a proxy, a truncated body). Transient: retried and recorded like a 5xx.
    """

    def __init__(self, message: str, http_status: int | None = 200) -> None:
        super().__init__(message)
        self.http_status = http_status


def unreadable(body: object) -> UnreadableResponse:
    """The error for a body the SDK could not read as JSON (its start is kept, redacted
    later with every other provider message)."""
    text = body if isinstance(body, str) else repr(body)
    return UnreadableResponse(f"response body is not JSON: {text[:120]!r}")


def post_for_json(client: Any, path: str, request: Mapping[str, Any]) -> dict[str, Any]:
    """POST a built request (``params`` plus ``extra_body``) through an SDK client's own
    ``post`` (same auth, headers, timeout and error classes) and return the body as JSON;
    a 2xx whose body is not a JSON object is an :class:`UnreadableResponse`.

    The SDK hands back the raw HTTP response and the body is read here with ``json``:
    building the SDK's response model and dumping it again cost about 0.8 ms of CPU per
    call, which at hundreds of concurrent episodes is the client's largest share (see
    docs/experiments.md, "Running on Ray"). The JSON is the server's own — fields it sent
    as ``null`` stay ``null``, which every ``parse`` treats as absent."""
    import httpx2

    body = {**request["params"], **(request["extra_body"] or {})}
    response = client.post(path, body=body, cast_to=httpx2.Response)
    try:
        raw = json.loads(response.content)
    except ValueError:
        raise unreadable(response.text) from None
    if not isinstance(raw, dict):
        raise unreadable(raw)
    return raw
