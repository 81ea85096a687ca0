"""``json_text.loads`` is ``json.loads``: the same value or the same kind of refusal, under
any integer digit limit the process sets."""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic_core import from_json

from sscbench.fault_contracts.history import _parse
from sscbench.records.json_text import READER_INT_DIGITS, loads


@pytest.fixture
def digit_limit() -> Iterator[Any]:
    """Set Python's integer digit limit for one test; restored after it."""
    before = sys.get_int_max_str_digits()
    yield sys.set_int_max_str_digits
    sys.set_int_max_str_digits(before)


def _outcome(read: Any, text: str) -> tuple[str, str]:
    try:
        value = read(text)
    except RecursionError:
        return ("refused", "RecursionError")
    except ValueError:
        return ("refused", "ValueError")
    if isinstance(value, float) and math.isnan(value):
        return ("read", "nan")
    return ("read", repr(value))


PIECES = [" ", "\t", "\n", "\ufeff", "\x0c", "{", "}", "[", "]", '"', ":", ",", "-", "0",
          "7", "1.5", "e3", "e400", "null", "true", "NaN", "-Infinity", "\\ud800", "\\",
          '"k":', "é", "9" * 700, "[" * 40]  # fmt: skip


@settings(max_examples=2000, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=8).map("".join))
def test_loads_is_json_loads(text: str) -> None:
    assert _outcome(loads, text) == _outcome(json.loads, text)


@pytest.mark.parametrize("limit", [0, 640, 4300, 5000])
@pytest.mark.parametrize("digits", [639, 700, 4300, 4301, 5000])
def test_long_integers_under_any_digit_limit(limit: int, digits: int, digit_limit: Any) -> None:
    digit_limit(limit)
    for text in (f'{{"n": {"7" * digits}}}', f"[-{'1' * digits}]"):
        assert _outcome(loads, text) == _outcome(json.loads, text)


def test_a_lowered_limit_is_obeyed_where_pydantic_would_not(digit_limit: Any) -> None:
    digit_limit(640)
    text = '{"n": ' + "7" * 700 + "}"
    assert isinstance(from_json(text)["n"], int)  # what a guardless reader would return
    with pytest.raises(ValueError, match="integer string conversion"):
        loads(text)


def test_the_readers_own_cap_is_the_installed_pydantics() -> None:
    from_json("9" * READER_INT_DIGITS)
    with pytest.raises(ValueError):
        from_json("9" * (READER_INT_DIGITS + 1))


def test_an_observation_json_loads_refuses_is_text_not_a_failure(digit_limit: Any) -> None:
    digit_limit(4300)
    huge = '{"balance": ' + "9" * 5000 + "}"
    deep = "[" * 100_000 + "]" * 100_000
    assert _parse(huge) == (huge, False)
    assert _parse(deep) == (deep, False)
    assert _parse('{"balance": 12}') == ({"balance": 12}, True)
