"""Expiry: an observation showing server time at or past the artifact's expiry refutes it.

The fault-bearing observation is the first record delivered with an artifact (its
envelope shows the issue time and TTL: ``[issued, issued + ttl)``). The claim it carries —
that the artifact can be used — is refuted once the history shows the server time at or
past ``issued + ttl``: a later envelope's ``server_time`` (a re-fetch) or the expiry
response to a late write. Only tool observations count; the window is half-open, so an
observation at exactly ``issued + ttl`` refutes.
"""

from __future__ import annotations

from sscbench.fault_contracts.artifacts import issues, server_times
from sscbench.fault_contracts.contract import ArtifactTTL, FaultContract
from sscbench.fault_contracts.history import History
from sscbench.fault_contracts.refutation import RELATIONS, Arrival, RelationNeeds, declare_needs


def artifact_spec(contract: FaultContract) -> ArtifactTTL | None:
    """The contract's artifact spec, if it has one."""
    return next((s for s in contract.interventions if isinstance(s, ArtifactTTL)), None)


@RELATIONS.register("artifact_expiry")
def artifact_expiry(contract: FaultContract, history: History) -> Arrival:
    """First observation showing a server time at or past the first artifact's expiry."""
    spec = artifact_spec(contract)
    if spec is None:
        return Arrival.undecidable("the contract issues no artifact")
    issued = issues(spec, history)
    if not issued:
        return Arrival.never("no artifact was delivered")
    first = issued[0]
    for step, now in server_times(spec, history):
        if step > first.step and now >= first.expires:
            return Arrival.found(
                step,
                (first.step, step),
                f"observation at step {step} shows server time {now:g} s, at or past the "
                f"expiry {first.expires:g} s of {first.artifact_id} issued at step {first.step}",
            )
    return Arrival.never(f"no observation shows the server time past {first.artifact_id}'s expiry")


declare_needs(
    "artifact_expiry",
    RelationNeeds(
        acquisitions=("cross_record",),
        entity=("reservation_id", "order_id"),
        intervention="artifact_ttl",
    ),
)
