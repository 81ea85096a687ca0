"""Hidden-state records of a run, kept apart from the model-visible ledger.

``hidden.jsonl`` holds the intervention log (:class:`~sscbench.envs.InterventionRecord`)
and environment-state checks. Hidden state may confirm that a mutation happened; only
delivered observations in the ledger establish what the model saw.
"""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict

from sscbench.records.versioning import VersionedRecord


class StateCheck(VersionedRecord):
    """Environment facts at the end of a run."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["state_check"] = "state_check"
    final_state_hash: str | None
    calls_executed: int
    owned_entities: list[str]
