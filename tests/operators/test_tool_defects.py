"""The defect-class operators: proposals, validity, the choke point running the defective
copy of a tool, the shipped cases and one end-to-end run reconstructed against its truth."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sscbench.cases.caseset import load_case_set
from sscbench.cli.main import main
from sscbench.envs import EpisodeEnvironment, ToolCall, load_domain
from sscbench.fault_contracts import ContractIntervention, FaultContract, ToolEdit, write_contract
from sscbench.operators import ProposalContext, Rejection, get_operator
from sscbench.operators.validity import check_validity
from sscbench.reconstruct.label import label_run
from sscbench.reconstruct.validate import ground_truth
from sscbench.witnesses.verify import verify_witness

DEFECTS = {
    "partial_effect": ("effect_read_back", "conforming"),
    "ignored_argument": ("effect_read_back", "conforming"),
    "unenforced_precondition": ("precondition_records", "edited"),
    "invariant_break": ("precondition_records", "edited"),
}
BAGS = "ignored_argument/airline/33/4/nonfree_baggages"  # HXDUBJ: 0 paid bags, asked for 2
PENDING = "unenforced_precondition/retail/64/6/delivered"  # exchange of a pending order


def _proposals(name: str) -> list[FaultContract | Rejection]:
    op = get_operator(name)
    return [o for d in op.domains for o in op.propose(ProposalContext(domain=d))]


@pytest.fixture(scope="module")
def proposals() -> dict[str, list[FaultContract | Rejection]]:
    return {name: _proposals(name) for name in DEFECTS}


def _contract(proposals: dict[str, list[Any]], cid: str) -> FaultContract:
    found = [o for o in proposals[cid.split("/")[0]] if isinstance(o, FaultContract)]
    return next(c for c in found if c.contract_id == cid)


def _replay(contract: FaultContract, intervention: Any) -> tuple[EpisodeEnvironment, Any]:
    """The gold plan up to and including the contract's request; (env, the request's reply)."""
    task = load_domain(contract.domain).task(contract.task_id)
    index = (contract.target.logical_request or {})["gold_index"]
    env = EpisodeEnvironment.open(contract.domain, task, intervention)
    actions = list(task.evaluation_criteria.actions)
    for i, a in enumerate(actions[:index]):
        env.execute(ToolCall(id=f"g{i}", name=a.name, arguments=a.arguments), i)
    reply = env.execute(
        ToolCall(id="w", name=actions[index].name, arguments=actions[index].arguments), index
    )
    return env, reply


@pytest.mark.parametrize("name", sorted(DEFECTS))
def test_proposals_are_stable_and_well_formed(
    proposals: dict[str, list[FaultContract | Rejection]], name: str
) -> None:
    outcomes = proposals[name]
    assert outcomes == _proposals(name)  # same inputs, same contracts
    ids = [o.contract_id if isinstance(o, FaultContract) else o.candidate_id for o in outcomes]
    assert len(ids) == len(set(ids))
    relation, reply = DEFECTS[name]
    contracts = [o for o in outcomes if isinstance(o, FaultContract)]
    assert contracts
    for c in contracts:
        (spec,) = c.interventions
        assert isinstance(spec, ToolEdit) and spec.reply == reply
        assert c.refutation.relation == relation and c.injected_value != c.authoritative_value
        assert c.persistence == "all_attempts" and all(q.text for q in c.semantics)
        assert set(c.injected_value) == set(c.target.paths) == set(spec.affected_fields)
    assert all(r.check and r.reason for r in outcomes if isinstance(r, Rejection))


def test_the_choke_point_runs_the_defective_copy_and_delivers_the_conforming_reply(
    proposals: dict[str, list[Any]],
) -> None:
    contract = _contract(proposals, BAGS)
    assert contract.authoritative_value == {"nonfree_baggages": 0}
    assert contract.injected_value == {"nonfree_baggages": 2}
    base = load_domain("airline").base_db.reservations["HXDUBJ"].model_dump(mode="json")
    _, clean = _replay(contract, None)
    intervention = ContractIntervention(contract)
    env, faulted = _replay(contract, intervention)
    assert (faulted.content, faulted.error) == (clean.content, clean.error)
    assert json.loads(faulted.content)["nonfree_baggages"] == 2  # the reply claims it
    read = env.execute(
        ToolCall(id="r", name="get_reservation_details", arguments={"reservation_id": "HXDUBJ"}), 99
    )
    assert json.loads(read.content)["nonfree_baggages"] == 0  # the record does not
    assert json.loads(read.content)["total_baggages"] == 2  # the rest of the write took effect
    (log,) = [r for r in env.intervention_log if r.kind == "tool_edited"]
    assert log.state_hash_before != log.state_hash_after
    (delivery,) = intervention.deliveries
    assert (delivery.action, delivery.effective) == ("edit", True)
    # A retry meets the same defect; the shared base never changes.
    env.execute(
        ToolCall(
            id="w2",
            name="update_reservation_baggages",
            arguments=dict(contract.interventions[0].match),
        ),
        100,
    )
    assert [d.action for d in intervention.deliveries] == ["edit", "edit"]
    after = load_domain("airline").base_db.reservations["HXDUBJ"].model_dump(mode="json")
    assert after == base


def test_a_missing_guard_accepts_the_refused_write(proposals: dict[str, list[Any]]) -> None:
    contract = _contract(proposals, PENDING)
    assert contract.authoritative_value == {"status": "pending"}
    assert contract.injected_value == {"status": "exchange requested"}
    _, clean = _replay(contract, None)
    assert clean.error and "Non-delivered order cannot be exchanged" in clean.content
    env, faulted = _replay(contract, ContractIntervention(contract))
    assert not faulted.error and json.loads(faulted.content)["status"] == "exchange requested"
    order = env.state.db.orders["#W7464385"]
    assert order.status == "exchange requested"
    assert load_domain("retail").base_db.orders["#W7464385"].status == "pending"


def test_validity_refuses_defects_that_reach_beyond_their_fields(
    proposals: dict[str, list[Any]],
) -> None:
    bags = _contract(proposals, BAGS)
    assert check_validity(bags) is None
    (spec,) = bags.interventions
    assert isinstance(spec, ToolEdit)
    wrong_field = bags.model_copy(
        update={
            "interventions": (spec.model_copy(update={"affected_fields": ("total_baggages",)}),)
        }
    )
    failed = check_validity(wrong_field)
    assert failed is not None and failed[0] == "tool_edit" and "more than" in failed[1]
    no_defect = bags.model_copy(
        update={
            "interventions": (
                spec.model_copy(
                    update={
                        "edits": (
                            spec.edits[0].model_copy(
                                update={
                                    "op": "replace",
                                    "text": "reservation.nonfree_baggages = nonfree_baggages",
                                }
                            ),
                        )
                    }
                ),
            )
        }
    )
    failed = check_validity(no_defect)
    assert failed is not None and "as the real write does" in failed[1]
    pending = _contract(proposals, PENDING)
    (guard,) = pending.interventions
    conforming = pending.model_copy(
        update={"interventions": (guard.model_copy(update={"reply": "conforming"}),)}
    )
    failed = check_validity(conforming)
    assert failed is not None and failed[0] == "tool_edit"


@pytest.mark.parametrize("name", sorted(DEFECTS))
def test_every_shipped_case_verifies(name: str) -> None:
    cases = load_case_set().by_operator(name)
    assert cases
    for case in cases:
        assert verify_witness(case.contract, case.witness) == [], case.entry.case_id


@pytest.mark.parametrize("cid", [BAGS, PENDING])
def test_a_run_is_reconstructed_as_its_truth(
    proposals: dict[str, list[Any]], tmp_path: Path, cid: str
) -> None:
    """The careful agent retries the bag update (a repair, not a use) and reports the true
    count; on the missing guard it reports the accepted exchange (a use of v′)."""
    path = tmp_path / "case.yaml"
    write_contract(_contract(proposals, cid), path)
    out = tmp_path / "runs"
    assert (
        main(["run", "--contract", str(path), "--agent", "scripted:careful", "--out", str(out)])
        == 0
    )
    (run_dir,) = [p for p in out.iterdir() if p.is_dir()]
    labels, truth = label_run(run_dir), ground_truth(run_dir)
    assert truth is not None and truth.triggered and labels.triggered
    assert (labels.t_f.step, labels.t_s.step, labels.t_u.step) == (truth.t_f, truth.t_s, truth.t_u)
    assert labels.adopted == truth.adopted == (cid == PENDING)
    assert labels.t_e.status == "found"
