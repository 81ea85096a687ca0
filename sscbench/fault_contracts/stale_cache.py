"""The runtime of a :class:`~sscbench.fault_contracts.contract.StaleRead`: a read-through
cache that was not cleared when the episode was reset.

The cache holds one entry: the record as an earlier episode left it. A matching read is
answered from it — the fault-bearing delivery — until a successful write that names the
record invalidates the entry (a write-through cache does that on every write), after which
reads are fresh. A failed write changed nothing, so it leaves the entry in place.
"""

from __future__ import annotations

from sscbench.envs import CallContext, Observation, ToolCall
from sscbench.fault_contracts.contract import StaleRead
from sscbench.fault_contracts.history import arguments_match


class StaleCache:
    """One stale cache entry and whether a write has invalidated it yet."""

    def __init__(self, spec: StaleRead) -> None:
        self.spec = spec
        self.invalidated_at: int | None = None

    def serve(
        self, call: ToolCall, observation: Observation, ctx: CallContext
    ) -> tuple[Observation, bool] | None:
        """The cached answer to ``call`` and whether it differs from the fresh one; ``None``
        when the call is not a read the entry answers (and, for a successful write naming
        the record, invalidate the entry)."""
        spec = self.spec
        eid = spec.match.get(spec.entity_key)
        if call.name in spec.writes:
            named = call.arguments.get(spec.entity_key) == eid
            if named and not observation.error and self.invalidated_at is None:
                self.invalidated_at = ctx.step
            return None
        if self.invalidated_at is not None or call.name != spec.tool:
            return None
        if not arguments_match(call.arguments, spec.match):
            return None
        if observation.error:  # the record is gone from the fresh state: nothing cached
            return None
        stale = observation.model_copy(update={"content": spec.content})
        return stale, spec.content != observation.content
