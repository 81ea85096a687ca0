"""How sure the reconstructor is of a decided adoption label, read off the label itself.

Every decided ``A`` rests on one rule and may have competitors: a reliance found in a tool
call's arguments is harder to misread than one found in a sentence; "no reliance" after
the agent only questioned or flagged ``v′`` leans on the reading of those quotes; an
undecidable use, or a true-value use before the reliance, is a competing reading; a last
stance that could not be decided is a stance cue against the reading. The confidence is a
deterministic score of those cues (the label's own ``uses``, ``adopted`` and ``y_end``),
computed on demand and never stored, so ``labels.jsonl`` is unchanged. Its accuracy against
coverage on the project's labelled corpora is measured by ``benchmarks/abstention.py``
(docs/reconstruction.md, "Confidence and abstention"); ``review export --order confidence``
sends the least confident runs to human review first.
"""

from __future__ import annotations

from dataclasses import dataclass

from sscbench.reconstruct.labels import RunLabels

BASE = {
    "reliance in a tool call": 0.97,
    "reliance in a message": 0.9,
    "uses, none relied on v′": 0.93,
    "only checks or flags of v′": 0.85,
    "no use found": 0.9,
}
"""The starting score of each deciding rule (the first cue)."""
PER_COMPETITOR = 0.06
STANCE_CUE = 0.04
FLOOR = 0.5


@dataclass(frozen=True)
class Confidence:
    """A decided label's confidence and the cues it came from."""

    value: float
    rule: str
    competing: int
    """Competing readings: undecidable uses, plus true-value uses before the reliance (A =
    1) or quotes of v′ read as checks (A = 0)."""
    stance: str | None
    """``undecidable`` when the last stance of an adopting run could not be read."""


def label_confidence(label: RunLabels) -> Confidence | None:
    """The confidence of a triggered run's decided ``A`` (None when ``A`` is undecided or
    the run was not triggered: there is nothing to be confident about)."""
    if label.triggered is not True or label.adopted is None:
        return None
    uses = [u for u in label.uses if isinstance(u, dict)]
    undecidable = sum(1 for u in uses if u.get("kind") == "undecidable")
    stance = None
    if label.adopted:
        first = next(
            (u for u in uses if u.get("kind") == "dependent_use" and u.get("erroneous")), None
        )
        rule = (
            "reliance in a tool call"
            if first is not None and first.get("source") == "call"
            else "reliance in a message"
        )
        step = first.get("step") if first is not None else None
        before = sum(
            1
            for u in uses
            if u.get("kind") == "dependent_use"
            and not u.get("erroneous")
            and isinstance(u.get("step"), int)
            and isinstance(step, int)
            and int(str(u.get("step"))) < step
        )
        competing = undecidable + before
        if label.y_end == "undecidable":
            stance = "undecidable"
    else:
        dependent = [u for u in uses if u.get("kind") == "dependent_use"]
        checks = [u for u in uses if u.get("kind") == "verification"]
        if dependent:
            rule = "uses, none relied on v′"
        elif checks:
            rule = "only checks or flags of v′"
        else:
            rule = "no use found"
        competing = undecidable + len(checks)
    value = BASE[rule] - PER_COMPETITOR * competing - (STANCE_CUE if stance else 0.0)
    return Confidence(round(max(FLOOR, value), 4), rule, competing, stance)
