"""Checker reliability: does the checker name each injected defect class, and only that?

Every mutant is checked with its tool's contract; a *flag* is a VIOLATES clause that the
unmutated tool does not already have (the shipped tool's own findings are not the
mutant's doing). A mutant is *detected* when some flag carries its class. Precision is
the share of flags carrying the mutant's class. Controls recompile each unmutated tool
through the same pipeline; any verdict that differs from the shipped tool's is a false
positive. Recall is reported per class with a 95% Wilson interval.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from sscbench.analysis.intervals import wilson
from sscbench.tool_contracts.adapter import make_adapter
from sscbench.tool_contracts.checker import check_tool
from sscbench.tool_contracts.loader import load_contracts
from sscbench.tool_contracts.model import Contract, ToolResult
from sscbench.tool_contracts.mutants import Mutant, catalog, control_adapter, mutant_adapter


class _Rec(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class MutantRow(_Rec):
    """One mutant's outcome."""

    id: str
    domain: str
    tool: str
    defect_class: str
    detected: bool
    flags: tuple[str, ...]
    wrong_class_flags: int


class ClassRow(_Rec):
    """Recall of one defect class."""

    defect_class: str
    drawn: int
    detected: int
    recall: float
    wilson_low: float
    wilson_high: float


class ControlRow(_Rec):
    """One unmutated control: the recompiled tool against the shipped one."""

    domain: str
    tool: str
    false_positives: tuple[str, ...]


class Reliability(_Rec):
    """Mutants, recall per class, precision and controls."""

    mutants: tuple[MutantRow, ...]
    classes: tuple[ClassRow, ...]
    flags: int
    correct_flags: int
    precision: float
    precision_wilson_low: float
    controls: tuple[ControlRow, ...]
    control_false_positives: int


def _key(result: ToolResult) -> set[tuple[str, str, str | None]]:
    return {(c.clause, c.verdict, c.defect_class) for c in result.clauses}


def _contract(domain: str, tool: str) -> Contract:
    return next(c for c in load_contracts(domain) if c.tool == tool)


def evaluate_mutant(m: Mutant, baseline: ToolResult) -> MutantRow:
    """Check one mutant against its tool's baseline verdicts."""
    result = check_tool(mutant_adapter(m), _contract(m.domain, m.tool))
    before = _key(baseline)
    flags = [
        c for c in result.clauses
        if c.verdict == "VIOLATES" and (c.clause, c.verdict, c.defect_class) not in before
    ]  # fmt: skip
    return MutantRow(
        id=m.id, domain=m.domain, tool=m.tool, defect_class=m.defect_class,
        detected=any(f.defect_class == m.defect_class for f in flags),
        flags=tuple(f"{f.clause}: {f.defect_class}" for f in flags),
        wrong_class_flags=sum(f.defect_class != m.defect_class for f in flags),
    )  # fmt: skip


def measure(baselines: dict[tuple[str, str], ToolResult], domains: tuple[str, ...]) -> Reliability:
    """Run every shipped mutant of ``domains`` and every control; ``baselines`` are the
    shipped tools' results (from the audit), keyed by (domain, tool)."""
    rows = [
        evaluate_mutant(m, baselines[(m.domain, m.tool)])
        for m in catalog().mutants if m.domain in domains
    ]  # fmt: skip
    classes = []
    for cls in sorted({r.defect_class for r in rows}):
        drawn = [r for r in rows if r.defect_class == cls]
        hit = sum(r.detected for r in drawn)
        low, high = wilson(hit, len(drawn))
        classes.append(
            ClassRow(defect_class=cls, drawn=len(drawn), detected=hit,
                     recall=hit / len(drawn), wilson_low=low, wilson_high=high)
        )  # fmt: skip
    flags = sum(len(r.flags) for r in rows)
    wrong = sum(r.wrong_class_flags for r in rows)
    controls = []
    for (domain, tool), base in sorted(baselines.items()):
        if domain not in domains:
            continue
        got = check_tool(control_adapter(domain, tool), _contract(domain, tool))
        diff = sorted(f"{c}: {v} {k}" for c, v, k in _key(got) ^ _key(base))
        controls.append(ControlRow(domain=domain, tool=tool, false_positives=tuple(diff)))
    correct = flags - wrong
    return Reliability(
        mutants=tuple(rows), classes=tuple(classes), flags=flags, correct_flags=correct,
        precision=correct / flags if flags else 1.0,
        precision_wilson_low=wilson(correct, flags)[0] if flags else 0.0,
        controls=tuple(controls),
        control_false_positives=sum(len(c.false_positives) for c in controls),
    )  # fmt: skip


def baselines_for(domain: str) -> dict[tuple[str, str], ToolResult]:
    """The shipped tools' results of one domain (what :func:`measure` compares against)."""
    return {(domain, c.tool): check_tool(make_adapter(domain), c) for c in load_contracts(domain)}
