"""The session log of an external agent's client (``client.jsonl`` beside the ledger).

What happened on the wire, as opposed to what the model saw (the ledger): the program that
was launched, the client that connected (or was refused), requests rejected before they
reached the episode (a malformed request, an oversized body, a call after the end), how the
session ended and the program's exit status. Never model-visible, never a use; it tells a
reader why a run failed or what a client tried that the ledger cannot hold.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import ConfigDict, Field

from sscbench.records.versioning import VersionedRecord

CLIENT_FILE = "client.jsonl"
"""The session log's file name in a run directory."""

ClientEventKind = Literal[
    "serving",  # the run's endpoint is open (address)
    "launched",  # the agent program started (its command, pid)
    "connected",  # a client attached (its self-reported name, version, protocol)
    "refused",  # a second client, or one on a retired endpoint, was turned away
    "rejected",  # a request that never reached the episode (why)
    "closed",  # the client ended its session cleanly
    "disconnected",  # the client went away without ending its session
    "exited",  # the agent program's exit status
    "stopped",  # the harness stopped a program that outlived its run
    "limit",  # a limit of the agent's own harness (an Inspect limit) ended the run
]


class ClientEvent(VersionedRecord):
    """One entry of an external agent's session log."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["client_event"] = "client_event"
    ts: float = Field(description="wall-clock seconds")
    event: ClientEventKind
    detail: dict[str, Any] = Field(default_factory=dict)
