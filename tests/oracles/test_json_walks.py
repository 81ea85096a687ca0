"""The oracles' walks over parsed JSON against their definitions (generators per level).

``leaves`` and ``records`` fill one container by plain recursion; these tests pin that the
result is what the recursive definitions yield — same items, same order, a repeated path
keeping its later value — on arbitrary JSON."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from sscbench.oracles.anomaly import leaves
from sscbench.oracles.invariants import record_kind, records


def leaves_definition(value: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    if isinstance(value, dict):
        for key, child in value.items():
            yield from leaves_definition(child, f"{path}/{key}")
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield from leaves_definition(child, f"{path}/{index}")
    else:
        yield path, value


def records_definition(value: Any) -> Iterator[tuple[str, dict[str, Any]]]:
    kind = record_kind(value)
    if kind is not None:
        yield kind, value
    if isinstance(value, dict):
        for child in value.values():
            yield from records_definition(child)
    elif isinstance(value, list):
        for child in value:
            yield from records_definition(child)


KEYS = st.sampled_from(
    ["a", "b", "a/b", "0", "reservation_id", "order_id", "flights", "items", "payment_methods"]
)
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=3),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(KEYS, children, max_size=5),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(JSON)
def test_leaves_and_records_are_their_definitions(value: Any) -> None:
    expected = list(leaves_definition(value))
    got = leaves(value)
    assert got == dict(expected)
    assert list(got) == list(dict(expected))  # document order, a repeated path in place
    assert [(k, id(r)) for k, r in records(value)] == [
        (k, id(r)) for k, r in records_definition(value)
    ]


def test_a_path_met_twice_keeps_its_later_value() -> None:
    assert leaves({"a/b": 1, "a": {"b": 2}}) == {"/a/b": 2}
    assert leaves({"a": {"b": 2}, "a/b": 1}) == {"/a/b": 1}


def test_records_nested_in_records_come_outer_first() -> None:
    inner = {"reservation_id": "R2", "flights": []}
    outer = {"order_id": "O1", "items": [inner]}
    assert [k for k, _ in records([outer])] == ["order", "reservation"]
