"""Inspect samples from the case set: one per fault case, or one per clean control task.

Filters apply in this order: ``operator`` (names, comma-separated), ``domain``, ``case``
(ids, comma-separated), ``controls`` (target-value controls kept or not), ``per_operator``
(the first N of each operator, in manifest order). A filter that names nothing known is
one error naming it. Each sample carries its case id, operator, task, step limit and the
full fault contract in its metadata; clean samples are the distinct tasks (with their
interface variants and step limits) of the selected cases.
"""

from __future__ import annotations

from pathlib import Path

from inspect_ai.dataset import MemoryDataset, Sample

from sscbench.cases.caseset import Case, load_case_set
from sscbench.errors import ConfigError
from sscbench.operators.registry import get_operator


def _names(text: str | None) -> list[str] | None:
    if text is None:
        return None
    names = [t.strip() for t in str(text).split(",") if t.strip()]
    return names or None


def select_cases(
    *,
    operator: str | None = None,
    domain: str | None = None,
    case: str | None = None,
    controls: bool = True,
    per_operator: int | None = None,
    cases_dir: str | None = None,
) -> list[Case]:
    """The selected cases of the case set (module docstring)."""
    case_set = load_case_set(None if cases_dir is None else Path(cases_dir))
    cases = list(case_set.cases)
    known_ops = sorted({c.entry.operator for c in cases})
    if (ops := _names(operator)) is not None:
        unknown = [o for o in ops if o not in known_ops]
        if unknown:
            raise ConfigError(
                f"unknown operator {', '.join(unknown)}; the case set has {', '.join(known_ops)}"
            )
        cases = [c for c in cases if c.entry.operator in ops]
    if domain is not None:
        domains = sorted({c.contract.domain for c in case_set.cases})
        if domain not in domains:
            raise ConfigError(f"unknown domain {domain!r}; the case set has {', '.join(domains)}")
        cases = [c for c in cases if c.contract.domain == domain]
    if (ids := _names(case)) is not None:
        known = {c.entry.case_id for c in case_set.cases}
        missing = [i for i in ids if i not in known]
        if missing:
            example = case_set.cases[0].entry.case_id
            raise ConfigError(f"no case {missing[0]!r} in {case_set.root} (e.g. {example})")
        cases = [c for c in cases if c.entry.case_id in ids]
    if not controls:
        cases = [c for c in cases if not c.contract.control]
    if per_operator is not None:
        if per_operator < 1:
            raise ConfigError(f"per_operator must be at least 1, got {per_operator}")
        kept: dict[str, int] = {}
        chosen = []
        for c in cases:
            if kept.get(c.entry.operator, 0) < per_operator:
                kept[c.entry.operator] = kept.get(c.entry.operator, 0) + 1
                chosen.append(c)
        cases = chosen
    if not cases:
        raise ConfigError("the filters select no case")
    return cases


def _steps(operator: str, max_steps: int | None) -> int:
    return max_steps if max_steps is not None else get_operator(operator).step_limit


def case_samples(cases: list[Case], max_steps: int | None = None) -> MemoryDataset:
    """One sample per fault case."""
    samples = [
        Sample(
            id=c.entry.case_id,
            input=f"SSCBench fault case {c.entry.case_id}: {c.contract.target.scope}",
            metadata={
                "case_id": c.entry.case_id,
                "operator": c.entry.operator,
                "control": c.contract.control,
                "domain": c.contract.domain,
                "task_id": c.contract.task_id,
                "max_steps": _steps(c.entry.operator, max_steps),
                "contract": c.contract.model_dump(mode="json"),
            },
        )
        for c in cases
    ]
    return MemoryDataset(samples, name="sscbench-cases")


def clean_samples(cases: list[Case], max_steps: int | None = None) -> MemoryDataset:
    """One sample per distinct clean task (domain, task, interface variants, step limit) of
    the cases: the control each case's adoption is gated by under the protocol."""
    seen: dict[str, Sample] = {}
    for c in cases:
        steps = _steps(c.entry.operator, max_steps)
        variants = dict(c.contract.variant)
        suffix = "".join(f"+{k}" for k in sorted(variants))
        key = f"clean:{c.contract.domain}/{c.contract.task_id}{suffix}.m{steps}"
        seen.setdefault(
            key,
            Sample(
                id=key,
                input=f"SSCBench clean task {c.contract.domain}/{c.contract.task_id}",
                metadata={
                    "case_id": None,
                    "domain": c.contract.domain,
                    "task_id": c.contract.task_id,
                    "max_steps": steps,
                    "variants": variants,
                    "contract": None,
                },
            ),
        )
    return MemoryDataset(list(seen.values()), name="sscbench-clean")
