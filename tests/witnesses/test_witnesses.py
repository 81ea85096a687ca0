"""Witness search, legality, verification and frozen case sets."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from sscbench.cases.build import build_case_set, natural_key, round_robin
from sscbench.cases.caseset import default_case_set_path, load_case_set
from sscbench.envs import load_domain
from sscbench.errors import ConfigError
from sscbench.fault_contracts.contract import Edit, FaultContract, ObservationRewrite
from sscbench.operators import get_operator
from sscbench.operators.base import ProposalContext
from sscbench.operators.screen import screen
from sscbench.records.events import AgentMessage, UserMessage
from sscbench.witnesses.context import build_context
from sscbench.witnesses.legality import is_legal
from sscbench.witnesses.record import SearchLimits, SearchStats, Witness
from sscbench.witnesses.search import search_witness
from sscbench.witnesses.verify import verify_witness


def _first_contract(operator: str) -> FaultContract:
    return next(c for c in screen(get_operator(operator)) if isinstance(c, FaultContract))


@pytest.mark.parametrize(
    ("operator", "depth", "calls"),
    [
        ("return_date", 0, []),
        ("pay_source", 0, []),
        ("item_option", 1, ["get_product_details"]),
        ("write_effect", 1, ["get_reservation_details"]),
    ],
)
def test_a_known_revealable_case_of_each_operator_has_a_witness(
    operator: str, depth: int, calls: list[str]
) -> None:
    contract = _first_contract(operator)
    witness = search_witness(contract)
    assert isinstance(witness, Witness), witness
    assert witness.search.depth == depth
    assert [c.name for c in witness.continuation] == calls
    assert witness.t_e < witness.t_s and witness.t_f < witness.t_s
    assert verify_witness(contract, witness) == []


def test_the_context_ends_at_the_fault_bearing_observation() -> None:
    contract = _first_contract("write_effect")
    ctx = build_context(contract)
    last = ctx.events[-1]
    assert last.kind == "tool_observation" and last.step == ctx.t_f
    call = ctx.events[-2]
    assert call.kind == "tool_call" and call.name == contract.target.logical_request["tool"]  # type: ignore[index]
    assert isinstance(ctx.events[0], AgentMessage) and isinstance(ctx.events[1], UserMessage)


def test_no_witness_when_the_refuting_record_cannot_be_reached() -> None:
    # The order record no longer shows the product id: get_product_details has no visible
    # argument that reaches the refuting variant.
    contract = _first_contract("item_option")
    spec = contract.interventions[0]
    assert isinstance(spec, ObservationRewrite)
    index = spec.edits[0].path.split(".")[1]
    hidden = FaultContract.model_validate(
        {
            **contract.model_dump(),
            "interventions": (
                spec.model_copy(
                    update={
                        "edits": (
                            *spec.edits,
                            Edit(path=f"items.{index}.product_id", value="0000000000"),
                        )
                    }
                ),
            ),
        }
    )
    result = search_witness(hidden)
    assert isinstance(result, SearchStats)
    assert result.stopped == "exhausted" and result.nodes > 1
    # depth 0 cannot reach it either, and says why it stopped
    shallow = search_witness(contract, SearchLimits(max_depth=0))
    assert isinstance(shallow, SearchStats) and shallow.stopped == "exhausted"


def test_a_continuation_with_an_argument_absent_from_the_visible_history_is_illegal() -> None:
    contract = _first_contract("item_option")
    ctx = build_context(contract)
    product_id = contract.refutation.params["product_id"]
    assert is_legal("retail", "get_product_details", {"product_id": product_id}, ctx.events) is None
    reason = is_legal("retail", "get_product_details", {"product_id": "9999999999"}, ctx.events)
    assert reason is not None and "does not appear in the visible history" in reason
    assert is_legal("retail", "exchange_delivered_order_items", {}, ctx.events) is not None


def test_verify_catches_a_tampered_witness() -> None:
    contract = _first_contract("write_effect")
    witness = search_witness(contract)
    assert isinstance(witness, Witness)
    forged_arg = witness.model_copy(
        update={
            "continuation": (
                witness.continuation[0].model_copy(
                    update={"arguments": {"reservation_id": "ZZZZZZ"}}
                ),
            )
        }
    )
    assert any("not legal" in p for p in verify_witness(contract, forged_arg))
    forged_step = witness.model_copy(update={"t_e": witness.t_s + 1})
    assert any("T_E re-derives" in p for p in verify_witness(contract, forged_step))
    forged_prefix = witness.model_copy(update={"prefix_hash": "0" * 64})
    assert any("does not rebuild" in p for p in verify_witness(contract, forged_prefix))


def test_sampling_order_is_natural_and_cycles_over_clusters() -> None:
    ids = ["op/airline/10/A", "op/airline/2/A", "op/airline/2/B", "op/airline/3/A"]
    assert sorted(ids, key=natural_key) == [
        "op/airline/2/A",
        "op/airline/2/B",
        "op/airline/3/A",
        "op/airline/10/A",
    ]
    items = [("a", 1), ("a", 2), ("b", 3), ("a", 4), ("c", 5)]
    assert round_robin(items, lambda x: x[0]) == [("a", 1), ("b", 3), ("c", 5), ("a", 2), ("a", 4)]


def test_a_target_value_control_injects_the_value_the_task_asks_for() -> None:
    from sscbench.operators.item_option import _requested_values
    from sscbench.operators.task_reach import task_reach

    op = get_operator("item_option")
    proposed = list(op.propose(ProposalContext(domain="retail", seed=0)))
    controls = [c for c in proposed if isinstance(c, FaultContract) and c.control]
    assert controls and all(c.contract_id.endswith("/target") for c in controls)
    product_db = load_domain("retail").base_db
    for control in controls[:20]:
        assert control.injected_value != control.authoritative_value
        params = control.refutation.params
        item = product_db.products[params["product_id"]]
        gold = task_reach("retail", control.task_id).gold
        requested = _requested_values(gold, control.target.entity_id, params["item_id"], item)
        assert control.injected_value in requested[params["option"]]
        assert op.relevance(control) == "direct"  # a gold write acts on the item
    # an ordinary candidate never injects a requested value
    ordinary = [c for c in proposed if isinstance(c, FaultContract) and not c.control]
    for contract in ordinary[:50]:
        params = contract.refutation.params
        item = product_db.products[params["product_id"]]
        gold = task_reach("retail", contract.task_id).gold
        requested = _requested_values(gold, contract.target.entity_id, params["item_id"], item)
        assert contract.injected_value not in requested.get(params["option"], set())
    witness = search_witness(controls[0])
    assert isinstance(witness, Witness)


def test_a_rebuilt_case_set_is_byte_identical_and_explains_every_candidate(tmp_path: Path) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    kwargs = {"per_operator": 3, "controls": 2}
    manifest = build_case_set(first, **kwargs)  # type: ignore[arg-type]
    build_case_set(second, **kwargs)  # type: ignore[arg-type]
    for path in sorted(first.rglob("*")):
        if path.is_file():
            assert path.read_bytes() == (second / path.relative_to(first)).read_bytes(), path
    # Controls take two of ItemOption's three places; other operators propose none.
    # InvariantBreak has one candidate in all.
    assert len(manifest.cases) == 12 * 3 + 1
    assert [c.case_id for c in manifest.cases if c.control] == [
        c.case_id for c in manifest.cases if c.case_id.endswith("/target")
    ]
    assert sum(c.control for c in manifest.cases) == 2
    log = [json.loads(line) for line in (first / "screening.jsonl").read_text().splitlines()]
    frames = sum(c["frames"] for c in manifest.counts.values())
    assert len(log) == frames  # every candidate once
    assert {e["fate"] for e in log} == {"included", "invalid", "not_reached", "control"}
    assert all(e["reason"] for e in log)
    with pytest.raises(ConfigError, match="not empty"):
        build_case_set(first, **kwargs)  # type: ignore[arg-type]


def test_the_shipped_case_set_verifies_and_matches_a_rebuild(tmp_path: Path) -> None:
    shipped = default_case_set_path()
    case_set = load_case_set(shipped)
    # 30 per operator, the 10 controls among ItemOption's; the missing-guard operators have
    # only the gold writes τ² refuses (3 and 1)
    assert len(case_set.cases) == 334
    assert sum(c.entry.control for c in case_set.cases) == 10
    operators = ("return_date", "pay_source", "item_option", "write_effect", "line_usage")
    operators += ("device_reading",)
    defects = ("partial_effect", "ignored_argument", "reset_leak")
    for operator in (*operators, "expiry", "transport", *defects):
        assert len(case_set.by_operator(operator)) == 30
    assert len(case_set.by_operator("unenforced_precondition")) == 3
    assert len(case_set.by_operator("invariant_break")) == 1
    assert all(c.entry.operator == "item_option" for c in case_set.cases if c.entry.control)
    relevance = {c.entry.relevance for c in case_set.by_operator("item_option")}
    assert relevance == {"direct", "indirect"}
    for case in case_set.cases:
        assert verify_witness(case.contract, case.witness) == [], case.entry.case_id
    rebuilt = tmp_path / "rebuilt"
    build_case_set(rebuilt)
    for path in sorted(shipped.rglob("*")):
        if path.is_file() and path.suffix in {".json", ".jsonl", ".yaml"}:
            assert path.read_bytes() == (rebuilt / path.relative_to(shipped)).read_bytes(), path


def test_loading_a_case_set_with_an_edited_file_fails(tmp_path: Path) -> None:
    copy = tmp_path / "cases"
    shutil.copytree(default_case_set_path(), copy)
    victim = next((copy / "cases").glob("*.witness.json"))
    victim.write_text(victim.read_text().replace('"t_e": ', '"t_e": 1'))
    with pytest.raises(ConfigError, match="does not match the manifest"):
        load_case_set(copy)
