"""PaySource: real proposals, their screening and the intervention they define."""

from __future__ import annotations

import itertools
import json
from collections import Counter

import pytest

from sscbench.envs import EpisodeEnvironment, ToolCall, load_domain
from sscbench.fault_contracts import ContractIntervention, Edit, FaultContract
from sscbench.json_paths import flatten, set_path
from sscbench.operators import ProposalContext, Rejection, get_operator
from sscbench.operators.pay_source import FLIPS
from sscbench.operators.screen import screen
from sscbench.operators.validity import check_validity

NAME = "pay_source"


def _id(outcome: FaultContract | Rejection) -> str:
    return outcome.contract_id if isinstance(outcome, FaultContract) else outcome.candidate_id


def _method(candidate_id: str):
    uid, pid = candidate_id.split("/")[-2:]
    return load_domain("airline").base_db.users[uid].payment_methods[pid]


@pytest.fixture(scope="module")
def proposals() -> list[FaultContract | Rejection]:
    return list(get_operator(NAME).propose(ProposalContext(domain="airline", seed=0)))


@pytest.fixture(scope="module")
def screened() -> list[FaultContract | Rejection]:
    return list(screen(get_operator(NAME)))


@pytest.fixture(scope="module")
def valid(screened: list[FaultContract | Rejection]) -> list[FaultContract]:
    return [o for o in screened if isinstance(o, FaultContract)]


def _read(contract: FaultContract, intervention: ContractIntervention | None = None):
    spec = contract.interventions[0]
    env = EpisodeEnvironment.open(contract.domain, intervention=intervention)
    before = env.state_hash()
    obs = env.execute(ToolCall(id="c0", name=spec.tool, arguments=dict(spec.match)), 0)
    return obs, env, before


# -- candidate frames --------------------------------------------------------------------


def test_counts(proposals, screened, valid) -> None:
    assert len(proposals) == 184
    assert len(screened) == 184
    assert len(valid) == 54
    checks = Counter(o.check for o in screened if isinstance(o, Rejection))
    assert checks == {"schema": 69, "task_relevance": 61}


def test_candidate_ids_unique_and_sorted_per_task(proposals) -> None:
    ids = [_id(o) for o in proposals]
    assert len(ids) == len(set(ids))
    tasks = [k for k, _ in itertools.groupby(o.task_id for o in proposals)]
    assert len(tasks) == len(set(tasks))
    for task_id, group in itertools.groupby(proposals, key=lambda o: o.task_id):
        group_ids = [_id(o) for o in group]
        assert group_ids == sorted(group_ids), task_id


def test_proposals_and_screen_are_stable(proposals, screened) -> None:
    assert list(get_operator(NAME).propose(ProposalContext(domain="airline", seed=0))) == proposals
    assert list(screen(get_operator(NAME))) == screened
    assert [_id(o) for o in screened] == [_id(o) for o in proposals]


def test_contracts_do_not_depend_on_the_seed(proposals) -> None:
    """PaySource has no seeded choice: the flip is fixed by the category."""
    seed1 = list(get_operator(NAME).propose(ProposalContext(domain="airline", seed=1)))
    assert seed1 == proposals


def test_every_rejection_has_check_and_reason(screened) -> None:
    rejections = [o for o in screened if isinstance(o, Rejection)]
    assert rejections
    for r in rejections:
        assert r.operator == NAME
        assert r.check.strip() and r.reason.strip()


def test_only_gift_card_certificate_flips_are_valid(screened, valid) -> None:
    for c in valid:
        assert c.authoritative_value in ("gift_card", "certificate")
        assert c.injected_value == FLIPS[c.authoritative_value]
        assert c.authoritative_value == _method(c.contract_id).source
        pid = c.refutation.params["payment_id"]
        assert pid.startswith(f"{c.authoritative_value}_")
        assert c.target.paths == (f"payment_methods.{pid}.source",)
    assert {(c.authoritative_value, c.injected_value) for c in valid} == {
        ("gift_card", "certificate"),
        ("certificate", "gift_card"),
    }
    credit = [o for o in screened if _method(_id(o)).source == "credit_card"]
    assert len(credit) == 69
    for r in credit:
        assert isinstance(r, Rejection)
        assert r.check == "schema"


def test_contracts_quote_two_semantics(valid) -> None:
    policy = load_domain("airline").policy
    doc = load_domain("airline").toolkit_class.update_reservation_baggages.__doc__ or ""
    for c in valid:
        assert len(c.semantics) == 2
        by_source = {q.source: q.text for q in c.semantics}
        assert by_source["airline policy"] in policy
        assert "credit card" in by_source["airline policy"]
        doc_text = by_source["payment_id parameter of the airline write tools"]
        assert doc_text in doc
        assert "gift_card_" in doc_text and "certificate_" in doc_text
        assert c.refutation.relation == "payment_id_category"
        assert c.refutation.acquisition == "co_delivered"


def test_credit_card_flip_breaks_the_schema(valid) -> None:
    """Why credit cards are rejected: the one-field flip does not validate under τ²."""
    db = load_domain("airline").base_db
    c = valid[0]
    uid = c.target.entity_id
    card = next(
        p for p, m in sorted(db.users[uid].payment_methods.items()) if m.source == "credit_card"
    )
    path = f"payment_methods.{card}.source"
    spec = c.interventions[0].model_copy(
        update={"edits": (Edit(path=path, value="gift_card"),), "expect": {path: "credit_card"}}
    )
    forged = c.model_copy(
        update={
            "authoritative_value": "credit_card",
            "injected_value": "gift_card",
            "interventions": (spec,),
        }
    )
    failed = check_validity(forged)
    assert failed is not None
    assert failed[0] == "observation_rewrite"
    assert "schema" in failed[1]


def test_intervention_rewrites_exactly_the_category(valid) -> None:
    for c in valid:
        clean, _, _ = _read(c)
        intervention = ContractIntervention(c)
        faulted, env, before = _read(c, intervention)
        a, b = dict(flatten(json.loads(clean.content))), dict(flatten(json.loads(faulted.content)))
        diff = {p for p in a.keys() | b.keys() if a.get(p) != b.get(p)}
        [path] = c.target.paths
        assert diff == {path}, c.contract_id
        assert a[path] == c.authoritative_value and b[path] == c.injected_value
        edited = json.loads(clean.content)
        set_path(edited, path, c.injected_value)
        assert faulted.content == json.dumps(edited)
        # the identifier is kept
        pid = c.refutation.params["payment_id"]
        assert json.loads(faulted.content)["payment_methods"][pid]["id"] == pid
        assert env.state_hash() == before
        [delivery] = intervention.deliveries
        assert delivery.effective
