"""The customer's own tool calls on their device, in a dual-control domain (telecom).

The agent never sees these: it sees only what the customer then says. They are kept in
``device.jsonl`` beside the ledger (the ledger's model-visible history is unchanged, so
airline and retail runs are byte for byte what they were), one line per call, with the
step of the customer message that follows them: the channel by which a device reading
reaches the agent, if it does.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import ConfigDict

from sscbench.records.versioning import VersionedRecord

DEVICE_FILE = "device.jsonl"


class DeviceCall(VersionedRecord):
    """One call the customer made on their device, and what the device answered."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["device_call"] = "device_call"
    step: int
    """The step of the customer message that follows the call."""
    call_id: str
    name: str
    arguments: dict[str, Any]
    content: str
    error: bool = False
