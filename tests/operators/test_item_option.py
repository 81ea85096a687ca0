"""ItemOption: real proposals, their screening and the intervention they define."""

from __future__ import annotations

import itertools
import json
import random
from collections import Counter

import pytest

from sscbench.envs import EpisodeEnvironment, ToolCall, load_domain
from sscbench.fault_contracts import ContractIntervention, FaultContract, ObservationRewrite
from sscbench.json_paths import flatten, set_path
from sscbench.operators import ProposalContext, Rejection, get_operator
from sscbench.operators.screen import screen
from sscbench.operators.variants import vary

NAME = "item_option"


def _id(outcome: FaultContract | Rejection) -> str:
    return outcome.contract_id if isinstance(outcome, FaultContract) else outcome.candidate_id


@pytest.fixture(scope="module")
def proposals() -> list[FaultContract | Rejection]:
    return list(get_operator(NAME).propose(ProposalContext(domain="retail", seed=0)))


@pytest.fixture(scope="module")
def screened() -> list[FaultContract | Rejection]:
    return list(screen(get_operator(NAME)))


@pytest.fixture(scope="module")
def valid(screened: list[FaultContract | Rejection]) -> list[FaultContract]:
    return [o for o in screened if isinstance(o, FaultContract)]


def _run(domain: str, tool: str, args: dict, intervention: ContractIntervention | None = None):
    env = EpisodeEnvironment.open(domain, intervention=intervention)
    before = env.state_hash()
    obs = env.execute(ToolCall(id="c0", name=tool, arguments=dict(args)), 0)
    return obs, env, before


def _diff(clean: str, faulted: str) -> tuple[set[str], dict]:
    a, b = dict(flatten(json.loads(clean))), dict(flatten(json.loads(faulted)))
    return {p for p in a.keys() | b.keys() if a.get(p) != b.get(p)}, b


# -- candidate frames --------------------------------------------------------------------


def test_counts(proposals, screened, valid) -> None:
    # 1,102 ordinary frames (one per task × ordered item) and 84 target-value controls
    # (items whose option the gold plan changes).
    assert len(proposals) == 1186
    assert sum(isinstance(o, FaultContract) and o.control for o in proposals) == 84
    assert len(screened) == 1186
    assert len(valid) == 208 + 84
    checks = Counter(o.check for o in screened if isinstance(o, Rejection))
    assert checks == {"task_relevance": 894}


def test_candidate_ids_unique_and_sorted_per_task(proposals) -> None:
    ids = [_id(o) for o in proposals]
    assert len(ids) == len(set(ids))
    tasks = [k for k, _ in itertools.groupby(o.task_id for o in proposals)]
    assert len(tasks) == len(set(tasks))
    for task_id, group in itertools.groupby(proposals, key=lambda o: o.task_id):
        group_ids = [_id(o) for o in group]
        assert group_ids == sorted(group_ids), task_id


def test_proposals_and_screen_are_stable(proposals, screened) -> None:
    assert list(get_operator(NAME).propose(ProposalContext(domain="retail", seed=0))) == proposals
    assert list(screen(get_operator(NAME))) == screened
    assert [_id(o) for o in screened] == [_id(o) for o in proposals]


def test_every_rejection_has_check_and_reason(screened) -> None:
    rejections = [o for o in screened if isinstance(o, Rejection)]
    assert rejections
    for r in rejections:
        assert r.operator == NAME
        assert r.check.strip() and r.reason.strip()


def test_contract_depends_only_on_seed_and_candidate_id(
    proposals, monkeypatch: pytest.MonkeyPatch
) -> None:
    seed1 = list(get_operator(NAME).propose(ProposalContext(domain="retail", seed=1)))
    assert [_id(o) for o in seed1] == [_id(o) for o in proposals]
    changed = 0
    for a, b in zip(proposals, seed1, strict=True):
        if isinstance(a, Rejection):
            assert a == b
            continue
        assert isinstance(b, FaultContract)
        assert a.target.entity_id == b.target.entity_id
        assert a.refutation.params["item_id"] == b.refutation.params["item_id"]
        changed += (a.refutation.params["option"], a.injected_value) != (
            b.refutation.params["option"],
            b.injected_value,
        )
    assert changed > 0, "seed 1 changes some seeded choices"

    # the only randomness is the generator seeded by (seed, the candidate's own id)
    keys: list[str] = []
    original = ProposalContext.rng_for

    def recording(self: ProposalContext, candidate_id: str) -> random.Random:
        keys.append(candidate_id)
        return original(self, candidate_id)

    monkeypatch.setattr(ProposalContext, "rng_for", recording)
    monkeypatch.setattr(random, "random", lambda: pytest.fail("unseeded randomness"))
    monkeypatch.setattr(random, "choice", lambda *_: pytest.fail("unseeded randomness"))
    again = list(get_operator(NAME).propose(ProposalContext(domain="retail", seed=0)))
    assert again == proposals
    assert len(keys) == len(set(keys)), "one generator per candidate"
    assert set(keys) <= {_id(o) for o in proposals}
    assert {o.contract_id for o in proposals if isinstance(o, FaultContract)} <= set(keys)


# -- the contracts -----------------------------------------------------------------------


def test_injected_value_is_another_value_of_the_same_product(valid) -> None:
    db = load_domain("retail").base_db
    for c in valid:
        p = c.refutation.params
        product = db.products[p["product_id"]]
        offered = {v.options.get(p["option"]) for v in product.variants.values()}
        assert c.injected_value in offered
        assert c.injected_value != c.authoritative_value
        assert product.variants[p["item_id"]].options[p["option"]] == c.authoritative_value
        order = db.orders[p["order_id"]]
        index = int(c.target.paths[0].split(".")[1])
        assert order.items[index].item_id == p["item_id"]
        assert c.target.paths == (f"items.{index}.options.{p['option']}",)
        assert c.refutation.relation == "product_variant_binding"
        assert c.refutation.acquisition == "cross_record"


def test_intervention_rewrites_exactly_the_option(valid) -> None:
    for c in valid:
        spec = c.interventions[0]
        clean, _, _ = _run("retail", spec.tool, spec.match)
        intervention = ContractIntervention(c)
        faulted, env, before = _run("retail", spec.tool, spec.match, intervention)
        diff, got = _diff(clean.content, faulted.content)
        [path] = c.target.paths
        assert diff == {path}, c.contract_id
        assert got[path] == c.injected_value
        edited = json.loads(clean.content)
        set_path(edited, path, c.injected_value)
        assert faulted.content == json.dumps(edited)
        assert env.state_hash() == before
        assert [d.effective for d in intervention.deliveries] == [True]


def test_aligned_variant_also_rewrites_the_product_record(valid) -> None:
    for c in valid[:40]:
        aligned = vary(c, "aligned")
        assert aligned.contract_id == f"{c.contract_id}+aligned"
        assert aligned.variant == {"aligned": True}
        assert vary(aligned, "aligned") == aligned
        assert aligned.interventions[0] == c.interventions[0]
        extra = aligned.interventions[-1]
        assert isinstance(extra, ObservationRewrite) and extra.role == "alignment"
        p = c.refutation.params
        args = {"product_id": p["product_id"]}
        clean, _, _ = _run("retail", "get_product_details", args)
        intervention = ContractIntervention(aligned)
        faulted, env, before = _run("retail", "get_product_details", args, intervention)
        diff, got = _diff(clean.content, faulted.content)
        path = f"variants.{p['item_id']}.options.{p['option']}"
        assert diff == {path}
        assert got[path] == c.injected_value
        assert env.state_hash() == before
        [delivery] = intervention.deliveries
        assert delivery.role == "alignment" and delivery.effective
        # the order is still faulted the same way under the aligned variant
        spec = c.interventions[0]
        plain, _, _ = _run("retail", spec.tool, spec.match, ContractIntervention(c))
        both, _, _ = _run("retail", spec.tool, spec.match, ContractIntervention(aligned))
        assert both.content == plain.content


def test_first_delivery_persistence(valid) -> None:
    c = valid[0].model_copy(update={"persistence": "first_delivery"})
    spec = c.interventions[0]
    clean, _, _ = _run("retail", spec.tool, spec.match)
    env = EpisodeEnvironment.open("retail", intervention=ContractIntervention(c))
    first = env.execute(ToolCall(id="a", name=spec.tool, arguments=dict(spec.match)), 0)
    second = env.execute(ToolCall(id="b", name=spec.tool, arguments=dict(spec.match)), 2)
    assert first.content != clean.content
    assert second.content == clean.content
