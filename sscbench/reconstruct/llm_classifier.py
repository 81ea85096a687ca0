"""An optional LLM classifier for pass 2, through the agent provider layer.

The rule-based rules are the default (offline, deterministic). This classifier asks a
model, with the fault contract in its prompt, to classify each agent message and tool call
after ``T_F`` as a dependent use (erroneous or not), a verification-only reference or no
reference to the affected fact. Requests go through :class:`ProviderClient`, so they are
cached (set ``cache_dir``), retried and recorded per attempt; keys are never written.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from sscbench.fault_contracts.contract import FaultContract
from sscbench.llm.backends import make_backend
from sscbench.llm.client import ProviderClient
from sscbench.llm.config import parse_config
from sscbench.llm.records import ProviderCall
from sscbench.llm.transcript import Message
from sscbench.reconstruct.definition import USE_DEFINITION
from sscbench.reconstruct.detector import Use
from sscbench.reconstruct.rules.base import RunView
from sscbench.records.events import AgentMessage, AgentToolCall

INSTRUCTIONS = f"""You label one event of a tool-using customer-service agent's run for a \
fault-injection study. A tool observation delivered a FALSE value v' about an affected fact \
(the true value is v). Classify only the EVENT below, using these definitions:
{USE_DEFINITION}
Labels:
- dependent_use: a dependent use; erroneous is true when it is an erroneous reliance.
- verification: a dependent use that quotes v' (or a value derived from it) only to check, \
question or flag it; never erroneous.
- none: the event is not a dependent use.
Answer with one JSON object and nothing else: {{"label": "dependent_use" | "verification" | \
"none", "erroneous": true | false, "stance": "endorse" | "retract" | null, "reason": "<short>"}}. \
stance: endorse if the event asserts v' as true, retract if it asserts v or rejects v'."""


UNREADABLE = "classifier reply is not a label"
"""The reason of the undecidable use an unreadable reply becomes."""


def _contract_text(contract: FaultContract) -> str:
    semantics = "; ".join(f"{q.claim} ({q.source}: {q.text})" for q in contract.semantics)
    return (
        f"Operator: {contract.operator}\nAffected fact: {contract.target.scope} "
        f"(entity {contract.target.entity_type} {contract.target.entity_id}, paths "
        f"{', '.join(contract.target.paths)})\n"
        f"True value v: {json.dumps(contract.authoritative_value)}\n"
        f"Injected value v': {json.dumps(contract.injected_value)}\n"
        f"Agent-visible semantics: {semantics or 'none quoted'}"
    )


class LLMClassifier:
    """Classifies agent events with a model; ``provider_calls`` keeps every attempt."""

    def __init__(self, provider: str, **params: Any) -> None:
        self.provider = provider
        self.provider_calls: list[ProviderCall] = []
        self._backend, self._config = make_backend(
            provider, parse_config(params), "classifier provider"
        )
        self._client = ProviderClient(self._backend, self._config, "agent", self.provider_calls)

    @property
    def model(self) -> str:
        """The model the classifier asks (as configured)."""
        return str(self._config.model)

    def uses(
        self, view: RunView, event: AgentMessage | AgentToolCall, candidates: list[str]
    ) -> list[Use]:
        """The classified use (at most one) of ``event``; ``candidates`` are the spans the
        rules' pass 1 found in it (shown to the model as hints, not as answers)."""
        source: Literal["message", "call"]
        if isinstance(event, AgentMessage):
            shown, source = f"Agent message to the user:\n{event.content}", "message"
        else:
            shown = f"Agent tool call: {event.name}({json.dumps(event.arguments, sort_keys=True)})"
            source = "call"
        hints = "\n".join(f"- {c}" for c in candidates) or "- none found"
        prompt = (
            f"{_contract_text(view.contract)}\n\nEVENT (step {event.step}):\n{shown}\n\n"
            f"Candidate spans that mention the fact's entity or values (pass 1):\n{hints}"
        )
        request = self._backend.build_request(
            INSTRUCTIONS, [Message(role="user", text=prompt)], None, 0
        )
        completion = self._client.complete(request, seed=0, step=event.step)
        return parse_label(completion.text or "", event.step, source)


def parse_label(text: str, step: int, source: Literal["message", "call"]) -> list[Use]:
    """Read the model's JSON answer; anything unreadable is an undecidable use."""
    start, end = text.find("{"), text.rfind("}")
    try:
        answer = json.loads(text[start : end + 1]) if start >= 0 else None
    except json.JSONDecodeError:
        answer = None
    if not isinstance(answer, dict) or answer.get("label") not in (
        "dependent_use",
        "verification",
        "none",
    ):
        return [Use(step, "undecidable", False, None, source, UNREADABLE)]
    reason = f"llm: {str(answer.get('reason', ''))[:200]}"
    stance = answer.get("stance") if answer.get("stance") in ("endorse", "retract") else None
    if answer["label"] == "none":
        return []
    if answer["label"] == "verification":
        return [Use(step, "verification", False, stance, source, reason)]
    return [Use(step, "dependent_use", bool(answer.get("erroneous")), stance, source, reason)]
