"""The rules' direct walks over delivered records equal the definitions they replace.

Both walks run on every record of every run, so they skip building what the definition
builds (every dict in a list, every leaf's dotted path); the definitions stay here.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from sscbench.json_paths import flatten
from sscbench.reconstruct.rules.base import _key_values_into
from sscbench.reconstruct.rules.return_date import _flight_numbers_into

KEYS = st.sampled_from(["flight_number", "a.flight_number", "flight_number.x", "order_id", "x"])
SCALARS = st.none() | st.booleans() | st.integers() | st.text(max_size=4)
JSON = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=4),
    max_leaves=30,
)


def _dicts(data: Any) -> list[dict[str, Any]]:
    """Every dict in ``data``, each before the ones inside it (the definition)."""
    if isinstance(data, dict):
        return [data, *(d for v in data.values() for d in _dicts(v))]
    if isinstance(data, list):
        return [d for v in data for d in _dicts(v)]
    return []


@settings(max_examples=300, deadline=None)
@given(JSON, st.sampled_from(["order_id", "flight_number", "x"]))
def test_key_values_are_every_dicts_string_value_in_order(data: Any, key: str) -> None:
    out: list[str] = []
    _key_values_into(data, key, out)
    assert out == [v for d in _dicts(data) if isinstance(v := d.get(key), str)]


@settings(max_examples=300, deadline=None)
@given(JSON)
def test_flight_numbers_are_the_leaves_whose_path_ends_in_flight_number(data: Any) -> None:
    out: set[str] = set()
    _flight_numbers_into(data, out)
    expected = {str(v) for path, v in flatten(data) if path.rsplit(".", 1)[-1] == "flight_number"}
    assert out == expected


def test_a_nested_record_reports_ids_parent_first() -> None:
    record = {"items": [{"order_id": "#B", "sub": {"order_id": "#C"}}], "order_id": "#A"}
    out: list[str] = []
    _key_values_into(record, "order_id", out)
    assert out == ["#A", "#B", "#C"]
