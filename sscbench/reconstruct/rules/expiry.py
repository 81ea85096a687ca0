"""Expiry uses: a gated write relies on the quote in force when the server receives it.

Each gated write after the fault is a use of the latest quote delivered before it. It is
erroneous reliance when the server receives it (the time of its answer on the run's
virtual clock, recomputed from the history) outside that quote's half-open window
``[issued, issued + ttl)``; inside the window it is a use of a valid artifact.
"""

from __future__ import annotations

from collections.abc import Sequence

from sscbench.envs.clock import event_times, in_window
from sscbench.envs.environment import tool_kinds
from sscbench.fault_contracts.artifacts import issues
from sscbench.fault_contracts.history import arguments_match
from sscbench.fault_contracts.relations.artifact_expiry import artifact_spec
from sscbench.reconstruct.detector import Use, call_use
from sscbench.reconstruct.rules.base import USE_RULES, RunView, UseRules
from sscbench.records.events import AgentToolCall, ToolObservation, VisibleEvent


class ExpiryRules(UseRules):
    """Gated writes judged against the window of the quote in force."""

    def uses(self, view: RunView, events: Sequence[VisibleEvent]) -> list[Use]:
        """One use per gated write after ``T_F``."""
        spec = artifact_spec(view.contract)
        if spec is None:
            return []
        kinds = tool_kinds(view.contract.domain)
        times = event_times(events, spec.clock, kinds)
        issued = issues(spec, view.history)
        answered = {
            e.call_id: t
            for e, t in zip(events, times, strict=True)
            if isinstance(e, ToolObservation)
        }
        out: list[Use] = []
        for event, at in zip(events, times, strict=True):
            if not (
                isinstance(event, AgentToolCall)
                and event.step > view.t_f
                and event.name == spec.gate_tool
                and arguments_match(event.arguments, spec.gate_match)
            ):
                continue
            current = [i for i in issued if i.step < event.step]
            if not current:
                continue
            quote = current[-1]
            # the server receives it when it answers: the call's time plus its cost
            received = answered.get(event.call_id, at)
            valid = in_window(quote.issued, quote.ttl, received)
            why = "inside" if valid else "after"
            out.append(
                call_use(
                    event.step,
                    not valid,
                    f"{event.name} reaches the server at {received:g} s, {why} the window "
                    f"[{quote.issued:g}, {quote.expires:g}) of {quote.artifact_id}",
                )
            )
        return out


USE_RULES.add("expiry", ExpiryRules)
