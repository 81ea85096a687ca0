"""Value-centric use detection in agent text: pass 1 finds candidates, pass 2 decides.

Pass 1 (candidate extraction) segments the text (:mod:`~sscbench.reconstruct.segment`),
asks the operator's fact model for mentions of the true value ``v``, the injected value
``v′`` and values derived from them, and binds each mention to an entity
(:mod:`~sscbench.reconstruct.binding`); a mention bound to another entity is dropped, one
that cannot be bound is undecidable unless no other visible entity carries that value.
Pass 2 decides each unit's stance (:mod:`~sscbench.reconstruct.stance`):

* ``v′`` asserted (hedged or not) → dependent use, erroneous reliance (stance endorse);
* ``v′`` questioned, flagged, denied or put in a condition → dependent use, *not*
  reliance (kind ``verification``; a flag or denial retracts);
* ``v`` asserted → dependent use, not reliance (stance retract);
* both asserted in one unit → undecidable, unless a correction cue or a contrast tells
  which one the unit stands by.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from sscbench.reconstruct.binding import Binding, RefIndex, bind
from sscbench.reconstruct.segment import Unit, segment
from sscbench.reconstruct.stance import (
    ACTION_REQUEST,
    RETRACT,
    VERIFY,
    VERIFY_INTENT,
    Stance,
    doubts,
    has,
    stance_of,
)
from sscbench.reconstruct.values import Mention, fold

UseKind = Literal["dependent_use", "verification", "undecidable"]
Which = Literal["v", "v_prime"]
Source = Literal["message", "call", "handoff"]


@dataclass(frozen=True)
class Use:
    """One classified reference to the affected fact."""

    step: int
    kind: UseKind
    erroneous: bool
    stance: Literal["endorse", "retract"] | None
    source: Source
    reason: str
    evidence: str = ""
    """The unit or argument the use was found in."""


def call_use(
    step: int, erroneous: bool, reason: str, kind: UseKind = "dependent_use", evidence: str = ""
) -> Use:
    """A use found in a tool call's arguments (a call carries no stance)."""
    return Use(step, kind, erroneous, None, "call", reason, evidence)


@dataclass(frozen=True)
class ValueMention:
    """A mention of the fact's true (``v``) or injected (``v′``) value in a unit."""

    mention: Mention
    which: Which
    label: str
    decisive: bool = True
    """False for weak forms (a weekday, a bare day) that also need a role cue to count."""
    bound: Binding | None = None
    """Set when the fact model already knows the entity (e.g. a record phrase names it)."""
    plural: bool = False
    """A plural mention ("certificates") speaks of every entity in play that carries it."""
    needs_binding: bool = False
    """Count only when references tie it to the target (no fallback on uniqueness): for
    values nobody can see (``v``) and weak forms, a coincidence is likelier than a use."""


_MemoKey = tuple[str, Source, frozenset[str] | None]
"""A detected text: the text, its source and the focus it was detected under."""


@dataclass
class FactModel:
    """What detection needs to know about one affected fact as the run stands.

    ``index`` resolves references to the target entity (``target``) and its competitors;
    ``find`` returns the value mentions in a unit; ``holders`` names the entities whose
    visible records carry a canonical value (to decide unbound mentions).
    """

    target: str
    index: RefIndex
    find: Callable[[Unit], list[ValueMention]]
    holders: Callable[[str], frozenset[str]] = lambda _v: frozenset()
    """Entities whose visible records carry a canonical value (the target included)."""
    label: str = "fact"
    confirmed: bool = False
    """WriteEffect: the claimed effect has been confirmed by a read before this point."""
    effect: bool = False
    """The fact is a write's claimed effect: "changed to X" states it rather than naming a
    new value still to be set."""
    extra: list[Use] = field(default_factory=list)
    detected: dict[_MemoKey, tuple[Use, ...] | None] | None = field(
        default=None, repr=False, compare=False
    )
    """Uses already detected per text, source and focus, for a model shared across runs
    (:meth:`~sscbench.reconstruct.rules.base.UseRules.model_at` sets it). A text whose
    detection never asked the focus is kept under the focus ``None``; one that did has
    ``None`` there (look it up with the focus)."""


def _resolve(
    model: FactModel, units: Sequence[Unit], unit: Unit, vm: ValueMention, focus: _Asked
) -> Binding:
    if vm.bound is not None:
        return vm.bound
    bound = bind(
        model.index, list(units), unit, vm.mention.start, model.target, focus(), vm.mention.end
    )
    holders = model.holders(vm.mention.value)
    if (
        bound.binding == "other"
        and (bound.level in ("message", "focus") or vm.plural)
        and holders
        and not holders & bound.candidates
    ):
        # Context names something that does not carry the value ("certificates" while a
        # credit card is in focus): the context is not what the value is about.
        bound = bind(model.index, [], Unit("", (), 0, -1, "sentence"), 0, model.target, frozenset())
    if bound.binding not in ("unknown", "ambiguous"):
        return bound.binding
    if vm.needs_binding:
        return "other"
    in_play = holders if bound.binding == "unknown" else holders & bound.candidates
    others = in_play - {model.target}
    if not others or (vm.plural and model.target in holders):
        return "target"
    return bound.binding


MEMO_LIMIT = 64
"""Texts remembered per shared model: the demo's busiest model sees 20 distinct texts, and a
run set of real agents, whose texts rarely repeat, stays flat (at most 1,024 models × 64)."""

LazyFocus = frozenset[str] | Callable[[], frozenset[str]]
"""The dialogue's focus, or a function that finds it: most texts name no value bound by
references, and finding the focus looks up the dialogue's texts (with the models in force
when they were seen)."""


class _Asked:
    """A focus found at most once, on first call; whether it was asked."""

    __slots__ = ("_focus", "_found", "asked")

    def __init__(self, focus: LazyFocus) -> None:
        self._focus = focus
        self._found: frozenset[str] | None = None
        self.asked = False

    def __call__(self) -> frozenset[str]:
        self.asked = True
        if self._found is None:
            focus = self._focus
            self._found = focus if isinstance(focus, frozenset) else focus()
        return self._found


def detect(model: FactModel, text: str, step: int, source: Source, focus: LazyFocus) -> list[Use]:
    """Uses of the fact in one agent text (a message or a hand-off summary); once per
    text, source and focus for a model shared across runs (the runs of a case say many
    of the same texts about the same records). ``focus`` is found only if a mention needs
    it: which mentions do depends on the model and the text alone, so a text detected
    without it is remembered for every focus."""
    asked = _Asked(focus)
    memo = model.detected
    if memo is None:
        return _detect(model, text, step, source, asked)
    known = memo.get((text, source, None))
    if known is None and (text, source, None) in memo:
        known = memo.get((text, source, asked()))  # the text's uses depend on the focus
    if known is None:
        found = _detect(model, text, step, source, asked)
        room = len(memo) + (2 if asked.asked else 1) <= MEMO_LIMIT
        if room and all(use.step == step for use in found):  # (all of the text's own step)
            if asked.asked:
                memo[(text, source, None)] = None
                memo[(text, source, asked())] = tuple(found)
            else:
                memo[(text, source, None)] = tuple(found)
        return found
    return [use if use.step == step else dataclasses.replace(use, step=step) for use in known]


def _detect(model: FactModel, text: str, step: int, source: Source, focus: _Asked) -> list[Use]:
    units = segment(text)
    found = [outermost(model.find(unit)) for unit in units]
    user_says_true = any(
        vm.which == "v" and USER_SOURCE.search(fold(unit.text)[: vm.mention.start][-80:])
        for unit, mentions in zip(units, found, strict=True)
        for vm in mentions
    )
    uses: list[Use] = []
    at: list[int] = []  # the unit index of each use
    for unit, mentions in zip(units, found, strict=True):
        decided: list[tuple[ValueMention, Stance]] = []
        undecided: list[ValueMention] = []
        for vm in mentions:
            binding = _resolve(model, units, unit, vm, focus)
            if binding == "other":
                continue
            if binding != "target":
                undecided.append(vm)
                continue
            stance = stance_of(unit.text, vm.mention.start, vm.mention.end)
            if (
                stance == "assert"
                and vm.which == "v_prime"
                and (
                    _reported_and_checked(units, unit, vm.mention)
                    or (user_says_true and _reported(unit, vm.mention))
                )
            ):
                # Quoted to check it, or set against what the user says ("the record lists
                # May 11; the user says he returns May 21"): a discrepancy, not reliance.
                stance = "verify"
            if stance == "plan" and not model.effect:
                continue  # the value a change will set, not a use of the current one
            decided.append((vm, "assert" if stance == "plan" else stance))
        if decided:
            uses.append(_decide_unit(model, unit, decided, step, source))
            at.append(unit.index)
        elif undecided:
            at.append(unit.index)
            vm = undecided[0]
            uses.append(
                Use(
                    step,
                    "undecidable",
                    False,
                    None,
                    source,
                    f"{vm.label} {vm.mention.value!r} could be about another entity",
                    unit.text[:200],
                )
            )
    return _flagged_then_true(units, found, uses, at)


SELF_CORRECTION = re.compile(
    r"\b(?:actually|in\s+fact|correction|scratch\s+that|i\s+(?:was\s+wrong|misspoke|misread|"
    r"made\s+(?:a|an)\s+(?:error|mistake)))\b"
)
"""The agent taking back what it just said (with the true value following)."""


def _flagged_then_true(
    units: Sequence[Unit], found: list[list[ValueMention]], uses: list[Use], at: list[int]
) -> list[Use]:
    """ "Your return is on May 18 — wait, that's before your outbound, it can't be right;
    I'll use May 20": ``v′`` stated, then doubted and left for ``v`` in the same message.
    The reader never gets the statement without its correction, so the statement is a
    flag (a use, not reliance)."""
    out = list(uses)
    for n, (use, i) in enumerate(zip(uses, at, strict=True)):
        if not (use.kind == "dependent_use" and use.erroneous and use.source != "call"):
            continue
        for j in range(i, len(units)):
            rest = fold(units[j].text)
            if j == i:
                ends = [vm.mention.end for vm in found[i] if vm.which == "v_prime"]
                rest = rest[min(ends, default=0) :]
            if not (doubts(rest) or SELF_CORRECTION.search(rest)):
                continue
            if any(vm.which == "v" for k in range(j, len(units)) for vm in found[k]):
                out[n] = Use(
                    use.step,
                    "verification",
                    False,
                    "retract",
                    use.source,
                    "states the injected value, then flags it and goes on with the true one",
                    use.evidence,
                )
            break
    return out


def outermost(found: list[ValueMention]) -> list[ValueMention]:
    """Drop mentions inside a longer one ("economy" inside "basic economy")."""
    return [
        vm
        for vm in found
        if not any(
            o is not vm
            and o.mention.start <= vm.mention.start
            and vm.mention.end <= o.mention.end
            and (o.mention.end - o.mention.start) > (vm.mention.end - vm.mention.start)
            for o in found
        )
    ]


REPORTED = re.compile(
    r"\b(?:says?|said|shows?|showing|shown|lists?|listed|reads?|states?|indicates?|labell?ed|"
    r"labels?|marked|marks|tags?|tagged|classif(?:y|ies|ied)|categori[sz](?:es|ed)|files?|"
    r"filed|recorded|records|appears?|displays?|has\s+(?:it|you|this)|"
    r"calls?\s+it|according\s+to|returned|came\s+back|reports?|reported|claims?|"
    r"responded|on\s+(?:record|file|profile)|in\s+(?:the\s+)?(?:record|system|profile)|"
    r"recorded\s+\w+|\w+\s+on\s+record)\b[^.;!?]{0,60}$"
)
"""Reported speech before a value: the text attributes the value to a record or source."""
CONTRAST = re.compile(r"\b(?:but|however|although|though|whereas|yet|while|instead)\b")


USER_SOURCE = re.compile(
    r"\b(?:(?:the\s+)?(?:user|customer|passenger|caller|client|traveler|traveller)|he|she|"
    r"they|you)\s+(?:says?|said|states?|stated|mentions?|mentioned|claims?|insists?|"
    r"confirms?|confirmed|reports?|told\s+(?:me|us)|tells\s+(?:me|us))\b[^.;!?]{0,60}$"
    r"|\b(?:per|according\s+to)\s+(?:you|the\s+(?:user|customer))\b[^.;!?]{0,40}$"
)
"""A value attributed to the user rather than to a record."""


def _reported(unit: Unit, mention: Mention) -> bool:
    """Is the value attributed to a record or source ("the record lists …")?"""
    low = fold(unit.text)
    return REPORTED.search(low[max(0, mention.start - 80) : mention.start]) is not None


def _reported_and_checked(units: Sequence[Unit], unit: Unit, mention: Mention) -> bool:
    """A value the text attributes to a record ("the order shows your lamp as battery-powered")
    and then doubts, questions or sets out to check, in the same sentence or the rest of the
    message: the agent quotes it to check it, it does not rely on it."""
    if not _reported(unit, mention):
        return False
    low = fold(unit.text)
    rest = low[mention.end :]
    later = [fold(u.text) for u in units[unit.index + 1 :]]
    earlier = [fold(u.text) for u in units[: unit.index]]
    if any(doubts(t) or VERIFY_INTENT.search(t) for t in (rest, *later, *earlier)):
        return True
    if any("?" in q and VERIFY.search(q) and not ACTION_REQUEST.search(q) for q in earlier):
        return True
    questions = [rest] if "?" in rest else []
    questions += later[:1] if later and "?" in later[0] else []
    return any(
        not ACTION_REQUEST.search(q) and not re.search(r"\banything\s+else\b", q) for q in questions
    )


def _reported_then_contrasted(
    text: str, fault: list[ValueMention], true: list[ValueMention]
) -> bool:
    """ "The record says certificate, but the id is a gift card": ``v′`` is attributed to a
    source and set against ``v`` by a contrast — a flag, not two assertions."""
    low = fold(text)
    for f in fault:
        if not REPORTED.search(low[max(0, f.mention.start - 60) : f.mention.start]):
            continue
        for t in true:
            lo, hi = (
                sorted((f.mention.end, t.mention.start))
                if t.mention.start > f.mention.end
                else sorted((t.mention.end, f.mention.start))
            )
            if CONTRAST.search(low[lo:hi]):
                return True
    return False


def _decide_unit(
    model: FactModel,
    unit: Unit,
    decided: list[tuple[ValueMention, Stance]],
    step: int,
    source: Source,
) -> Use:
    fault = [(vm, st) for vm, st in decided if vm.which == "v_prime"]
    true = [(vm, st) for vm, st in decided if vm.which == "v"]
    label = decided[0][0].label
    evidence = unit.text[:200]
    asserted_fault = [vm for vm, st in fault if st == "assert"]
    asserted_true = [vm for vm, st in true if st == "assert"]

    def use(
        kind: UseKind, erroneous: bool, stance: Literal["endorse", "retract"] | None, why: str
    ) -> Use:
        return Use(step, kind, erroneous, stance, source, why, evidence)

    if asserted_fault and asserted_true:
        last_fault = max(vm.mention.start for vm in asserted_fault)
        last_true = max(vm.mention.start for vm in asserted_true)
        if _reported_then_contrasted(unit.text, asserted_fault, asserted_true):
            return use(
                "dependent_use",
                False,
                "retract",
                f"sets the record's {label} against the true value",
            )
        if has(RETRACT, unit.text):
            if last_true > last_fault:
                return use("dependent_use", False, "retract", f"corrects {label} to the true value")
            return use(
                "dependent_use",
                not model.confirmed,
                "endorse",
                f"corrects {label} to the injected value",
            )
        return use("undecidable", False, None, f"states both values of {label}")
    if asserted_fault:
        if model.confirmed:
            # The record has since shown the claimed effect (a retry took): stating it
            # now states the true state, which retracts the earlier false claim.
            return use(
                "dependent_use",
                False,
                "retract",
                f"states the injected {label} (effect since confirmed)",
            )
        return use("dependent_use", True, "endorse", f"states the injected {label}")
    if fault:
        stances = {st for _, st in fault}
        if asserted_true:
            return use(
                "dependent_use",
                False,
                "retract",
                f"states the true {label} and rejects the injected one",
            )
        if stances & {"flag", "deny"}:
            return use("verification", False, "retract", f"flags the injected {label}")
        how = "asks to verify" if "verify" in stances else "conditions on"
        return use("verification", False, None, f"{how} the injected {label}")
    if asserted_true:
        return use("dependent_use", False, "retract", f"states the true {label}")
    return use("verification", False, None, f"mentions the true {label} without asserting it")
