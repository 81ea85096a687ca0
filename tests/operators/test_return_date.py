"""ReturnDate: real proposals, their screening and the intervention they define."""

from __future__ import annotations

import itertools
import json
import random
from collections import Counter
from datetime import date

import pytest

from sscbench.envs import EpisodeEnvironment, ToolCall, load_domain
from sscbench.fault_contracts import ContractIntervention, FaultContract
from sscbench.json_paths import flatten, set_path
from sscbench.operators import ProposalContext, Rejection, get_operator
from sscbench.operators.return_date import split_round_trip
from sscbench.operators.screen import screen

NAME = "return_date"


def _id(outcome: FaultContract | Rejection) -> str:
    return outcome.contract_id if isinstance(outcome, FaultContract) else outcome.candidate_id


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
    """Run the contract's target read in a fresh environment: (observation, env, hash before)."""
    spec = contract.interventions[0]
    env = EpisodeEnvironment.open(contract.domain, intervention=intervention)
    before = env.state_hash()
    obs = env.execute(ToolCall(id="c0", name=spec.tool, arguments=dict(spec.match)), 0)
    return obs, env, before


# -- candidate frames --------------------------------------------------------------------


def test_counts(proposals, screened, valid) -> None:
    assert len(proposals) == 244
    assert len(screened) == 244
    assert len(valid) == 37
    checks = Counter(o.check for o in screened if isinstance(o, Rejection))
    assert checks == {"task_relevance": 81, "round_trip": 126}


def test_candidate_ids_unique_and_sorted_per_task(proposals) -> None:
    ids = [_id(o) for o in proposals]
    assert len(ids) == len(set(ids))
    tasks = [k for k, _ in itertools.groupby(o.task_id for o in proposals)]
    assert len(tasks) == len(set(tasks)), "each task's candidates are yielded together"
    for task_id, group in itertools.groupby(proposals, key=lambda o: o.task_id):
        group_ids = [_id(o) for o in group]
        assert group_ids == sorted(group_ids), task_id
        assert all(i.startswith(f"{NAME}/airline/{task_id}/") for i in group_ids)


def test_proposals_and_screen_are_stable(proposals, screened) -> None:
    again = list(get_operator(NAME).propose(ProposalContext(domain="airline", seed=0)))
    assert again == proposals
    assert list(screen(get_operator(NAME))) == screened
    # screening keeps the candidate order and ids
    assert [_id(o) for o in screened] == [_id(o) for o in proposals]


def test_every_rejection_has_check_and_reason(screened) -> None:
    rejections = [o for o in screened if isinstance(o, Rejection)]
    assert rejections
    for r in rejections:
        assert r.operator == NAME
        assert r.check.strip() and r.reason.strip()
        assert r.cluster == r.candidate_id.rsplit("/", 1)[1]


def test_contract_depends_only_on_seed_and_candidate_id(proposals) -> None:
    seed1 = list(get_operator(NAME).propose(ProposalContext(domain="airline", seed=1)))
    assert [_id(o) for o in seed1] == [_id(o) for o in proposals]
    changed = 0
    for a, b in zip(proposals, seed1, strict=True):
        if isinstance(a, Rejection):
            assert a == b, "rejections do not depend on the seed"
            continue
        assert isinstance(b, FaultContract)
        # only the seeded shift differs
        assert a.target == b.target
        assert a.authoritative_value == b.authoritative_value
        changed += a.injected_value != b.injected_value
    assert changed > 0, "seed 1 changes some seeded shifts"
    # the shift is exactly what random.Random(f"{seed}:{candidate id}") draws
    for seed, outcomes in ((0, proposals), (1, seed1)):
        for c in outcomes:
            if isinstance(c, Rejection):
                continue
            days = random.Random(f"{seed}:{c.contract_id}").randint(1, 3)
            out = date.fromisoformat(c.refutation.params["outbound"][0]["date"])
            first_back = date.fromisoformat(c.refutation.params["injected_return_date"])
            assert (out - first_back).days == days, c.contract_id


def test_contract_independent_of_other_candidates(proposals) -> None:
    """Proposing a single frame on its own yields the same contract as in the full run."""
    op = get_operator(NAME)
    db = load_domain("airline").base_db
    ctx = ProposalContext(domain="airline", seed=0)
    for c in proposals:
        if isinstance(c, Rejection):
            continue
        rid = c.target.entity_id
        alone = op._candidate(ctx, c.task_id, rid, db.reservations[rid], True)
        assert alone == c


# -- the contracts -----------------------------------------------------------------------


def test_injected_return_dates_precede_outbound_by_one_to_three_days(valid) -> None:
    db = load_domain("airline").base_db
    for c in valid:
        res = db.reservations[c.target.entity_id]
        assert res.flight_type == "round_trip"
        outbound, inbound = split_round_trip(res)
        out_date = date.fromisoformat(res.flights[outbound[0]].date)
        assert set(c.target.paths) == {f"flights.{i}.date" for i in inbound}
        assert c.authoritative_value == {f"flights.{i}.date": res.flights[i].date for i in inbound}
        for path, value in c.injected_value.items():
            assert 1 <= (out_date - date.fromisoformat(value)).days <= 3, (c.contract_id, path)
        assert c.refutation.relation == "round_trip_order"
        assert c.refutation.acquisition == "co_delivered"
        assert [s["index"] for s in c.refutation.params["outbound"]] == outbound
        assert len(c.semantics) == 2


def test_intervention_rewrites_exactly_the_return_dates(valid) -> None:
    for c in valid:
        clean, _, _ = _read(c)
        intervention = ContractIntervention(c)
        faulted, env, before = _read(c, intervention)
        assert not clean.error and not faulted.error
        true = json.loads(clean.content)
        got = json.loads(faulted.content)
        a, b = dict(flatten(true)), dict(flatten(got))
        diff = {p for p in a.keys() | b.keys() if a.get(p) != b.get(p)}
        assert diff == set(c.target.paths), c.contract_id
        for path, value in c.injected_value.items():
            assert b[path] == value
        edited = json.loads(clean.content)
        for path, value in c.injected_value.items():
            set_path(edited, path, value)
        assert faulted.content == json.dumps(edited)
        assert env.state_hash() == before, "a rewrite never touches state"
        [record] = env.intervention_log
        assert record.kind == "observation_rewritten" and record.step == 0
        [delivery] = intervention.deliveries
        assert delivery.effective and delivery.action == "rewrite" and delivery.role == "fault"


def test_other_reads_untouched(valid) -> None:
    c = valid[0]
    rid = c.target.entity_id
    user = load_domain("airline").base_db.reservations[rid].user_id
    other = next(r for r in load_domain("airline").base_db.reservations if r != rid)
    for tool, args in (
        ("get_reservation_details", {"reservation_id": other}),
        ("get_user_details", {"user_id": user}),
    ):
        clean = EpisodeEnvironment.open("airline").execute(
            ToolCall(id="x", name=tool, arguments=args), 0
        )
        env = EpisodeEnvironment.open("airline", intervention=ContractIntervention(c))
        assert env.execute(ToolCall(id="x", name=tool, arguments=args), 0) == clean
        assert env.intervention_log == []


def test_first_delivery_persistence_rewrites_once(valid) -> None:
    c = valid[0].model_copy(update={"persistence": "first_delivery"})
    spec = c.interventions[0]
    clean, _, _ = _read(c)
    env = EpisodeEnvironment.open("airline", intervention=ContractIntervention(c))
    first = env.execute(ToolCall(id="a", name=spec.tool, arguments=dict(spec.match)), 0)
    second = env.execute(ToolCall(id="b", name=spec.tool, arguments=dict(spec.match)), 2)
    assert first.content != clean.content
    assert second.content == clean.content
    every = EpisodeEnvironment.open("airline", intervention=ContractIntervention(valid[0]))
    one = every.execute(ToolCall(id="a", name=spec.tool, arguments=dict(spec.match)), 0)
    two = every.execute(ToolCall(id="b", name=spec.tool, arguments=dict(spec.match)), 2)
    assert one.content == two.content == first.content
