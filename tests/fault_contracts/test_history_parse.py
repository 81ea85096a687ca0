"""An observation's content parsed as ``json.loads`` parses it (or kept as text when it
refuses), whichever way :func:`_parse` gets there."""

from __future__ import annotations

import json
import math
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from sscbench.fault_contracts.history import History, SharedParses, _parse
from sscbench.records.events import AgentToolCall, ToolObservation


def _defined(content: str) -> tuple[Any, bool]:
    try:
        return json.loads(content), True
    except (ValueError, RecursionError):  # whatever json.loads refuses is text
        return content, False


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a):
        return math.isnan(b)
    return type(a) is type(b) and a == b


PIECES = [" ", "\t", "\n", "\r", "\ufeff", "\u00a0", "\x0c", "{", "}", "[", "]", '"', ":",
          ",", "-", "0", "7", "1.5", "e3", "null", "true", "false", "NaN", "Infinity", "n",
          "t", "f", "N", "I", "²", "٣", "a", "ok", "Error: ", "\\ud800", "\\"]  # fmt: skip


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=8).map("".join))
def test_parse_is_json_loads_or_the_text(content: str) -> None:
    data, parsed = _parse(content)
    want, want_parsed = _defined(content)
    assert parsed == want_parsed
    assert _same(data, want)


def test_plain_text_and_json_after_whitespace() -> None:
    assert _parse("Error: no such order") == ("Error: no such order", False)
    assert _parse(' \n{"a": 1}') == ({"a": 1}, True)
    assert _parse("") == ("", False)
    assert _parse("  -1") == (-1, True)


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=8).map("".join))
def test_shared_parses_parse_as_parse_does(content: str) -> None:
    shared = SharedParses(limit=2)
    for _ in range(2):  # a miss, then a hit
        data, parsed = shared(content)
        want, want_parsed = _parse(content)
        assert parsed == want_parsed
        assert _same(data, want)


def test_shared_parses_keep_the_latest_texts() -> None:
    shared = SharedParses(limit=2)
    first = shared('{"a": [1]}')[0]
    assert shared('{"a": [1]}')[0] is first  # kept: parsed once
    shared('{"b": 2}')
    shared('{"c": 3}')  # the third text drops the oldest
    again = shared('{"a": [1]}')[0]
    assert again == first and again is not first


def test_a_history_reads_through_its_parse() -> None:
    call = AgentToolCall(step=0, turn=0, call_id="c", name="get", arguments={})
    seen = ToolObservation(step=1, turn=0, call_id="c", content='{"x": 1}', error=False)
    shared = SharedParses()
    one, two = History([call, seen], shared), History([call, seen], shared)
    assert one.delivered[0].data == {"x": 1} and one.delivered[0].parsed
    assert two.delivered[0].data is one.delivered[0].data
    assert History([call, seen]).delivered[0].data is not one.delivered[0].data
