"""Private ground truth of a scripted agent: which fact it used where, and how.

Written to a sidecar file beside the ledger (``truth.jsonl``), never into the ledger:
it is the reference against which event reconstruction is validated.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import ConfigDict

from sscbench.records.versioning import VersionedRecord


class FactUse(VersionedRecord):
    """The agent used ``value`` of a fact at ``step``.

    ``operative`` is true when the agent acted on the value as true (an argument it
    passed, a statement it made as fact); false when it quoted the value only to flag or
    verify it. ``source_step`` is the observation step the value came from, or ``None``
    when the agent fell back to its own plan because it refused every sighting.

    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["fact_use"] = "fact_use"
    step: int
    entity_type: str
    entity_id: str
    path: str
    value: Any
    source_step: int | None
    use: Literal["argument", "mention"]

    operative: bool


class FactConflict(VersionedRecord):
    """The agent found a sighting of a fact wrong and said so at ``step``.

    ``chosen`` is the value it used instead (``None`` when it had no trusted value and
    fell back to what it already knew); ``rejected`` is the value it refused.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["fact_conflict"] = "fact_conflict"
    step: int
    entity_type: str
    entity_id: str
    path: str
    chosen: Any
    chosen_step: int | None
    rejected: Any
    rejected_step: int
    reason: str
