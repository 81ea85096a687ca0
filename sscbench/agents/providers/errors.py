"""The one error the provider layer raises on purpose."""

from __future__ import annotations

from sscbench.errors import SSCBenchError


class ProviderError(SSCBenchError):
    """A model provider gave no usable reply: a non-retryable error, retries exhausted,
    an unreadable response, or an empty reply from the user simulator.

    It is not a result about the agent: the episode loop records the run as a harness
    failure (counted as missing, never scored). The message names the provider, model,
    HTTP status and error class, and never contains the API key.
    """
