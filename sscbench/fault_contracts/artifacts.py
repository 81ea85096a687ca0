"""Time-bounded artifacts at the choke point: issue them, gate their use, read them back.

The runtime half of an :class:`~sscbench.fault_contracts.contract.ArtifactTTL` spec: each
matching record is delivered with a fresh artifact (the envelope shows its issue time, TTL,
expiry, the server time and the declared cost model, so the agent can tell when it lapses);
a gated write made when the latest artifact is out of its window is not executed and is
answered with the expiry response. The reading half (:func:`issues`, :func:`expiry_responses`)
recovers both from a model-visible history, for relations and reconstruction.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sscbench.envs import CallContext, Observation, ToolCall
from sscbench.envs.clock import ClockSpec, in_window, iso
from sscbench.errors import HarnessError
from sscbench.fault_contracts.contract import ArtifactTTL
from sscbench.fault_contracts.history import History, arguments_match

EXPIRED = "expired"
"""The marker every expiry response carries (``Error: quote … expired at …``)."""


def seconds(spec: ClockSpec, stamp: str) -> float:
    """An envelope's ISO timestamp back in virtual seconds after the clock's epoch."""
    return (datetime.fromisoformat(stamp) - datetime.fromisoformat(spec.epoch)).total_seconds()


@dataclass(frozen=True)
class Issue:
    """One artifact as delivered: where, its id, and its window in virtual seconds."""

    step: int
    artifact_id: str
    issued: float
    ttl: float

    @property
    def expires(self) -> float:
        """End of the half-open window ``[issued, issued + ttl)``."""
        return self.issued + self.ttl


Deliver = Callable[[ToolCall, CallContext, str, str, bool], None]
"""(call, ctx, tool, action, effective) → record a fault delivery."""


class ArtifactRuntime:
    """Issue and gate the artifacts of one spec during one episode."""

    def __init__(self, spec: ArtifactTTL, contract_id: str) -> None:
        self.spec = spec
        self.contract_id = contract_id
        self.latest: Issue | None = None
        self.issued = 0
        self._rejected: dict[str, tuple[Issue, float]] = {}

    def _now(self, ctx: CallContext) -> float:
        if ctx.now is None:
            raise HarnessError(f"{self.contract_id}: an artifact contract runs without a clock")
        return ctx.now

    def decide(self, call: ToolCall, ctx: CallContext) -> bool:
        """True when a gated write must not run: its artifact is out of its window."""
        if call.name != self.spec.gate_tool or not arguments_match(
            call.arguments, self.spec.gate_match
        ):
            return False
        now = self._now(ctx)
        if self.latest is None or in_window(self.latest.issued, self.latest.ttl, now):
            return False
        self._rejected[call.id] = (self.latest, now)
        return True

    def rewrite(
        self, call: ToolCall, observation: Observation, ctx: CallContext, deliver: Deliver
    ) -> Observation | None:
        """The expiry response for a rejected write; a fresh artifact on a matching record."""
        if call.id in self._rejected:
            issue, now = self._rejected.pop(call.id)
            deliver(call, ctx, call.name, "suppress", True)
            return observation.model_copy(
                update={"content": expiry_response(self.spec, issue, now), "error": True}
            )
        if (
            observation.error
            or call.name != self.spec.tool
            or not arguments_match(call.arguments, self.spec.match)
        ):
            return None
        try:
            data = json.loads(observation.content)
        except json.JSONDecodeError:
            return None
        if not isinstance(data, dict):
            return None
        now = self._now(ctx)
        self.issued += 1
        seed = f"{self.contract_id}:{self.issued}:{now}"
        artifact_id = "Q-" + hashlib.sha256(seed.encode()).hexdigest()[:10].upper()
        self.latest = Issue(ctx.step, artifact_id, now, self.spec.ttl_seconds)
        data[self.spec.field] = envelope(self.spec, self.latest)
        deliver(call, ctx, call.name, "rewrite", True)
        return observation.model_copy(update={"content": json.dumps(data)})


def envelope(spec: ArtifactTTL, issue: Issue) -> dict[str, Any]:
    """What the agent sees of an artifact: id, window, server time and the clock's rule."""
    clock = spec.clock
    return {
        "quote_id": issue.artifact_id,
        "issued_at": iso(clock, issue.issued),
        "ttl_seconds": issue.ttl,
        "expires_at": iso(clock, issue.expires),
        "server_time": iso(clock, issue.issued),
        "valid": f"only for writes the server receives before expires_at; {clock.describe()}",
    }


def expiry_response(spec: ArtifactTTL, issue: Issue, now: float) -> str:
    """The error a write relying on an expired artifact receives."""
    c = spec.clock
    return (
        f"Error: quote {issue.artifact_id} {EXPIRED} at {iso(c, issue.expires)} (server time "
        f"{iso(c, now)}; it was valid for {issue.ttl:g} s from {iso(c, issue.issued)}); "
        f"the request was not executed; read the record again for a fresh quote"
    )


def issues(spec: ArtifactTTL, history: History) -> list[Issue]:
    """Every artifact delivered in a history, in order (read from the envelopes)."""
    out = []
    for d in history.successes(spec.tool):
        if not arguments_match(d.call.arguments, spec.match) or not isinstance(d.data, dict):
            continue
        env = d.data.get(spec.field)
        if isinstance(env, dict) and isinstance(env.get("issued_at"), str):
            out.append(
                Issue(
                    d.step,
                    str(env.get("quote_id")),
                    seconds(spec.clock, env["issued_at"]),
                    float(env.get("ttl_seconds", spec.ttl_seconds)),
                )
            )
    return out


def server_times(spec: ArtifactTTL, history: History) -> list[tuple[int, float]]:
    """Each observation that shows the server time, as (step, virtual seconds): the
    envelopes (their ``server_time``) and the expiry responses."""
    out = []
    for d in history.delivered:
        if d.call.name == spec.tool and isinstance(d.data, dict):
            env = d.data.get(spec.field)
            if isinstance(env, dict) and isinstance(env.get("server_time"), str):
                out.append((d.step, seconds(spec.clock, env["server_time"])))
        elif d.observation.error and EXPIRED in d.observation.content:
            marker = "(server time "
            at = d.observation.content.find(marker)
            if at >= 0:
                stamp = d.observation.content[at + len(marker) :].split(";", 1)[0]
                out.append((d.step, seconds(spec.clock, stamp)))
    return out
