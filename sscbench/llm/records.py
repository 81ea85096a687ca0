"""What the provider layer records and returns: one record per attempt, one reply per call.

:class:`ProviderCall` lines go to ``provider_calls.jsonl`` next to the ledger (never into
it: the ledger holds only what the model saw). :class:`Completion` is a provider-neutral
reply, parsed the same way from a live response and from a cached one, so a replay takes
exactly the code path of the original run.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from pydantic import ConfigDict, Field

from sscbench.records.versioning import VersionedRecord

CallStatus = Literal["ok", "empty", "error", "cache_hit"]


class ProviderCall(VersionedRecord):
    """One attempt at one model request (a retried request yields several records)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["provider_call"] = "provider_call"
    ts: float = Field(description="wall-clock seconds when the attempt ended")
    role: Literal["agent", "user"] = Field(description="which participant asked")
    provider: str
    model: str
    step: int = Field(ge=0, description="ledger step the reply would take (history length)")
    request_hash: str = Field(description="sha256 of the canonical request (the cache key)")
    attempt: int = Field(ge=1, description="1 for the first try, 2 for the first retry, ...")
    status: CallStatus
    http_status: int | None = None
    error_class: str | None = None
    error: str | None = Field(default=None, description="provider message, key redacted")
    latency_s: float = Field(ge=0)
    input_tokens: int | None = None
    output_tokens: int | None = None
    cost_usd: float | None = Field(default=None, description="0 for cache hits")
    cache_hit: bool = False
    endpoint: str | None = Field(
        default=None,
        exclude_if=lambda value: value is None,
        description="which of a configuration's several endpoints served the attempt",
    )


@dataclass(frozen=True)
class CompletionCall:
    """A tool call as the model produced it; ``arguments`` is the raw JSON text."""

    id: str
    name: str
    arguments: str


@dataclass(frozen=True)
class Completion:
    """A provider-neutral model reply.

    ``reasoning`` keeps provider blocks that must be sent back verbatim with the turn they
    belong to (Anthropic thinking blocks before a ``tool_use``); it never reaches the ledger.
    """

    text: str | None
    calls: tuple[CompletionCall, ...] = ()
    reasoning: tuple[dict[str, Any], ...] = ()
    input_tokens: int | None = None
    output_tokens: int | None = None
    finish_reason: str | None = None

    @property
    def is_empty(self) -> bool:
        """No text worth showing and no tool call (τ² re-asks the model in that case)."""
        return not self.calls and (self.text is None or not self.text.strip())
