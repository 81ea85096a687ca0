"""Versioned JSON records of the grader audit, the defect matrix and replay re-scoring."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

AUDIT_SCHEMA_VERSION = 1
MATRIX_SCHEMA_VERSION = 1
RESCORE_SCHEMA_VERSION = 1


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class CheckRecord(_Frozen):
    """One check on one task."""

    check: str
    task_id: str
    status: Literal["pass", "violated", "not_applicable"]
    detail: str


class AuditRecord(_Frozen):
    """``audit.json``: the eight checks of one target's grader on its tasks."""

    schema_version: int = AUDIT_SCHEMA_VERSION
    target: str
    domain: str
    grader: str
    tasks: list[str]
    fault_plans: dict[str, list[str]] = Field(description="task → fault sources used")
    results: list[CheckRecord]
    summary: dict[str, dict[str, int]] = Field(description="check → status → task count")


class CombinationRecord(_Frozen):
    """One (variant, target) cell of the defect matrix."""

    variant: str
    defect_class: str
    target: str
    distinguishable: Literal["distinguishable", "unresolved"]
    probe_evidence: str = Field(description="first observation where the variant differed")
    detected_by: list[str] = Field(description="checks with a violation the base does not have")
    detail: dict[str, str] = Field(description="check → first new violation")


class ClassRow(_Frozen):
    """Per defect class: combinations, distinguishable, detected, triggering and necessary
    checks."""

    defect_class: str
    description: str
    combinations: int
    distinguishable: int
    detected: int
    detected_of_distinguishable: int
    triggered_by: list[str]
    necessary: list[str]


class MatrixRecord(_Frozen):
    """``matrix.json``: the defect-injection matrix with its probe, detection and ablation."""

    schema_version: int = MATRIX_SCHEMA_VERSION
    targets: list[str]
    tasks: dict[str, list[str]]
    variants: int
    base_violations: dict[str, list[str]] = Field(
        description="target → checks the unmodified grader already violates (not counted)"
    )
    combinations: list[CombinationRecord]
    classes: list[ClassRow]
    detected_of_distinguishable: tuple[int, int]
    detected_of_all: tuple[int, int]
    unique_detections: dict[str, int] = Field(
        description="check → combinations no other check detects"
    )
    missed: list[str] = Field(description="distinguishable combinations no check detected")


class RescoredRun(_Frozen):
    """One recorded run: its archived label beside the label its replay re-derives."""

    run: str
    source: Literal["sscbench", "tau2-import"]
    domain: str
    task_id: str
    faulted: bool
    termination: str
    archived_success: bool | None
    archived_db_match: bool | None
    replayed_success: bool | None
    replayed_db_match: bool | None
    archived_final_state_hash: str | None
    replayed_final_state_hash: str | None
    observations: int
    observations_identical: int
    status: Literal["rescored", "not_graded"]
    changed: bool
    fidelity: list[str] = Field(description="failed fidelity checks (empty: faithful)")
    other_task_state: bool = Field(
        default=False,
        description="the replayed final state is another task's gold state (an imported "
        "results file whose task ids do not belong to its conversations)",
    )


class RescoreRecord(_Frozen):
    """``rescore.json``: every run of a directory re-scored by replay, never overwritten."""

    schema_version: int = RESCORE_SCHEMA_VERSION
    directory: str
    runs: list[RescoredRun]
    archived_successes: int
    replayed_successes: int
    successes_changed: int
    failures_changed: int
    changed_into_other_task_state: int
    fidelity_failures: int
    unfaulted_hash_reproduced: tuple[int, int]
    step_limit_as_recorded: tuple[int, int]
