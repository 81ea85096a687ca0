"""The reconstruction-accuracy corpus: consistency of the items, and the accuracy floor.

The floor is the acceptance target of the measurement on real agent language (adoption
agreement ≥ 97 % with precision ≥ 98 %, ``T_S`` exact ≥ 90 %, ``Z_S`` agreement ≥ 95 %,
undecidable ≤ 5 %); a change to detection that falls below it fails here.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from sscbench.accuracy.counterfactual import propose
from sscbench.accuracy.items import CorpusItem, read_items
from sscbench.accuracy.score import Scores, score_items
from sscbench.records.events import AgentMessage, AgentToolCall
from sscbench.records.ledger import read_ledger

ROOT = Path(__file__).parents[1] / "fixtures" / "reconstruction_corpus"


@pytest.fixture(scope="module")
def items() -> list[CorpusItem]:
    return read_items(ROOT / "items.jsonl")


@pytest.fixture(scope="module")
def scores(items: list[CorpusItem]) -> Scores:
    return score_items(items, ROOT / "runs")


def test_every_item_is_labelled_twice_with_a_reference(items: list[CorpusItem]) -> None:
    assert len(items) >= 200
    assert {i.operator for i in items} == {
        "item_option",
        "pay_source",
        "return_date",
        "write_effect",
    }
    for item in items:
        assert set(item.passes) == {"A", "B"} and item.reference is not None
        answers = {(p.t_s, p.t_u, p.adopted) for p in item.passes.values()}
        assert len(answers) == 1 or item.resolution, item.item_id


def test_reference_steps_are_agent_events_after_the_fault(items: list[CorpusItem]) -> None:
    for item in items:
        ledger = read_ledger(ROOT / "runs" / item.run_id / "ledger.jsonl")
        assert item.reference is not None
        for step in (item.reference.t_s, item.reference.t_u):
            if isinstance(step, int):
                event = ledger.events[step]
                assert step > item.t_f, item.item_id
                assert isinstance(event, AgentMessage | AgentToolCall), item.item_id
        if item.reference.adopted is True:
            assert isinstance(item.reference.t_u, int)


def test_items_are_what_the_counterfactual_builder_proposes(items: list[CorpusItem]) -> None:
    by_run: dict[str, dict[str, object]] = {}
    for item in items:
        if item.run_id not in by_run:
            ledger = read_ledger(ROOT / "runs" / item.run_id / "ledger.jsonl")
            by_run[item.run_id] = {p.item_id: p for p in propose(ledger)}
        proposed = by_run[item.run_id][item.item_id]
        assert proposed.contract == item.contract  # type: ignore[attr-defined]
        assert proposed.t_f == item.t_f  # type: ignore[attr-defined]


def test_accuracy_on_real_language_meets_the_floor(scores: Scores) -> None:
    r = scores.overall.ratios()
    assert r["adoption_agreement"] is not None and r["adoption_agreement"] >= 0.97
    assert r["adoption_precision"] is not None and r["adoption_precision"] >= 0.98
    assert r["t_s_exact"] is not None and r["t_s_exact"] >= 0.90
    assert r["z_s_agreement"] is not None and r["z_s_agreement"] >= 0.95
    assert r["undecidable_rate"] is not None and r["undecidable_rate"] <= 0.05
