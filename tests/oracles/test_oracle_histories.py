"""The offline oracles read a run's observations through one bounded parse memo: the runs
of a task see the same texts, and every oracle reads every run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sscbench.oracles.base import PARSES, Trajectory, history_of
from sscbench.records.events import AgentToolCall, ToolObservation


class _Ledger:
    def __init__(self, events: list[Any]) -> None:
        self.events = tuple(events)


def _trajectory(item: str, content: str) -> Trajectory:
    call = AgentToolCall(step=0, turn=0, call_id="c", name="get_order_details", arguments={})
    seen = ToolObservation(step=1, turn=1, call_id="c", content=content, error=False)
    return Trajectory(
        item_id=item,
        run_dir=Path(item),
        ledger=_Ledger([call, seen]),  # type: ignore[arg-type]
        contract=None,  # type: ignore[arg-type]
        clean=False,
    )


def test_two_runs_with_the_same_observation_share_its_parse() -> None:
    text = '{"order_id": "#W1", "items": [{"item_id": "1"}]}'
    one = history_of(_trajectory("a", text)).delivered[0]
    two = history_of(_trajectory("b", text)).delivered[0]
    assert one.parsed and one.data == {"order_id": "#W1", "items": [{"item_id": "1"}]}
    assert two.data is one.data  # parsed once, read by both
    assert PARSES(text)[0] is one.data


def test_a_text_that_is_not_json_stays_text() -> None:
    got = history_of(_trajectory("c", "Error: order not found")).delivered[0]
    assert (got.data, got.parsed) == ("Error: order not found", False)


def test_two_runs_with_the_same_observation_share_its_walks() -> None:
    """Each walk runs once per text while it is among the latest: the second run gets
    the first run's result, equal to a fresh walk; another walk of the same text, or the
    same walk of another text, is its own."""
    from sscbench.oracles.anomaly import leaves
    from sscbench.oracles.base import walked
    from sscbench.oracles.invariants import records

    text = '{"order_id": "#W2", "items": [{"item_id": "7"}], "status": "pending"}'
    one = history_of(_trajectory("d", text)).delivered[0]
    two = history_of(_trajectory("e", text)).delivered[0]
    first = walked(leaves, one)
    assert first == leaves(one.data) and first["/status"] == "pending"
    assert walked(leaves, two) is first
    found = walked(records, two)
    assert found == records(two.data) and found[0][0] == "order"
    other = history_of(_trajectory("f", text.replace("pending", "delivered"))).delivered[0]
    assert walked(leaves, other)["/status"] == "delivered"
