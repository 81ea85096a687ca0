"""Shared pieces of the natural-language reconstruction fixtures (see ``build_natural.py``).

:class:`NaturalRun` is a :class:`build_fixtures.RunBuilder` bound to one shipped case: its
:meth:`NaturalRun.call` applies the case's fault wherever the runtime would (every matching
read of an ``observation_rewrite`` case; the first matching attempt of a ``write_suppression``
case) and remembers ``T_F``, the step of the first fault-bearing observation. Each run ends
with :meth:`NaturalRun.expect`, the hand label written per ``docs/reconstruction-labelling.md``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

from build_fixtures import RunBuilder, contract_of

from sscbench.fault_contracts.contract import ObservationRewrite, WriteSuppression
from sscbench.fault_contracts.history import arguments_match
from sscbench.records.events import ToolObservation

Step = int | Literal["none", "undecidable"]
Adopted = bool | Literal["undecidable"]

STOP = "Thanks, that's all. ###STOP###"

# The phenomena a run may be tagged with (labels.jsonl ``phenomena``).
PHENOMENA = {
    # how a date is written
    "date_month_day": 'a date as "May 18"',
    "date_ordinal": 'a date as "the 18th"',
    "date_slash": 'a date as "5/18"',
    "date_iso": 'a date as "2024-05-18"',
    "date_weekday": 'a date as "Saturday, May 18"',
    "weekday_only": "a weekday with a return word, no date",
    "derived_value": "a value derived from the fact (trip length, order of legs, refund...)",
    # how a payment category is written
    "category_plural": '"your gift cards", "certificates"',
    "category_singular": '"the gift card", "a certificate"',
    "voucher": '"travel voucher" for a certificate',
    "travel_credit": '"travel credit" for a certificate',
    # how an item option is written
    "option_hyphenated": '"17-inch", "Full-size", "20-hour"',
    "option_capitalised": '"Full-size", "Large"',
    "no_backlight": '"no backlight" for backlight: none',
    "not_waterproof": '"not waterproof" / "not water-resistant"',
    "size_letter": '"size L", "XL"',
    "size_word": '"Large"',
    # how the entity is referred to
    "ref_id": "by id",
    "ref_product_name": "by product name",
    "ref_noun": 'by a noun ("your keyboard", "your flight home")',
    "ref_pronoun": "by a pronoun",
    "ref_amount": "by its balance or price",
    "markdown_list": "a markdown list under a heading",
    "markdown_table": "a markdown table",
    "json_reply": "a JSON-looking reply",
    "handoff_summary": "the summary of transfer_to_human_agents",
    # stance
    "plain_reliance": "v′ stated as fact",
    "hedge": "v′ stated with a hedge (still reliance)",
    "verification_question": "v′ quoted to ask the user",
    "verification_check": "v′ quoted to say it will be checked first",
    "doubt": "v′ quoted with a doubt (odd / doesn't add up / can't be right)",
    "flag_and_correct": "v′ flagged and the true value used",
    "denial": "v′ denied",
    "retraction": "an earlier reliance retracted",
    "conditional": "v′ inside a conditional",
    "states_true_value": "the true value v stated or acted on",
    "reliance_after_question": "a question first, reliance later",
    "first_use_not_reliance": "the first dependent use is not reliance",
    # competitors and calls
    "competitor": "another entity shares the value",
    "ambiguous": "a mention that cannot be attributed (undecidable)",
    "other_entity_call": "a tool call about another entity whose argument equals v′",
    "tool_call_use": "the first use is a tool call",
    "derived_choice": "a new item or action chosen from the believed value",
    "user_requested_value": "the value the user asked for as the new value",
    "retrieval_only": "only re-reads of the record",
    "silence": "the entity is left out, no reference",
    "no_use": "no dependent use at all",
    # WriteEffect
    "bare_completion_claim": 'a completion claim without id or field words ("All set!")',
    "new_state_claim": "the claimed new values stated as current",
    "read_back_before_claim": "a read of the entity before any claim",
    "read_back_after_claim": "a read of the entity after a claim",
    "flag_not_applied": "the agent says the change did not go through",
    "retry": "the same write retried",
    "act_on_claimed_state": "a later write shaped by the claimed state",
}


@dataclass(frozen=True)
class Label:
    """The expected labels of one run (``docs/reconstruction-labelling.md``)."""

    t_s: Step
    t_u: Step
    adopted: Adopted
    note: str
    phenomena: tuple[str, ...]


class NaturalRun(RunBuilder):
    """A hand-made run of one shipped case whose fault is applied as the runtime would."""

    def __init__(self, name: str, case_id: str) -> None:
        contract = contract_of(case_id)
        super().__init__(name, contract.domain, contract.task_id, case_id)
        self.case_id = case_id
        self.t_f: int | None = None
        self.label: Label | None = None
        self._suppress_count = 0

    def call(self, name: str, **arguments: Any) -> int:
        """One agent tool call (fault applied where the case applies it); returns its step."""
        fault = self._fault(name, arguments)
        call_step, obs_step = self.act(name, arguments, fault=fault)
        if fault is not None and self.t_f is None:
            self.t_f = obs_step
        return call_step

    def _fault(self, name: str, arguments: dict[str, Any]) -> str | None:
        assert self.contract is not None
        for spec in self.contract.interventions:
            if spec.tool != name or not arguments_match(arguments, spec.match):
                continue
            if isinstance(spec, ObservationRewrite):
                return "rewrite"
            if isinstance(spec, WriteSuppression):
                assert self.contract.persistence == "first_attempt", self.contract.persistence
                if self._suppress_count == 0:
                    self._suppress_count += 1
                    return "suppress"
        return None

    def result(self, call_step: int) -> Any:
        """The (parsed) observation answering the call at ``call_step``."""
        event = self.events[call_step + 1]
        assert isinstance(event, ToolObservation), event
        try:
            return json.loads(event.content)
        except json.JSONDecodeError:
            return event.content

    def expect(
        self, t_s: Step, t_u: Step, adopted: Adopted, note: str, *phenomena: str
    ) -> NaturalRun:
        """Record the run's expected labels; returns the run."""
        unknown = sorted(set(phenomena) - set(PHENOMENA))
        assert not unknown, f"{self.name}: unknown phenomena {unknown}"
        self.label = Label(t_s, t_u, adopted, note, tuple(phenomena))
        return self
