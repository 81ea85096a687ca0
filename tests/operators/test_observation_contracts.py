"""Expiry and Transport: screening, the runtime at the window's edges, the refutation
relations on hand-made histories, what the grader compares, and the scripted reference
behaviours' expected labels on shipped cases."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from sscbench.agents.registry import make_agent
from sscbench.cases.caseset import Case, load_case_set
from sscbench.envs import CallContext, EpisodeEnvironment, Observation, ToolCall, load_domain
from sscbench.fault_contracts.artifacts import ArtifactRuntime, issues
from sscbench.fault_contracts.contract import ArtifactTTL, FaultContract, ObservationRewrite
from sscbench.fault_contracts.history import History
from sscbench.fault_contracts.injection import ContractIntervention
from sscbench.fault_contracts.perturbations import digest
from sscbench.fault_contracts.refutation import refutation_arrival
from sscbench.json_paths import flatten
from sscbench.operators import ProposalContext, Rejection, get_operator
from sscbench.operators.task_reach import task_reach
from sscbench.operators.validity import check_validity
from sscbench.reconstruct.label import label_run
from sscbench.records.events import AgentToolCall, ToolObservation, VisibleEvent
from sscbench.runs.episode import EpisodeSpec, run_episode
from sscbench.users import make_user


def _proposed(name: str) -> list[FaultContract | Rejection]:
    op = get_operator(name)
    return [o for d in op.domains for o in op.propose(ProposalContext(domain=d))]


def _cases(operator: str) -> list[Case]:
    return load_case_set(None).by_operator(operator)


def _history(*pairs: tuple[str, dict[str, Any], Any, bool]) -> History:
    events: list[VisibleEvent] = []
    for i, (name, args, content, error) in enumerate(pairs):
        text = content if isinstance(content, str) else json.dumps(content)
        events.append(
            AgentToolCall(step=len(events), turn=2 * i, call_id=f"c{i}", name=name, arguments=args)
        )
        events.append(
            ToolObservation(
                step=len(events), turn=2 * i + 1, call_id=f"c{i}", content=text, error=error
            )
        )
    return History(events)


# --- Expiry --------------------------------------------------------------------------


def _spec(contract: FaultContract) -> ArtifactTTL:
    spec = contract.interventions[0]
    assert isinstance(spec, ArtifactTTL)
    return spec


def test_expiry_screens_both_domains_with_valid_contracts_and_stable_ids() -> None:
    proposed = _proposed("expiry")
    contracts = [o for o in proposed if isinstance(o, FaultContract)]
    ids = [c.contract_id for c in contracts]
    assert len(ids) == len(set(ids)) > 100
    assert {c.domain for c in contracts} == {"airline", "retail"}
    for c in contracts[:20]:
        assert check_validity(c) is None
        assert c.refutation.relation == "artifact_expiry" and c.semantics
    assert [c.contract_id for c in _proposed("expiry") if isinstance(c, FaultContract)] == ids


def _gate(ttl: float, now_at_write: float) -> tuple[bool, str]:
    contract = _cases("expiry")[0].contract
    spec = _spec(contract).model_copy(update={"ttl_seconds": ttl})
    runtime = ArtifactRuntime(spec, contract.contract_id)
    env = EpisodeEnvironment.open(contract.domain)
    read = ToolCall(id="r", name=spec.tool, arguments=dict(spec.match))

    def ctx(step: int, now: float) -> CallContext:
        return CallContext(contract.domain, "read", step, step, env.state, now=now)

    issued = runtime.rewrite(read, env.execute(read, 1), ctx(1, 100.0), lambda *a: None)
    assert issued is not None and json.loads(issued.content)["quote"]["ttl_seconds"] == ttl
    write = ToolCall(id="w", name=spec.gate_tool, arguments=dict(spec.gate_match))
    rejected = runtime.decide(write, ctx(3, now_at_write))
    answer = runtime.rewrite(
        write, Observation(call_id="w", content="{}"), ctx(3, now_at_write), lambda *a: None
    )
    return rejected, "" if answer is None else answer.content


@pytest.mark.parametrize(
    ("now", "rejected"), [(100.0, False), (129.999, False), (130.0, True), (131.0, True)]
)
def test_the_gate_rejects_from_exactly_issue_plus_ttl(now: float, rejected: bool) -> None:
    """Half-open window: a write received at t_issue + τ is already too late."""
    was_rejected, answer = _gate(30.0, now)
    assert was_rejected is rejected
    assert ("expired at 2024-05-15T15:02:10" in answer) is rejected


def test_artifact_expiry_finds_the_first_server_time_at_or_past_expiry() -> None:
    contract = _cases("expiry")[0].contract
    spec = _spec(contract)

    def envelope(issued: float, server: float) -> dict[str, Any]:
        from sscbench.envs.clock import iso

        return {
            "quote": {
                "quote_id": "Q-1",
                "issued_at": iso(spec.clock, issued),
                "ttl_seconds": 30.0,
                "expires_at": iso(spec.clock, issued + 30),
                "server_time": iso(spec.clock, server),
            }
        }

    read = (spec.tool, dict(spec.match))
    at_edge = _history((*read, envelope(100, 100), False), (*read, envelope(130, 130), False))
    arrival = refutation_arrival(contract, at_edge)
    assert arrival.status == "found" and arrival.step == 3 and arrival.evidence == (1, 3)
    early = _history((*read, envelope(100, 100), False), (*read, envelope(129, 129), False))
    assert refutation_arrival(contract, early).status == "never"
    assert [i.step for i in issues(spec, early)] == [1, 3]
    assert refutation_arrival(contract, History(())).status == "never"


def test_every_shipped_expiry_witness_refutes_at_the_expiry_instant_or_later() -> None:
    for case in _cases("expiry"):
        assert case.witness.t_e < case.witness.t_s
        assert "at or past the expiry" in case.witness.search.reason


# --- Transport -----------------------------------------------------------------------


def test_transport_screens_four_kinds_on_tau2_and_rejects_query_reordering() -> None:
    proposed = _proposed("transport")
    contracts = [o for o in proposed if isinstance(o, FaultContract)]
    kinds = Counter(c.refutation.params["kind"] for c in contracts)
    assert set(kinds) == {"truncation", "newline", "url_reencode", "display_text"}
    rejected = Counter(o.cluster for o in proposed if isinstance(o, Rejection))
    assert set(rejected) == {"query_reorder"}
    shipped = Counter(c.contract.refutation.params["kind"] for c in _cases("transport"))
    assert set(shipped) == set(kinds)


def test_a_perturbation_never_touches_a_graded_value_the_relation_does_not_account_for() -> None:
    """Every damaged value is an identifier the gold actions (what the grader replays and
    compares) use; the contract names it as issued, with its SHA-256, the rewrite touches
    only an observation, and the relation finds the intact identifier once it is delivered."""
    contracts = [o for o in _proposed("transport") if isinstance(o, FaultContract)]
    for c in contracts:
        true = c.refutation.params["authoritative"]
        gold = {
            str(v) for _, args in task_reach(c.domain, c.task_id).gold for _, v in flatten(args)
        }
        assert true == c.authoritative_value and true in gold
        assert c.refutation.params["sha256"] == digest(true) != digest(c.injected_value)
        (spec,) = c.interventions
        assert isinstance(spec, ObservationRewrite) and spec.expect == {spec.edits[0].path: true}
        intact = _history(("get_order_details", {}, {"order_id": true}, False))
        assert refutation_arrival(c, intact).status == "found"
        damaged = _history(("get_user_details", {}, {"orders": [c.injected_value]}, False))
        assert refutation_arrival(c, damaged).status == "never"
    for c in contracts[::40]:  # the generic checks: only the target path changes
        assert check_validity(c) is None


def test_a_transport_fault_leaves_the_state_the_grader_compares_untouched() -> None:
    for case in _cases("transport")[::5]:
        c = case.contract
        task = load_domain(c.domain).task(c.task_id)
        clean = EpisodeEnvironment.open(c.domain, task)
        faulted = EpisodeEnvironment.open(c.domain, task, ContractIntervention(c))
        (spec,) = c.interventions
        assert isinstance(spec, ObservationRewrite)
        read = ToolCall(id="u", name=spec.tool, arguments=dict(spec.match))
        shown = {v for _, v in flatten(json.loads(faulted.execute(read, 0).content))}
        assert c.injected_value in shown
        clean.execute(read, 0)
        for i, action in enumerate(task.evaluation_criteria.actions or []):
            call = ToolCall(id=f"g{i}", name=action.name, arguments=action.arguments)
            assert clean.execute(call, i + 1) == faulted.execute(call, i + 1)
        assert clean.state_hash() == faulted.state_hash()


# --- scripted reference behaviours ---------------------------------------------------


def _run(case: Case, agent: str, out: Path) -> dict[str, Any]:
    run_dir = out / agent.replace(":", ".")
    run_episode(
        EpisodeSpec(
            domain=case.contract.domain,
            task_id=case.contract.task_id,
            case_id=case.entry.case_id,
            fault=case.contract.model_dump(mode="json"),
        ),
        make_agent(agent),
        make_user("scripted"),
        run_dir,
        run_id=run_dir.name,
        intervention=ContractIntervention(case.contract),
    )
    label = label_run(run_dir)
    return {
        "triggered": label.triggered,
        "adopted": label.adopted,
        "z_s": label.z_s,
        "success": label.success,
        "primary": (label.contract_label or {}).get("primary"),
    }


EXPIRY_CASE = "expiry/airline/7/2"
EXPECTED_EXPIRY = {
    # uses the quote at once: fetched right before the write, valid when it lands
    "scripted:prompt": {"adopted": False, "success": True, "primary": "SUCCESS"},
    # re-fetches when the quote will have expired: the re-read shows the expiry first
    "scripted:refetch": {"adopted": False, "z_s": "before", "success": True, "primary": "SUCCESS"},
    # confirms with the user between read and write, never re-reads
    "scripted:hasty": {"adopted": True, "z_s": "after", "primary": "EXPIRED_BEFORE_USE"},
}
TRANSPORT_CASE_KINDS = ("url_reencode", "newline", "truncation", "display_text")
EXPECTED_TRANSPORT = {
    # copies ids byte for byte from an intact rendering
    "scripted:verbatim": {"adopted": False, "z_s": "before", "success": True, "primary": "SUCCESS"},
    # trusts what the record displays (a later success never offsets the violation)
    "scripted:display": {"adopted": True, "primary": "MUTATED_TOKEN"},
}


@pytest.mark.parametrize("agent", sorted(EXPECTED_EXPIRY))
def test_expiry_behaviours_give_their_expected_labels(agent: str, tmp_path: Path) -> None:
    case = next(c for c in _cases("expiry") if c.entry.case_id == EXPIRY_CASE)
    got = _run(case, agent, tmp_path)
    assert got["triggered"] is True
    assert {k: got[k] for k in EXPECTED_EXPIRY[agent]} == EXPECTED_EXPIRY[agent]


@pytest.mark.parametrize("kind", TRANSPORT_CASE_KINDS)
@pytest.mark.parametrize("agent", sorted(EXPECTED_TRANSPORT))
def test_transport_behaviours_give_their_expected_labels(
    agent: str, kind: str, tmp_path: Path
) -> None:
    case = next(
        c
        for c in _cases("transport")
        if c.contract.refutation.params["kind"] == kind
        and _run(c, "scripted:verbatim", tmp_path / "probe" / c.entry.case_id.replace("/", "_"))[
            "triggered"
        ]
    )
    got = _run(case, agent, tmp_path)
    assert got["triggered"] is True
    assert {k: got[k] for k in EXPECTED_TRANSPORT[agent]} == EXPECTED_TRANSPORT[agent]
