"""The observation-contract label of a run, after *ContractBench*'s taxonomy.

Beside SSCBench's events (arrival, first use, adoption) an observation-contract run gets
one primary label by severity: a *validity* label (``EXPIRED_BEFORE_USE``: a gated write
reached the server outside the window of the artifact in force) before an *integrity*
label (``MUTATED_TOKEN``: a call carried an identifier whose SHA-256 differs from the
artifact as issued — the damaged form), before the *meta* labels (``OTHER``: the task
failed with every contract kept; ``SUCCESS``). Every required contract must hold: a later
success never offsets an earlier violation, so one violation anywhere sets the label.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from sscbench.fault_contracts.contract import FaultContract
from sscbench.fault_contracts.history import History
from sscbench.fault_contracts.perturbations import digest
from sscbench.json_paths import flatten
from sscbench.reconstruct.detector import Use

PrimaryLabel = Literal["EXPIRED_BEFORE_USE", "MUTATED_TOKEN", "OTHER", "SUCCESS"]
Axis = Literal["validity", "integrity", "meta"]
SEVERITY: tuple[tuple[PrimaryLabel, Axis], ...] = (
    ("EXPIRED_BEFORE_USE", "validity"),
    ("MUTATED_TOKEN", "integrity"),
    ("OTHER", "meta"),
    ("SUCCESS", "meta"),
)
OPERATORS = ("expiry", "transport")
"""Operators whose runs are labelled with the observation-contract taxonomy."""


class ContractLabel(BaseModel):
    """One primary label by severity, every label that applied, and why."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    primary: PrimaryLabel
    axis: Axis
    labels: tuple[PrimaryLabel, ...]
    reason: str


def _mutated(contract: FaultContract, history: History) -> str | None:
    p = contract.refutation.params
    issued, damaged = digest(str(p["authoritative"])), digest(str(p["damaged"]))
    for call in history.tool_calls():
        for path, value in flatten(call.arguments):
            if isinstance(value, str) and digest(value) == damaged != issued:
                return f"{call.name} at step {call.step} passes {path}={value!r}, not as issued"
    return None


def contract_label(
    contract: FaultContract, history: History, uses: list[Use], success: bool | None
) -> ContractLabel | None:
    """The run's label, or ``None`` for an operator outside the taxonomy."""
    if contract.operator not in OPERATORS:
        return None
    found: dict[PrimaryLabel, str] = {}
    if contract.operator == "expiry":
        late = next((u for u in uses if u.source == "call" and u.erroneous), None)
        if late is not None:
            found["EXPIRED_BEFORE_USE"] = f"step {late.step}: {late.reason}"
    else:
        mutated = _mutated(contract, history)
        if mutated is not None:
            found["MUTATED_TOKEN"] = mutated
    if success:
        found["SUCCESS"] = "the task succeeded"
    else:
        found["OTHER"] = "the task did not succeed" if success is False else "no grade"
    ordered = [(label, axis) for label, axis in SEVERITY if label in found]
    primary, axis = ordered[0]
    return ContractLabel(
        primary=primary,
        axis=axis,
        labels=tuple(label for label, _ in ordered),
        reason=found[primary],
    )
