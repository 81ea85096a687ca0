"""WriteEffect: real proposals, their screening and the write suppression they define."""

from __future__ import annotations

import itertools
import json

import pytest

from sscbench.cases.build import natural_key
from sscbench.envs import EpisodeEnvironment, ToolCall, load_domain
from sscbench.fault_contracts import ContractIntervention, FaultContract, WriteSuppression
from sscbench.operators import ProposalContext, Rejection, get_operator
from sscbench.operators.screen import screen

NAME = "write_effect"
BAGS = "write_effect/airline/12/4"  # update_reservation_baggages YAX4DR: 0/0 -> 2/0
RID = "YAX4DR"


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


@pytest.fixture(autouse=True)
def _private_base(monkeypatch: pytest.MonkeyPatch) -> None:
    """Give the shared base DB private copies of the entities these tests write.

    A safety net: if a suppressed write ever again leaves a restored base object marked as
    owned, a later real write would mutate the shared base (regression test:
    test_real_write_after_suppression_leaves_the_base_intact); keep that out of other tests.
    """
    db = load_domain("airline").base_db
    res = db.reservations[RID]
    monkeypatch.setitem(db.reservations, RID, res.model_copy(deep=True))
    monkeypatch.setitem(db.users, res.user_id, db.users[res.user_id].model_copy(deep=True))


def _contract(valid: list[FaultContract], cid: str, persistence: str | None = None):
    c = next(c for c in valid if c.contract_id == cid)
    return c if persistence is None else c.model_copy(update={"persistence": persistence})


class Episode:
    """A faulted environment with a step counter."""

    def __init__(self, contract: FaultContract) -> None:
        self.intervention = ContractIntervention(contract)
        self.env = EpisodeEnvironment.open("airline", intervention=self.intervention)
        self.step = 0

    def call(self, name: str, **arguments):
        self.step += 2
        call = ToolCall(id=f"c{self.step}", name=name, arguments=arguments)
        return self.env.execute(call, self.step)

    def fields(self, rid: str, fields: tuple[str, ...]) -> dict:
        reservation = self.env.state.db.reservations[rid].model_dump(mode="json")
        return {f: reservation[f] for f in fields}


# -- candidate frames --------------------------------------------------------------------


def test_counts(proposals, screened, valid) -> None:
    assert len(proposals) == 43
    assert len(screened) == 43
    assert len(valid) == 43


def test_candidate_ids_unique_and_stable(proposals, screened) -> None:
    ids = [_id(o) for o in proposals]
    assert len(ids) == len(set(ids))
    tasks = [k for k, _ in itertools.groupby(o.task_id for o in proposals)]
    assert len(tasks) == len(set(tasks))
    assert list(get_operator(NAME).propose(ProposalContext(domain="airline", seed=0))) == proposals
    assert list(screen(get_operator(NAME))) == screened
    assert [_id(o) for o in screened] == ids
    # no seeded choice: the seed changes nothing
    assert list(get_operator(NAME).propose(ProposalContext(domain="airline", seed=1))) == proposals


def test_candidates_follow_gold_order_per_task(proposals) -> None:
    for _, group in itertools.groupby(proposals, key=lambda o: o.task_id):
        indexes = [int(_id(o).rsplit("/", 1)[1]) for o in group]
        assert indexes == sorted(indexes)


def test_candidate_ids_sorted_per_task(proposals) -> None:
    for task_id, group in itertools.groupby(proposals, key=lambda o: o.task_id):
        group_ids = [_id(o) for o in group]
        assert group_ids == sorted(group_ids, key=natural_key), task_id


def test_every_rejection_has_check_and_reason(screened) -> None:
    # no current frame is rejected; a failing gold write would be, with a reason
    rejections = [o for o in screened if isinstance(o, Rejection)]
    assert rejections == []
    op = get_operator(NAME)
    domain = load_domain("airline")
    action = domain.task("12").evaluation_criteria.actions[4]
    r = op._candidate(domain, "12", 4, action, RID, {}, "Error: nope", True)
    assert isinstance(r, Rejection)
    assert r.check == "write_succeeds" and r.reason.strip()
    assert r.candidate_id == BAGS


def test_contract_shape(valid) -> None:
    for c in valid:
        [spec] = c.interventions
        assert isinstance(spec, WriteSuppression)
        request = c.target.logical_request
        assert request is not None
        assert spec.tool == request["tool"] == c.refutation.params["tool"]
        assert spec.match == request["match"] == c.refutation.params["match"]
        assert spec.affected_fields == c.target.paths
        assert list(spec.affected_fields) == c.refutation.params["affected_fields"]
        assert c.authoritative_value != c.injected_value
        assert set(c.authoritative_value) == set(c.injected_value) == set(spec.affected_fields)
        assert c.persistence == "first_attempt"
        assert len(c.semantics) == 2 and all(q.text for q in c.semantics)


# -- the suppression ---------------------------------------------------------------------


def test_gold_replay_suppresses_the_write_with_a_real_payload(valid) -> None:
    domain = load_domain("airline")
    for c in valid:
        task = domain.task(c.task_id)
        gold_index = c.target.logical_request["gold_index"]
        actions = task.evaluation_criteria.actions[: gold_index + 1]
        intervention = ContractIntervention(c)
        real = EpisodeEnvironment.open("airline", task)
        fault = EpisodeEnvironment.open("airline", task, intervention)
        for i, action in enumerate(actions):
            call = ToolCall(id=f"g{i}", name=action.name, arguments=action.arguments)
            before = fault.state_hash()
            assert before == real.state_hash()
            got_real = real.execute(call, 2 * i)
            got_fault = fault.execute(call, 2 * i)
            assert got_fault.content == got_real.content, (c.contract_id, i)
            assert got_fault.error is got_real.error is False
            if i == gold_index:
                assert fault.state_hash() == before, c.contract_id
                assert real.state_hash() != before
                rid = c.target.entity_id
                shown = {f: json.loads(got_fault.content)[f] for f in c.target.paths}
                assert shown == c.injected_value
                stored = fault.state.db.reservations[rid].model_dump(mode="json")
                assert {f: stored[f] for f in c.target.paths} == c.authoritative_value
        [record] = fault.intervention_log
        assert record.kind == "write_suppressed"
        assert record.state_hash_before == record.state_hash_after
        [delivery] = intervention.deliveries
        assert delivery.effective and delivery.action == "suppress"
        assert delivery.step == 2 * gold_index


def test_first_attempt_lets_an_identical_retry_through(valid) -> None:
    c = _contract(valid, BAGS, "first_attempt")
    match = c.target.logical_request["match"]
    fields = c.target.paths
    ep = Episode(c)
    h0 = ep.env.state_hash()
    assert not ep.call(c.interventions[0].tool, **match).error
    assert ep.env.state_hash() == h0
    assert ep.fields(RID, fields) == c.authoritative_value
    assert not ep.call(c.interventions[0].tool, **match).error
    assert ep.env.state_hash() != h0
    assert ep.fields(RID, fields) == c.injected_value
    assert [d.effective for d in ep.intervention.deliveries] == [True]


def test_all_attempts_suppresses_an_identical_retry(valid) -> None:
    c = _contract(valid, BAGS, "all_attempts")
    match = c.target.logical_request["match"]
    ep = Episode(c)
    h0 = ep.env.state_hash()
    for _ in range(3):
        assert not ep.call(c.interventions[0].tool, **match).error
        assert ep.env.state_hash() == h0
    assert ep.fields(RID, c.target.paths) == c.authoritative_value
    assert [d.effective for d in ep.intervention.deliveries] == [True, True, True]
    assert len(ep.env.intervention_log) == 3


def test_all_attempts_retry_after_an_intervening_change_goes_through(valid) -> None:
    c = _contract(valid, BAGS, "all_attempts")
    match = c.target.logical_request["match"]
    ep = Episode(c)
    h0 = ep.env.state_hash()
    ep.call(c.interventions[0].tool, **match)
    assert ep.env.state_hash() == h0
    # a different request that changes the affected fields really runs
    other = dict(match, total_baggages=1)
    assert not ep.call("update_reservation_baggages", **other).error
    assert ep.fields(RID, c.target.paths) == {"total_baggages": 1, "nonfree_baggages": 0}
    # the retry is no longer the same logical request: not suppressed
    assert not ep.call(c.interventions[0].tool, **match).error
    assert ep.fields(RID, c.target.paths) == c.injected_value
    assert len(ep.intervention.deliveries) == 1


def test_all_attempts_unrelated_write_keeps_suppressing(valid) -> None:
    """A write to other fields of the reservation does not break attribution."""
    c = _contract(valid, BAGS, "all_attempts")
    match = c.target.logical_request["match"]
    ep = Episode(c)
    ep.call(c.interventions[0].tool, **match)
    res = load_domain("airline").base_db.reservations[RID]
    passengers = [p.model_dump(mode="json") for p in res.passengers]
    assert not ep.call(
        "update_reservation_passengers", reservation_id=RID, passengers=passengers
    ).error
    ep.call(c.interventions[0].tool, **match)
    assert ep.fields(RID, c.target.paths) == c.authoritative_value
    assert [d.effective for d in ep.intervention.deliveries] == [True, True]


def test_all_attempts_failed_intervening_write_keeps_suppressing(valid) -> None:
    c = _contract(valid, BAGS, "all_attempts")
    match = c.target.logical_request["match"]
    ep = Episode(c)
    h0 = ep.env.state_hash()
    ep.call(c.interventions[0].tool, **match)
    failed = ep.call("update_reservation_baggages", **dict(match, payment_id="gift_card_0000000"))
    assert failed.error and ep.env.state_hash() == h0
    # nothing changed the affected fields: the retry is the same logical request
    ep.call(c.interventions[0].tool, **match)
    assert ep.env.state_hash() == h0


def test_real_write_after_suppression_leaves_the_base_intact(valid) -> None:
    """A suppressed write must hand back ownership with the restored objects."""
    c = _contract(valid, BAGS, "first_attempt")
    match = c.target.logical_request["match"]
    ep = Episode(c)
    ep.call(c.interventions[0].tool, **match)  # suppressed
    ep.call(c.interventions[0].tool, **match)  # real retry, owned by this episode only
    assert ep.fields(RID, c.target.paths) == c.injected_value
    assert load_domain("airline").base_db.reservations[RID].total_baggages == 0
    fresh = EpisodeEnvironment.open("airline")
    shown = fresh.execute(
        ToolCall(id="r", name="get_reservation_details", arguments={"reservation_id": RID}), 0
    )
    assert json.loads(shown.content)["total_baggages"] == 0


def test_fault_delivery_is_effective_only_for_a_success_payload(valid) -> None:
    c = _contract(valid, BAGS, "first_attempt")
    match = c.target.logical_request["match"]
    ep = Episode(c)
    h0 = ep.env.state_hash()
    # still the logical request (argument subset match), but τ² answers with an error
    bad = ep.call(c.interventions[0].tool, **dict(match, note="x"))
    assert bad.error
    [first] = ep.intervention.deliveries
    assert first.action == "suppress" and not first.effective
    assert ep.env.intervention_log[0].detail["tool_error"] is True
    # an error does not use up the first attempt: the next one is still suppressed
    ok = ep.call(c.interventions[0].tool, **match)
    assert not ok.error and ep.env.state_hash() == h0
    assert [d.effective for d in ep.intervention.deliveries] == [False, True]
    assert ep.intervention.deliveries[1].step == ep.step
    # other writes, and reads, log nothing
    ep.call("get_reservation_details", reservation_id=RID)
    assert len(ep.intervention.deliveries) == 2


def test_suppression_only_matches_the_logical_request(valid) -> None:
    c = _contract(valid, BAGS)
    match = c.target.logical_request["match"]
    ep = Episode(c)
    h0 = ep.env.state_hash()
    assert not ep.call("update_reservation_baggages", **dict(match, total_baggages=1)).error
    assert ep.env.state_hash() != h0
    assert ep.intervention.deliveries == []
    assert ep.env.intervention_log == []
