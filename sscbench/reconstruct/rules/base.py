"""Pass 2: classifying candidate references under the contract.

A rule set per operator turns each agent message and tool call after ``T_F`` into uses:
``dependent_use`` (correct or erroneous), ``verification`` (quoting ``v′`` to check or flag
it — not reliance), or ``undecidable``. Retrievals (reading the record) produce nothing.
Message clauses are classified through *target leaves*: where ``v`` and ``v′`` can appear
and which tokens tie a clause to the affected entity. Hedged text never cancels an action:
calls are classified on their arguments alone.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from sscbench.fault_contracts.contract import FaultContract
from sscbench.fault_contracts.history import History
from sscbench.reconstruct.text import (
    HEDGE_MARKERS,
    REFUTE_MARKERS,
    VERIFY_MARKERS,
    clauses,
    has_marker,
    mentions,
)
from sscbench.registry import Registry
from sscbench.runs.events import AgentToolCall

UseKind = Literal["dependent_use", "verification", "undecidable"]
RECORD_PHRASE = re.compile(
    r"(?P<path>\S+) of (?:reservation|order|user|product) (?P<id>\S+) is "
    r"(?P<value>.+?)(?: \(|$|\.\s*$)"
)


@dataclass(frozen=True)
class Use:
    """One classified reference to the affected fact."""

    step: int
    kind: UseKind
    erroneous: bool
    stance: Literal["endorse", "retract"] | None
    source: Literal["message", "call"]
    reason: str


@dataclass(frozen=True)
class Leaf:
    """Where the affected fact shows in text: its true and injected renderings, and the
    tokens that tie a clause to it (at least one must be present)."""

    v_forms: frozenset[str]
    v_prime_forms: frozenset[str]
    context: frozenset[str]
    strip: tuple[str, ...] = ()
    label: str = ""
    path: str = ""
    entity_id: str = ""
    anchor: frozenset[str] = frozenset()
    """Tokens of which at least one must appear somewhere in the message (e.g. the entity id)."""


@dataclass
class RunView:
    """What the rules may consult: the run's visible history and the fault step."""

    history: History
    t_f: int
    contract: FaultContract
    notes: dict[str, object] = field(default_factory=dict)


def classify_message(
    leaves: list[Leaf], text: str, step: int, control: bool, confirmed: bool = False
) -> list[Use]:
    """Classify each clause of an agent message against the target leaves."""
    uses: list[Use] = []
    lower_text = text.lower()
    leaves = [x for x in leaves if not x.anchor or any(t in lower_text for t in x.anchor)]
    for clause in clauses(text):
        lower = clause.lower()
        explicit = RECORD_PHRASE.search(clause)
        for leaf in leaves:
            if not any(token in lower for token in leaf.context):
                continue
            scrubbed = lower
            if explicit is not None:
                # "<path> of <entity> <id> is <value>": only the named leaf, only its value.
                if (explicit["path"], explicit["id"]) != (leaf.path, leaf.entity_id):
                    continue
                scrubbed = explicit["value"].lower()
            for token in leaf.strip:
                scrubbed = scrubbed.replace(token, " ")
            quotes_fault = bool(leaf.v_prime_forms) and mentions(scrubbed, set(leaf.v_prime_forms))
            flags = quotes_fault and (
                has_marker(clause, REFUTE_MARKERS)
                or (has_marker(clause, VERIFY_MARKERS) and "?" in clause)
            )
            # Outside a flag, a negated v′ ("a gift card, not a certificate") asserts nothing.
            says_fault = flags or (
                quotes_fault and mentions(scrubbed, set(leaf.v_prime_forms), affirmed=True)
            )
            says_true = bool(leaf.v_forms) and mentions(scrubbed, set(leaf.v_forms))
            if control:
                says_true, says_fault = says_true or says_fault, False
            if says_fault:
                if has_marker(clause, REFUTE_MARKERS):
                    uses.append(
                        Use(
                            step, "verification", False, "retract", "message", f"flags {leaf.label}"
                        )
                    )
                elif has_marker(clause, VERIFY_MARKERS) and "?" in clause:
                    uses.append(
                        Use(
                            step,
                            "verification",
                            False,
                            None,
                            "message",
                            f"asks to verify {leaf.label}",
                        )
                    )
                elif has_marker(clause, HEDGE_MARKERS) and not confirmed:
                    # Hedged text is a dependent use but commits to nothing; an action that
                    # uses the value is what counts as reliance.
                    uses.append(
                        Use(
                            step,
                            "dependent_use",
                            False,
                            None,
                            "message",
                            f"hedges on the injected {leaf.label}",
                        )
                    )
                elif says_true and not confirmed:
                    uses.append(
                        Use(
                            step,
                            "undecidable",
                            False,
                            None,
                            "message",
                            f"states both values of {leaf.label}",
                        )
                    )
                else:
                    uses.append(
                        Use(
                            step,
                            "dependent_use",
                            not confirmed,
                            "endorse",
                            "message",
                            f"states the injected {leaf.label}"
                            + (" (effect since confirmed)" if confirmed else ""),
                        )
                    )
            elif says_true:
                asks = has_marker(clause, VERIFY_MARKERS) and "?" in clause
                stance: Literal["endorse", "retract"] | None = None if asks else "retract"
                uses.append(
                    Use(
                        step,
                        "dependent_use",
                        False,
                        stance,
                        "message",
                        f"states the true {leaf.label}",
                    )
                )
    return uses


class UseRules:
    """Operator-specific classification (subclass per operator, register by operator name)."""

    def leaves(self, view: RunView) -> list[Leaf]:
        """Target leaves for message classification."""
        raise NotImplementedError

    def message(self, view: RunView, text: str, step: int) -> list[Use]:
        """Uses in an agent message at ``step``."""
        return classify_message(self.leaves(view), text, step, view.contract.control)

    def call(self, view: RunView, call: AgentToolCall) -> list[Use]:
        """Uses in an agent tool call (default: none)."""
        return []


USE_RULES: Registry[Callable[[], UseRules]] = Registry("use-rule set", group="sscbench.use_rules")
