"""A second pass by a model over the rules' least confident labels only.

``reconstruct --classifier rules+llm``: the operator's rules label every run; a triggered
run whose adoption label has a confidence (:mod:`sscbench.reconstruct.confidence`) below
the threshold — or whose ``A`` the rules left undecided — has the events at which the
rules found a use re-read by the LLM classifier (:mod:`sscbench.reconstruct.llm_classifier`)
as adjudicator. Its answer for an event replaces the rules' uses at that step (confirming
or changing them); an unreadable reply leaves the rules' reading of that event standing.
Events where the rules found nothing, and every run above the threshold, are never sent.
The label's ``adjudication`` records which path decided (``rules`` or ``llm-adjudicated``),
the model, the steps re-read and the steps whose reading changed (the kinds of use
found there, or which of them are reliance). Requests go through the
provider layer's response cache (``cache_dir``), so a re-run with the cache is
byte-identical and sends nothing.
"""

from __future__ import annotations

from typing import Any, Protocol

from sscbench.reconstruct.confidence import label_confidence
from sscbench.reconstruct.detector import Use
from sscbench.reconstruct.labels import RunLabels
from sscbench.reconstruct.llm_classifier import UNREADABLE
from sscbench.reconstruct.rules.base import RunView
from sscbench.records.events import AgentMessage, AgentToolCall
from sscbench.records.ledger import Ledger

DEFAULT_THRESHOLD = 0.9
"""Labels with a confidence strictly below this are adjudicated. At 0.9 a reliance found
in a message (0.90) or a tool call (0.97), "no use found" (0.90) and true-value uses with
no competitor (0.93) stay with the rules; a label resting only on checks or flags of
``v′`` (0.85), or with any competing reading or an unread last stance, goes to the model."""


class UseClassifier(Protocol):
    """What the adjudicator needs of a classifier (the LLM classifier, or a test's fake)."""

    @property
    def model(self) -> str:
        """The model that answers (recorded in every adjudicated label)."""
        ...

    def uses(
        self, view: RunView, event: AgentMessage | AgentToolCall, candidates: list[str]
    ) -> list[Use]:
        """Classified uses in one agent event."""
        ...


def _signature(uses: list[Use]) -> list[tuple[str, bool]]:
    """What a step's reading is, for "changed": the kinds of use and which are reliance."""
    return sorted((u.kind, u.erroneous) for u in uses)


class Adjudicator:
    """The second pass of ``--classifier rules+llm`` (see the module docstring)."""

    def __init__(self, classifier: UseClassifier, threshold: float = DEFAULT_THRESHOLD) -> None:
        self.classifier = classifier
        self.threshold = threshold

    def needs_model(self, label: RunLabels) -> bool:
        """Whether ``label`` goes to the model: undecided ``A``, or confidence below the
        threshold."""
        confidence = label_confidence(label)
        return confidence is None or confidence.value < self.threshold

    def revise(
        self, view: RunView, ledger: Ledger, uses: list[Use], label: RunLabels
    ) -> tuple[list[Use], dict[str, Any]]:
        """The run's uses after adjudication, and the record of what decided them."""
        confidence = label_confidence(label)
        record: dict[str, Any] = {
            "decided_by": "rules",
            "confidence": None if confidence is None else confidence.value,
            "threshold": self.threshold,
        }
        steps = sorted({u.step for u in uses})
        if not self.needs_model(label) or not steps:
            return uses, record
        events = {
            e.step: e
            for e in ledger.events
            if e.step in steps and isinstance(e, AgentMessage | AgentToolCall)
        }
        revised: list[Use] = []
        changed: list[int] = []
        for step in steps:
            rules_here = [u for u in uses if u.step == step]
            event = events.get(step)
            answer = (
                None
                if event is None
                else self.classifier.uses(view, event, [u.evidence or u.reason for u in rules_here])
            )
            if answer is None or any(u.reason == UNREADABLE for u in answer):
                revised.extend(rules_here)  # no readable verdict: the rules' reading stands
                continue
            if _signature(answer) != _signature(rules_here):
                changed.append(step)
            revised.extend(answer)
        record.update(
            decided_by="llm-adjudicated",
            model=self.classifier.model,
            steps=steps,
            changed=changed,
        )
        return revised, record
