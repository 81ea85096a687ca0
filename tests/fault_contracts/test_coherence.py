"""Contract coherence refuses only what contradicts a contract's meaning: every shipped
case, under every interface variant its operator takes, is coherent (the contradictory
ones are in tests/cli/test_bad_inputs.py)."""

from __future__ import annotations

from sscbench.cases.caseset import load_case_set
from sscbench.fault_contracts.coherence import contradictions
from sscbench.fault_contracts.refutation import RELATION_NEEDS, RELATIONS
from sscbench.operators.variants import takes_variant, vary


def test_every_shipped_case_and_its_variants_are_coherent() -> None:
    checked = 0
    for case in load_case_set().cases:
        contract = case.contract
        versions = [contract] + [
            vary(contract, variant)
            for variant in ("aligned", "read_back_hint")
            if takes_variant(contract.operator, variant)
        ]
        for version in versions:
            assert contradictions(version) == [], version.contract_id
            checked += 1
    assert checked > 274


def test_every_built_in_relation_declares_what_it_reads() -> None:
    assert set(RELATIONS.names()) <= set(RELATION_NEEDS)
