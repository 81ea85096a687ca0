"""Fact models shared between record arrivals of equal inputs label runs exactly as models
rebuilt at every arrival (``UseRules.inputs``): same uses, same labels, byte for byte."""

from __future__ import annotations

from pathlib import Path

import pytest

from sscbench.agents.registry import make_agent
from sscbench.cases.caseset import load_case_set
from sscbench.fault_contracts.history import History
from sscbench.fault_contracts.injection import ContractIntervention
from sscbench.fault_contracts.io import ledger_contract
from sscbench.reconstruct.detector import FactModel
from sscbench.reconstruct.label import label_run, rules_for
from sscbench.reconstruct.rules import base
from sscbench.reconstruct.rules.base import (
    GenericRules,
    RunView,
    UseRules,
    _key_values_into,
    _names_inputs,
)
from sscbench.reconstruct.rules.item_option import ITEM_TOOLS
from sscbench.reconstruct.rules.return_date import (
    FLIGHTS_BY_TEXT,
    _flight_numbers_into,
    _record_flight_numbers,
)
from sscbench.reconstruct.segment import segment
from sscbench.records.events import AgentMessage, AgentToolCall
from sscbench.records.ledger import read_ledger
from sscbench.runs.episode import LEDGER_FILE, EpisodeSpec, run_episode
from sscbench.runs.layout import run_id_for
from sscbench.users import make_user

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
AGENTS = ("scripted:gold", "scripted:careful", "scripted:hasty", "scripted:eager")
SHARING = ("item_option", "device_reading", "ignored_argument", "line_usage", "partial_effect",
           "reset_leak", "unenforced_precondition", "invariant_break", "write_effect")  # fmt: skip
"""Operators whose rule sets name their models' inputs (ItemOption's, WriteEffect's, the
generic family)."""
LATE_COMPETITORS = ("ignored_argument/retail/101/0/zip", "partial_effect/airline/14/0/refund")
"""Cases whose scripted runs read a competing entity after the fault: their models change."""


@pytest.fixture(scope="module")
def sharing_runs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Scripted runs of three cases of every operator whose models are shared."""
    out = tmp_path_factory.mktemp("model_inputs")
    by_operator: dict[str, list[object]] = {}
    late = []
    for case in load_case_set().cases:
        by_operator.setdefault(case.contract.operator, []).append(case.contract)
        if case.entry.case_id in LATE_COMPETITORS:
            late.append(case.contract)
    runs = []
    for operator in SHARING:
        for contract in by_operator[operator][:3] + (late if operator == SHARING[0] else []):
            for agent in AGENTS:
                spec = EpisodeSpec(
                    domain=contract.domain,  # type: ignore[attr-defined]
                    task_id=contract.task_id,  # type: ignore[attr-defined]
                    seed=0,
                    case_id=contract.contract_id,  # type: ignore[attr-defined]
                    variants=dict(contract.variant),  # type: ignore[attr-defined]
                    fault=contract.model_dump(mode="json"),  # type: ignore[attr-defined]
                )
                run_id = run_id_for(spec.domain, spec.task_id, agent, 0, spec.case_id)
                run_episode(
                    spec,
                    make_agent(agent),
                    make_user("scripted"),
                    out / run_id,
                    run_id=run_id,
                    intervention=ContractIntervention(contract),  # type: ignore[arg-type]
                )
                runs.append(out / run_id)
    return runs


def _fixture_runs() -> list[Path]:
    """Every committed run directory with a fault: real-agent corpus, hand-written sets."""
    found = [p.parent for p in FIXTURES.glob("reconstruction_*/**/ledger.jsonl")]
    found += [p.parent for p in (FIXTURES / "reconstruct").glob("*/ledger.jsonl")]
    return sorted(found)


def _labels(runs: list[Path], share: bool, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    monkeypatch.setattr(UseRules, "share_models", share)
    return [label_run(run).model_dump_json() for run in runs]


def _seen(model: FactModel, texts: list[str]) -> tuple[object, ...]:
    """What a model makes of a run's agent texts: references, weak forms, each unit's
    value mentions and the entities holding each mentioned value."""
    index = model.index
    found: list[object] = []
    for text in texts:
        for unit in segment(text):
            mentions = model.find(unit)
            found.append((unit.text, [repr(vm) for vm in mentions]))
            found += [sorted(model.holders(vm.mention.value)) for vm in mentions]
    refs = sorted((k, sorted(v)) for k, v in index.lexicon.items())
    flags = (model.confirmed, model.effect, model.extra)
    return model.target, model.label, flags, refs, sorted(index.weak), index.shapes, found


def _holds_a_run(value: object, depth: int = 0) -> bool:
    """Does a shared model's function reach a run, its history or a rule set (through its
    closure, a model it wraps, or a bound method)?"""
    if isinstance(value, RunView | History | UseRules):
        return True
    if depth > 6:
        return False
    if isinstance(value, FactModel):
        return any(_holds_a_run(f, depth + 1) for f in (value.find, value.holders))
    if hasattr(value, "__self__"):
        return _holds_a_run(value.__self__, depth + 1)
    cells = getattr(value, "__closure__", None) or ()
    return any(_holds_a_run(cell.cell_contents, depth + 1) for cell in cells)


def _check_every_model(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Make ``model_at`` compare each model it hands out with one built afresh."""
    checked = [0]
    shared_model_at = UseRules.model_at

    def model_at(self: UseRules, view: RunView, step: int) -> FactModel:
        shared = shared_model_at(self, view, step)
        step = max(step, view.t_f + 1)
        if self.inputs(view, step) is None:
            return shared  # a rule set that shares nothing
        # A run's model is built at the first step asked with as many records delivered.
        first = view.notes.setdefault("test:first_step", {})
        assert isinstance(first, dict)
        built = first.setdefault(view.history.delivered_before(step), step)
        fresh = self.model(view, built)
        texts = [e.content for e in view.history.events if isinstance(e, AgentMessage)]
        assert _seen(shared, texts) == _seen(fresh, texts), (view.contract.contract_id, step)
        assert not _holds_a_run(shared), view.contract.contract_id
        checked[0] += 1
        return shared

    monkeypatch.setattr(UseRules, "model_at", model_at)
    return checked


@pytest.mark.parametrize("lazy_focus", [True, False])
def test_every_shared_model_is_the_model_built_afresh(
    sharing_runs: list[Path], monkeypatch: pytest.MonkeyPatch, lazy_focus: bool
) -> None:
    if not lazy_focus:  # the focus found before every message asks for more models
        monkeypatch.setattr(base, "_lazy_focus", lambda _rules: False)
    checked = _check_every_model(monkeypatch)
    for run in sharing_runs + _fixture_runs():
        label_run(run)
    assert checked[0] > (500 if lazy_focus else 1000)


def test_the_rule_sets_name_their_inputs() -> None:
    # A check that the sharing below is exercised at all: these rule sets answer inputs.
    for operator in SHARING:
        assert _names_inputs(type(rules_for(operator))), operator
    for operator in ("return_date", "pay_source", "expiry", "transport"):
        assert not _names_inputs(type(rules_for(operator))), operator


def test_a_subclass_that_rebuilds_the_model_shares_nothing() -> None:
    class Plugin(GenericRules):  # a plugin's model may read anything of the run
        def model(self, view: RunView, step: int) -> FactModel:
            return super().model(view, step)

    class Restated(Plugin):
        inputs = GenericRules.inputs

    assert not _names_inputs(Plugin)
    assert _names_inputs(Restated)


def test_shared_models_label_scripted_runs_alike(
    sharing_runs: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert len(sharing_runs) == (3 * len(SHARING) - 2 + len(LATE_COMPETITORS)) * len(AGENTS)
    assert _labels(sharing_runs, True, monkeypatch) == _labels(sharing_runs, False, monkeypatch)


def test_shared_models_label_real_agent_runs_alike(monkeypatch: pytest.MonkeyPatch) -> None:
    runs = _fixture_runs()
    assert len(runs) >= 300
    assert _labels(runs, True, monkeypatch) == _labels(runs, False, monkeypatch)


def test_item_option_inputs_change_with_the_items_successor(sharing_runs: list[Path]) -> None:
    # No run above asks for a model between an exchange of the item and the next arrival,
    # so the successors' part of the inputs is checked here, where the call is made.
    checked = 0
    for run in sharing_runs:
        ledger = read_ledger(run / LEDGER_FILE)
        contract = ledger_contract(ledger)
        if contract is None or contract.operator != "item_option":
            continue
        p = contract.refutation.params
        view = RunView(History(ledger.events), 0, contract)
        rules = rules_for("item_option")
        for event in ledger.events:
            if not isinstance(event, AgentToolCall) or event.name not in ITEM_TOOLS:
                continue
            if p["item_id"] in (event.arguments.get("item_ids") or []):
                before = rules.inputs(view, event.step)
                after = rules.inputs(view, event.step + 1)
                assert isinstance(before, tuple) and isinstance(after, tuple)
                assert before[2] == () and after[2] != (), run.name
                checked += 1
                break
    assert checked >= 3


def _others_defined(view: RunView, step: int) -> list[str]:
    """Competitor ids by their definition: every parsed record delivered before ``step``,
    walked afresh, ids other than the target's in first-seen order."""
    c = view.contract
    key = f"{c.target.entity_type}_id"
    out: dict[str, None] = {}
    for d in view.history.delivered:
        if d.step < step and d.parsed and not d.observation.error:
            found: list[str] = []
            _key_values_into(d.data, key, found)
            out.update((i, None) for i in found if i != c.target.entity_id)
    return list(out)


def test_competitors_found_so_far_equal_their_definition_in_any_order(
    sharing_runs: list[Path],
) -> None:
    # The generic rules keep a run's competitor ids and extend them as records arrive; asked
    # at every step, later steps first, then in order, they must be the definition's.
    checked = 0
    for run in sharing_runs + _fixture_runs():
        ledger = read_ledger(run / LEDGER_FILE)
        contract = ledger_contract(ledger)
        if contract is None:
            continue
        view = RunView(History(ledger.events), 0, contract)
        rules = GenericRules()
        steps = [e.step for e in ledger.events] + [len(ledger.events)]
        for step in steps[::-1][:3] + steps:
            assert list(rules._others(view, step)) == _others_defined(view, step), run.name
            checked += 1
    assert checked > 1000


def test_a_records_flight_numbers_are_found_once_per_text(sharing_runs: list[Path]) -> None:
    checked = 0
    for run in sharing_runs:
        for d in History(read_ledger(run / LEDGER_FILE).events).delivered:
            if d.parsed:
                walked: set[str] = set()
                _flight_numbers_into(d.data, walked)
                assert _record_flight_numbers(d) == walked
                assert _record_flight_numbers(d) is FLIGHTS_BY_TEXT[d.observation.content]
                checked += 1
    assert checked > 100
