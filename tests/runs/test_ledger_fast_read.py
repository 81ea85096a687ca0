"""The ledger reader's fast path (pydantic's JSON reader, line by line) gives exactly the
records the defining path (the standard library's ``json``, then validation) gives, on
every frozen ledger of every schema version and on the hand-built reconstruction sets; a
file it does not accept goes the defining way, with the same errors."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sscbench.errors import LedgerError
from sscbench.fault_contracts.history import _parse
from sscbench.records import ledger as ledger_mod
from sscbench.records.ledger import Ledger, read_ledger

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
LEDGERS = sorted(
    [
        p
        for p in (FIXTURES / "ledgers").rglob("*.jsonl")
        if p.name not in ("hidden.jsonl", "truth.jsonl")
    ]
    + [
        p
        for sub in ("reconstruct", "reconstruction_natural", "reconstruction_blind")
        for p in (FIXTURES / sub).rglob("ledger.jsonl")
    ]
)


def _defining(path: Path, monkeypatch: pytest.MonkeyPatch) -> Ledger:
    with monkeypatch.context() as m:
        m.setattr(ledger_mod, "_read_fast", lambda *_: None)
        return read_ledger(path)


def _typed(value: object) -> object:
    """A value with the type of every leaf, so that 1 and 1.0 (equal) count as different."""
    if isinstance(value, dict):
        return {k: _typed(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return (type(value).__name__, [_typed(v) for v in value])
    if hasattr(value, "__dict__") and hasattr(value, "model_fields_set"):
        return (type(value).__name__, _typed(dict(vars(value))), sorted(value.model_fields_set))
    return (type(value).__name__, value)


def test_there_are_frozen_ledgers_of_every_schema_version() -> None:
    versions = {p.parent.name for p in LEDGERS if p.parent.parent.name == "ledgers"}
    assert "golden" in {p.parts[-3] for p in LEDGERS}
    assert {"v1", "v2", "v3", "v4", "v5"} <= versions
    assert len(LEDGERS) > 50


@pytest.mark.parametrize("path", LEDGERS, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_fast_path_reads_what_the_defining_path_reads(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fast = ledger_mod._read_fast(path, path.read_bytes())
    assert fast is not None, "a well-formed ledger should take the fast path"
    slow = _defining(path, monkeypatch)
    assert fast.sha256 == slow.sha256
    assert _typed(fast.header) == _typed(slow.header)
    assert [_typed(e) for e in fast.events] == [_typed(e) for e in slow.events]
    assert _typed(fast.end) == _typed(slow.end)


def _golden() -> bytes:
    return next(p for p in LEDGERS if "golden" in p.parts).read_bytes()


@pytest.mark.parametrize(
    "mutate",
    [
        lambda lines: [*lines[:2], b"{not json", *lines[2:]],  # a corrupt middle line
        lambda lines: lines[:2] + lines[3:],  # a missing step
        lambda lines: lines + lines[:1],  # a second header
        lambda lines: [*lines[:2], b'"\\ud800"', *lines[2:]],  # a lone surrogate
    ],
)
def test_what_the_fast_path_refuses_fails_as_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mutate: object
) -> None:
    lines = _golden().rstrip(b"\n").split(b"\n")
    path = tmp_path / "ledger.jsonl"
    path.write_bytes(b"\n".join(mutate(lines)) + b"\n")  # type: ignore[operator]
    assert ledger_mod._read_fast(path, path.read_bytes()) is None
    with pytest.raises(LedgerError) as fast:
        read_ledger(path)
    with pytest.raises(LedgerError) as slow:
        _defining(path, monkeypatch)
    assert str(fast.value) == str(slow.value)


def test_a_last_line_without_newline_takes_the_defining_path(tmp_path: Path) -> None:
    path = tmp_path / "ledger.jsonl"
    path.write_bytes(_golden().rstrip(b"\n"))
    assert ledger_mod._read_fast(path, path.read_bytes()) is None
    assert read_ledger(path).events  # still read (a complete last line is kept)


@pytest.mark.parametrize(
    "content", ['{"a": [1, 2.5, null]}', "1", '"\\ud800"', "NaN", "Error: not found", ""]
)
def test_observation_content_parses_as_json_loads_would(content: str) -> None:
    import json

    try:
        expected: tuple[object, bool] = (json.loads(content), True)
    except json.JSONDecodeError:
        expected = (content, False)
    assert repr(_parse(content)) == repr(expected)


PIECES = [" ", "\t", "\n", "\r", "\ufeff", "\x0c", "{", "}", "[", "]", '"', ":", ",", "-",
          "0", "7", "1.5", "e3", "null", "true", "false", "NaN", "Infinity", "a", "\\ud800",
          "\\", '"k":', "é"]  # fmt: skip


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=8).map("".join))
def test_the_header_object_is_what_json_loads_reads(text: str) -> None:
    try:
        want: object = ("read", _typed(json.loads(text)))
    except ValueError:
        want = "refused"
    try:
        got: object = (
            "read",
            _typed(ledger_mod._header_object(text.encode("utf-8", "surrogatepass"))),
        )
    except ValueError:
        got = "refused"
    assert repr(got) == repr(want)


def test_a_header_with_an_integer_past_the_digit_limit_fails_as_before(tmp_path: Path) -> None:
    # pydantic's reader has a cap of its own, but a process may set a lower limit.
    lines = _golden().rstrip(b"\n").split(b"\n")
    assert b'"variants":{}' in lines[0]
    header = lines[0].replace(b'"variants":{}', b'"variants":{"n":' + b"1" * 2000 + b"}", 1)
    path = tmp_path / "ledger.jsonl"
    path.write_bytes(b"\n".join([header, *lines[1:]]) + b"\n")
    before = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(1000)
    try:
        assert ledger_mod._read_fast(path, path.read_bytes()) is None
        with pytest.raises(LedgerError, match="integer too long"):
            read_ledger(path)
    finally:
        sys.set_int_max_str_digits(before)
