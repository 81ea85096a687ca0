"""Runtime injection: execute a contract's intervention specs at the choke point.

:class:`ContractIntervention` implements :class:`sscbench.envs.Intervention` for any
contract, so operators stay declarative. Read-value faults rewrite matching delivered
observations (only while they still show the authoritative value the contract is about);
write faults suppress the matching logical request, once (``first_attempt``) or for every
repeat until a write in between changes the affected fields (``all_attempts``); defect
faults run every matching request through the contract's defective copy of the tool (the
defect is in the tool, so a retry meets it again) while the conforming answer is delivered; a
stale read answers a record's reads from a cache an earlier episode left, until a write to the
record invalidates it (:mod:`sscbench.fault_contracts.stale_cache`).
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from sscbench.envs import CallContext, Observation, ToolCall, WriteDecision
from sscbench.envs.clock import ClockSpec
from sscbench.envs.tool_edit import cached_subclass
from sscbench.fault_contracts.artifacts import ArtifactRuntime
from sscbench.fault_contracts.contract import (
    ArtifactTTL,
    FaultContract,
    ObservationRewrite,
    ReadingRewrite,
    StaleRead,
    ToolEdit,
    WriteSuppression,
)
from sscbench.fault_contracts.device_state import reversed_reading
from sscbench.fault_contracts.history import arguments_match
from sscbench.fault_contracts.refutation import chain_break
from sscbench.fault_contracts.stale_cache import StaleCache
from sscbench.json_paths import get_path, set_path
from sscbench.records.versioning import VersionedRecord


class FaultDelivery(VersionedRecord):
    """Hidden record: an observation the contract's intervention applied to was delivered.

    ``effective`` is true when the delivered observation asserts ``v′`` (a rewrite that
    changed it, or a suppressed write that answered with a success payload); for a
    target-value control it records that the target observation was delivered.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["fault_delivery"] = "fault_delivery"
    contract_id: str
    step: int
    call_id: str
    tool: str
    role: Literal["fault", "alignment"]
    action: Literal["rewrite", "suppress", "edit"]
    effective: bool
    control: bool


class ContractIntervention:
    """The runtime behaviour of one fault contract."""

    def __init__(self, contract: FaultContract) -> None:
        self.contract = contract
        self._rewrites = [s for s in contract.interventions if isinstance(s, ObservationRewrite)]
        self._suppressions = [s for s in contract.interventions if isinstance(s, WriteSuppression)]
        self._artifacts = [
            ArtifactRuntime(s, contract.contract_id)
            for s in contract.interventions
            if isinstance(s, ArtifactTTL)
        ]
        self._edits = [s for s in contract.interventions if isinstance(s, ToolEdit)]
        self._caches = [StaleCache(s) for s in contract.interventions if isinstance(s, StaleRead)]
        self._readings = [s for s in contract.interventions if isinstance(s, ReadingRewrite)]
        self._pending_edits: dict[str, ToolEdit] = {}
        self._edit_attempts = 0
        self._chain_break = (
            chain_break(contract.refutation.relation) if self._suppressions else None
        )
        self._deliveries: dict[int, int] = {}
        self._suppressed_ok = 0
        self._chain_broken = False
        self._touching: set[str] = set()

        self._pending: dict[str, WriteSuppression] = {}
        self._details: dict[str, dict[str, Any]] = {}
        self.deliveries: list[FaultDelivery] = []

    @property
    def clock_spec(self) -> ClockSpec | None:
        """The virtual clock an artifact contract runs on (``None``: no clock needed)."""
        return self._artifacts[0].spec.clock if self._artifacts else None

    # -- writes -------------------------------------------------------------------------
    def decide_write(self, call: ToolCall, ctx: CallContext) -> WriteDecision:
        """Suppress the call when it is (a still-attributable repeat of) the logical request,
        or a gated write whose artifact has expired; edit it when it matches a defect
        fault's request."""
        if any(art.decide(call, ctx) for art in self._artifacts):
            self._details[call.id] = {"role": "fault", "expired": True}
            return WriteDecision.SUPPRESS
        for edit in self._edits:
            if call.name == edit.tool and arguments_match(call.arguments, edit.match):
                self._pending_edits[call.id] = edit
                self._edit_attempts += 1
                self._details[call.id] = {"role": "fault", "attempt": self._edit_attempts}
                return WriteDecision.EDIT
        for spec in self._suppressions:
            if call.name == spec.tool and arguments_match(call.arguments, spec.match):
                if self._suppressed_ok and (
                    self.contract.persistence == "first_attempt" or self._chain_broken
                ):
                    return WriteDecision.PROCEED
                self._pending[call.id] = spec
                self._details[call.id] = {"role": "fault", "attempt": self._suppressed_ok + 1}
                return WriteDecision.SUPPRESS
        if self._suppressed_ok and self._touches_affected(call):
            self._touching.add(call.id)  # breaks the chain only if it succeeds (see rewrite)
        return WriteDecision.PROCEED

    def edited_toolkit(self, call: ToolCall, base: type[Any]) -> type[Any]:
        """The toolkit whose tool carries the defect of the edit ``call`` matched."""
        spec = self._pending_edits[call.id]
        edited: type[Any] = cached_subclass(
            base, spec.method or spec.tool, spec.edits, self.contract.contract_id
        )
        return edited

    def edited_reply(self, call: ToolCall) -> bool:
        """Whether the defective copy's own answer is delivered for ``call``."""
        return self._pending_edits[call.id].reply == "edited"

    def _touches_affected(self, call: ToolCall) -> bool:
        rule = self._chain_break
        return rule is not None and any(
            rule(spec, call.name, call.arguments) for spec in self._suppressions
        )

    # -- observations -------------------------------------------------------------------
    def rewrite(
        self, call: ToolCall, observation: Observation, ctx: CallContext
    ) -> Observation | None:
        """Apply matching observation rewrites; note whether a suppressed write succeeded."""
        if call.id in self._touching:
            self._touching.discard(call.id)
            if not observation.error:
                self._chain_broken = True
        if call.id in self._pending:
            pending = self._pending.pop(call.id)
            if not observation.error:
                self._suppressed_ok += 1
            self._details[call.id]["payload_error"] = observation.error
            self._deliver(call, ctx, pending.tool, "fault", "suppress", not observation.error)
        if call.id in self._pending_edits:
            tool_edit = self._pending_edits.pop(call.id)
            self._details[call.id]["payload_error"] = observation.error
            self._deliver(call, ctx, tool_edit.tool, "fault", "edit", not observation.error)
        for cache in self._caches:
            served = cache.serve(call, observation, ctx)
            if served is not None:
                stale, effective = served
                self._details[call.id] = {"role": "fault", "stale_cache": True}
                self._deliver(call, ctx, cache.spec.tool, "fault", "rewrite", effective)
                return stale
        for art in self._artifacts:
            issued = art.rewrite(call, observation, ctx, self._artifact_delivered)
            if issued is not None:
                self._details.setdefault(call.id, {"role": "fault", "artifact": art.issued})
                return issued
        if self._readings and not observation.error:
            reading = self._reading(call, observation, ctx)
            if reading is not None:
                return reading
        if observation.error or not self._rewrites:
            return None
        data: Any = None
        changed: list[dict[str, Any]] = []
        for index, spec in enumerate(self._rewrites):
            if call.name != spec.tool or not arguments_match(call.arguments, spec.match):
                continue
            if self.contract.persistence == "first_delivery" and self._deliveries.get(index):
                continue
            if data is None:
                try:
                    data = json.loads(observation.content)
                except json.JSONDecodeError:
                    return None
            if not all(_value_at(data, path) == value for path, value in spec.expect.items()):
                continue
            for edit in spec.edits:
                set_path(data, edit.path, edit.value)
            self._deliveries[index] = self._deliveries.get(index, 0) + 1
            changed.append({"role": spec.role, "paths": [e.path for e in spec.edits]})
            effective = any(spec.expect.get(e.path, _MISSING) != e.value for e in spec.edits)
            self._deliver(call, ctx, spec.tool, spec.role, "rewrite", effective)
        if not changed:
            return None
        self._details[call.id] = {"role": changed[0]["role"], "rewrites": changed}
        return observation.model_copy(update={"content": json.dumps(data)})

    def _reading(
        self, call: ToolCall, observation: Observation, ctx: CallContext
    ) -> Observation | None:
        """A device reading with its true line replaced (only while it shows that line)."""
        for spec in self._readings:
            if call.name != spec.tool or ctx.requestor != spec.requestor:
                continue
            lines = observation.content.split("\n")
            if spec.shows not in lines:
                continue
            content = "\n".join(spec.reads if ln == spec.shows else ln for ln in lines)
            if spec.setting is not None:
                coherent = reversed_reading(
                    ctx.state.domain.user_toolkit_class,
                    getattr(ctx.state, "user_db", None),
                    spec.tool,
                    spec.setting,
                    observation.content,
                )
                if coherent is not None and spec.reads in coherent.split("\n"):
                    content = coherent
            self._details[call.id] = {"role": "fault", "reading": spec.reads}
            self._deliver(call, ctx, spec.tool, "fault", "rewrite", True)
            return observation.model_copy(update={"content": content})
        return None

    def _deliver(
        self, call: ToolCall, ctx: CallContext, tool: str, role: Any, action: Any, effective: bool
    ) -> None:
        self.deliveries.append(
            FaultDelivery(
                contract_id=self.contract.contract_id,
                step=ctx.step,
                call_id=call.id,
                tool=tool,
                role=role,
                action=action,
                effective=effective,
                control=self.contract.control,
            )
        )

    def _artifact_delivered(
        self, call: ToolCall, ctx: CallContext, tool: str, action: str, effective: bool
    ) -> None:
        self._deliver(call, ctx, tool, "fault", action, effective)

    def hidden_records(self) -> list[BaseModel]:
        """Records for the run's hidden log (every delivery the intervention touched)."""
        return list(self.deliveries)

    def annotate(self, call: ToolCall) -> dict[str, Any]:
        """Detail for the hidden intervention log entry of ``call``."""
        return {"contract_id": self.contract.contract_id, **self._details.get(call.id, {})}


def _value_at(data: Any, path: str) -> Any:
    try:
        return get_path(data, path)
    except (KeyError, IndexError, TypeError, ValueError):
        return _MISSING


_MISSING = object()
