"""Shared pieces of the held-out reconstruction set (see ``build_heldout.py``).

Every run of the set is a :class:`Heldout`: a :class:`~build_fixtures.RunBuilder` with its
events already added, the exact labels of its one fact (``docs/reconstruction-labelling.md``),
the voice its agent text is written in and a few tags saying which required situation it
covers. Labels refer to steps the builder returned while the run was written, never to
numbers typed by hand.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

from build_fixtures import RunBuilder, contract_of

Step = int | Literal["none", "undecidable"]
Adopted = bool | Literal["undecidable"]

NONE: Literal["none"] = "none"
UNDECIDABLE: Literal["undecidable"] = "undecidable"

# The four agent voices the set is written in, spread evenly over each operator.
TERSE = "terse"  # (a) terse and businesslike
WARM = "warm"  # (b) warm and chatty, with filler
FORMATTED = "formatted"  # (c) markdown headings, bullets, bold, tables
JSON_VOICE = "json"  # (d) JSON-structured replies {"message": ..., "details": {...}}
VOICES = (TERSE, WARM, FORMATTED, JSON_VOICE)

# The four voices of the blind set, unlike the ones above.
VERBOSE = "verbose"  # long, thorough, restates context, caveats and next steps
CLIPPED = "clipped"  # operator shorthand: abbreviations, fragments, arrows, no greetings
APOLOGETIC = "apologetic"  # customer-service empathy, apologies, reassurance, soft questions
STRUCTURED = "structured"  # numbered steps, key: value lines, tables, or JSON blocks
BLIND_VOICES = (VERBOSE, CLIPPED, APOLOGETIC, STRUCTURED)

# The four voices of the second blind set.
NARRATING = "narrating"  # narrates its own steps: "I'll now call…", "The tool returned…"
CAUTIOUS = "cautious"  # careful prose, caveats, double-checks, "to be sure"
SLOPPY = "sloppy"  # small-model style: typos, run-ons, repetition, odd casing
BULLETED = "bulleted"  # markdown bullets and bold labels, terse summaries, emoji ticks
BLIND2_VOICES = (NARRATING, CAUTIOUS, SLOPPY, BULLETED)

# Tags for the situations every operator must cover at least once (or twice).
NO_USE = "no_use"
SHARED_VALUE = "shared_value"  # another entity carries the same value
QUESTION_FIRST = "question_first"  # the first use questions, checks or flags the value
TOOL_FIRST = "tool_first"  # the first use is a tool call
AMBIGUOUS = "ambiguous"
BARE_CLAIM = "bare_claim"  # WriteEffect: a claim naming neither the reservation nor a field
CLAIM_AFTER_READ = "claim_after_read"  # WriteEffect: a claim after a read showing no change
RETRY = "retry"  # WriteEffect: the write is repeated


@dataclass(frozen=True)
class Label:
    """The labels of one run's fact, as the guideline defines them."""

    t_s: Step
    t_u: Step
    adopted: Adopted
    note: str


@dataclass
class Heldout:
    """One finished held-out run and its labels."""

    run: RunBuilder
    label: Label
    voice: str
    tags: frozenset[str] = field(default_factory=frozenset)

    @property
    def case_id(self) -> str:
        assert self.run.contract is not None
        return self.run.contract.contract_id


def start(name: str, case_id: str) -> RunBuilder:
    """A run of the shipped case ``case_id`` (its domain and task come from the contract)."""
    contract = contract_of(case_id)
    return RunBuilder(name, contract.domain, contract.task_id, case_id)


def finish(
    run: RunBuilder,
    voice: str,
    *,
    t_s: Step,
    t_u: Step,
    adopted: Adopted,
    note: str,
    tags: tuple[str, ...] = (),
) -> Heldout:
    return Heldout(run, Label(t_s, t_u, adopted, note), voice, frozenset(tags))


def as_json(message: str, details: dict[str, Any], *, indent: int | None = None) -> str:
    """A structured agent reply: ``{"message": ..., "details": {...}}``."""
    return json.dumps({"message": message, "details": details}, indent=indent, ensure_ascii=False)


def res(reservation_id: str) -> dict[str, str]:
    return {"reservation_id": reservation_id}


def order(order_id: str) -> dict[str, str]:
    return {"order_id": order_id}


def user_id(uid: str) -> dict[str, str]:
    return {"user_id": uid}
