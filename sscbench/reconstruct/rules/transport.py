"""Transport uses: naming the identifier, in its damaged or its authoritative form.

A call or message after the fault that carries the damaged form byte for byte acts on it
(erroneous reliance: the identifier as delivered, not as issued); one that carries the
identifier as issued is a use of the true value. Every tool call counts, reads included:
looking a record up under a damaged id is already acting on the damaged form.
"""

from __future__ import annotations

from collections.abc import Sequence

from sscbench.json_paths import flatten
from sscbench.reconstruct.detector import Use, call_use
from sscbench.reconstruct.rules.base import USE_RULES, RunView, UseRules
from sscbench.records.events import AgentMessage, AgentToolCall, VisibleEvent


def _forms(view: RunView) -> tuple[str, str]:
    p = view.contract.refutation.params
    return str(p["damaged"]), str(p["authoritative"])


class TransportRules(UseRules):
    """Exact-form detection of the damaged and the authoritative identifier."""

    def uses(self, view: RunView, events: Sequence[VisibleEvent]) -> list[Use]:
        """Uses after ``T_F``: calls by argument value, messages by exact substring."""
        damaged, true = _forms(view)
        out: list[Use] = []
        for event in events:
            if event.step <= view.t_f:
                continue
            if isinstance(event, AgentToolCall):
                values = [str(v) for _, v in flatten(event.arguments)]
                if damaged in values:
                    out.append(call_use(event.step, True, f"{event.name} passes {damaged!r}"))
                elif true in values:
                    out.append(call_use(event.step, False, f"{event.name} passes {true!r}"))
            elif isinstance(event, AgentMessage):
                text = event.content
                # A truncated form is a prefix of the true one: only a bare occurrence counts.
                bare = damaged in text.replace(true, "")
                if bare:
                    out.append(
                        Use(
                            event.step,
                            "dependent_use",
                            True,
                            "endorse",
                            "message",
                            f"states the damaged form {damaged!r}",
                            damaged,
                        )
                    )
                elif true in text:
                    out.append(
                        Use(
                            event.step,
                            "dependent_use",
                            False,
                            None,
                            "message",
                            f"states {true!r} as issued",
                            true,
                        )
                    )
        return out


USE_RULES.add("transport", TransportRules)
