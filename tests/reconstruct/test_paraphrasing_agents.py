"""Reconstruction of the paraphrasing scripted agents against their private ground truth.

Every shipped case, all four scripted agents, ``phrasing=varied`` (statements, checks,
doubts, retractions and completion claims in many natural forms, lists, tables and JSON
replies), one repetition. The agents' ground truth does not depend on the wording, so every
run is scored exactly. Floors: adoption agreement 99 %, ``T_S`` and ``T_U`` exact 98 %.

The defect-class operators (PartialEffect, IgnoredArgument, UnenforcedPrecondition,
InvariantBreak, ResetLeak) use the generic value rules with a few additions; their
varied-phrasing runs are scored apart, with lower floors (90 %: bag counts in tables, refund
lists and planned writes in free words are what they still miss).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from sscbench.cases.caseset import load_case_set
from sscbench.experiments.inline import run_case_set
from sscbench.reconstruct.validate import validate_dir

AGENTS = ("scripted:careful", "scripted:gold", "scripted:hasty", "scripted:mixed")
GENERIC_RULES = (
    "partial_effect",
    "ignored_argument",
    "unenforced_precondition",
    "invariant_break",
    "reset_leak",
)


@pytest.fixture(scope="module")
def varied_runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("varied")
    run_case_set(load_case_set(), AGENTS, out, seeds=(1,), agent_params={"phrasing": "varied"})
    apart = out.with_name(f"{out.name}-defects")
    apart.mkdir()
    for run in list(out.iterdir()):
        if run.name.split(".")[0] in GENERIC_RULES:
            shutil.move(run, apart / run.name)
    return out


def test_varied_phrasing_of_the_defect_classes_is_mostly_reconstructed(varied_runs: Path) -> None:
    agreement, runs = validate_dir(varied_runs.with_name(f"{varied_runs.name}-defects"))
    assert runs == 94 * len(AGENTS)
    for quantity, floor in (("adopted", 0.97), ("t_s", 0.97), ("t_u", 0.97), ("t_f", 1.0)):
        compared = agreement.compared[quantity]
        assert agreement.agree[quantity] / compared >= floor, (quantity, agreement.mismatches[:5])


def test_varied_phrasing_is_reconstructed(varied_runs: Path) -> None:
    agreement, runs = validate_dir(varied_runs)
    # the 120 reference cases and the 30 telecom cases of LineUsage and of DeviceReading
    assert runs == (120 + 30 + 30) * len(AGENTS)
    for quantity, floor in (("adopted", 0.99), ("t_s", 0.98), ("t_u", 0.98), ("t_f", 1.0)):
        compared = agreement.compared[quantity]
        assert compared > 100, quantity
        assert agreement.agree[quantity] / compared >= floor, (
            quantity,
            [m for m in agreement.mismatches if m[1] == quantity][:5],
        )
    assert sum(agreement.undecidable.values()) <= 10
