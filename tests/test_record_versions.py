"""Every record file format is versioned, and every frozen version keeps loading.

``tests/fixtures/records/v<N>/`` holds files written by the version-N writers (never edit
or regenerate them). Version 1 is written without ``schema_version``; each file must read
back with today's models and write back byte for byte (while version 1 is current), and a
line from a newer SSCBench must be refused with a message that says so.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, TypeAdapter, ValidationError

from sscbench.agents.scripted.truth import FactConflict, FactUse
from sscbench.envs.intervention import InterventionRecord
from sscbench.experiments.status import RunRecord, SessionRecord
from sscbench.fault_contracts.injection import FaultDelivery
from sscbench.llm.records import ProviderCall
from sscbench.reconstruct.labels import RunLabels
from sscbench.records.events import (
    RECORD_ADAPTER,
    AgentMessage,
    AgentToolCall,
    Header,
    ParticipantSpec,
    ToolObservation,
    UserMessage,
)
from sscbench.records.hidden import StateCheck
from sscbench.records.ledger import _spelled_apart, dump_line, dump_line_reference
from sscbench.records.lines import _plain, fast_line

FIXTURES = Path(__file__).parent / "fixtures" / "records"
BY_KIND: dict[str, dict[str, type[BaseModel]]] = {
    "hidden.jsonl": {
        "observation_rewritten": InterventionRecord,
        "write_suppressed": InterventionRecord,
        "fault_delivery": FaultDelivery,
        "state_check": StateCheck,
    },
    "truth.jsonl": {"fact_use": FactUse, "fact_conflict": FactConflict},
    "provider_calls.jsonl": {"provider_call": ProviderCall},
    "schedule.jsonl": {"run": RunRecord, "session": SessionRecord},
}
VERSIONS = sorted(p.name for p in FIXTURES.iterdir() if p.is_dir())


def _model(name: str, obj: dict[str, Any]) -> type[BaseModel]:
    if name == "labels.jsonl":
        return RunLabels
    return BY_KIND[name][obj["kind"]]


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize(
    "name",
    ["hidden.jsonl", "truth.jsonl", "provider_calls.jsonl", "schedule.jsonl", "labels.jsonl"],
)
def test_every_frozen_version_loads(version: str, name: str) -> None:
    lines = (FIXTURES / version / name).read_text(encoding="utf-8").splitlines()
    assert lines
    for line in lines:
        obj = json.loads(line)
        record = _model(name, obj).model_validate(obj)
        assert record.schema_version == int(version[1:])
        if version == "v1":  # the current writer writes version 1 byte for byte
            assert dump_line(record) == line


@pytest.mark.parametrize(
    "model",
    [StateCheck, FactUse, ProviderCall, RunRecord, RunLabels, InterventionRecord, FaultDelivery],
)
def test_a_newer_line_is_refused_with_a_message_that_says_so(model: type[BaseModel]) -> None:
    name = (
        next(n for n, kinds in BY_KIND.items() if model in kinds.values())
        if model is not RunLabels
        else "labels.jsonl"
    )
    line = next(
        json.loads(x)
        for x in (FIXTURES / "v1" / name).read_text().splitlines()
        if _model(name, json.loads(x)) is model
    )
    with pytest.raises(ValidationError, match="newer than this SSCBench reads"):
        model.model_validate({**line, "schema_version": 99})


def test_version_1_is_written_without_the_field() -> None:
    adapter = TypeAdapter(StateCheck)
    check = StateCheck(final_state_hash=None, calls_executed=0, owned_entities=[])
    assert "schema_version" not in adapter.dump_python(check)


# --------------------------------------------------------------------------- the writer's bytes
FIXTURE_ROOT = Path(__file__).parent / "fixtures"
RECORD_KINDS = {kind: model for kinds in BY_KIND.values() for kind, model in kinds.items()}


def _as_record(obj: dict[str, Any]) -> BaseModel | None:
    """The record a fixture line holds (ledger, hidden, truth, provider, status, labels)."""
    if obj.get("kind") in RECORD_KINDS:
        return RECORD_KINDS[obj["kind"]].model_validate(obj)
    for parse in (RECORD_ADAPTER.validate_python, RunLabels.model_validate):
        try:
            record: BaseModel = parse(obj)
            return record
        except ValidationError:
            continue
    return None


def test_the_fast_writer_writes_the_reference_bytes_for_every_frozen_fixture() -> None:
    """``dump_line`` (pydantic's JSON) equals the standard library's JSON of the dump on every
    record of every fixture: every ledger schema version, hidden logs, truth, status, labels."""
    checked = 0
    for path in sorted(FIXTURE_ROOT.rglob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            obj = json.loads(line)
            record = _as_record(obj) if isinstance(obj, dict) else None
            if record is None:
                continue
            checked += 1
            assert dump_line(record) == dump_line_reference(record), f"{path}: {line[:120]}"
    assert checked > 5000  # every schema version's ledgers and every record file


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.sampled_from([1e-5, 1.5e-7, 1e-4, 1e16, 1e21, 5e-324, -0.0, 0.1 + 0.2])
    | st.text(alphabet=st.characters(codec="utf-8")),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=400, deadline=None)
@given(arguments=st.dictionaries(st.text(max_size=8), JSON_VALUES, max_size=4), content=st.text())
def test_the_fast_writer_matches_the_reference_on_any_payload(
    arguments: dict[str, Any], content: str
) -> None:
    for record in (
        AgentToolCall(ts=0.5, step=1, turn=1, call_id="c", name="t", arguments=arguments),
        ToolObservation(ts=1e-6, step=2, turn=2, call_id="c", content=content, error=False),
    ):
        assert dump_line(record) == dump_line_reference(record)


@settings(max_examples=300, deadline=None)
@given(
    arguments=st.dictionaries(st.text(max_size=8), JSON_VALUES, max_size=4),
    content=st.text(),
    vt=st.floats(allow_nan=False, allow_infinity=False, min_value=0.0)
    | st.sampled_from([0.0, 1e-5, 1.5e-7, 1e16, 12.5]),
    harness=st.booleans(),
)
def test_clocked_and_harness_events_write_the_reference_bytes(
    arguments: dict[str, Any], content: str, vt: float, harness: bool
) -> None:
    """Every event of a clocked run carries ``vt``; a delivered refutation's call and
    observation carry ``origin``: their lines are spelled directly, with the same bytes."""
    origin = "harness" if harness else None
    call = AgentToolCall(
        ts=0.5, step=1, turn=1, vt=vt, call_id="c", name="t", arguments=arguments, origin=origin
    )
    assert dump_line(call) == dump_line_reference(call)
    assert (fast_line(call) is not None) == _plain(arguments)  # spelled unless not JSON
    for record in (
        ToolObservation(
            ts=None, step=2, turn=2, vt=vt, call_id="c", content=content, error=True, origin=origin
        ),
        UserMessage(ts=2.5, step=3, turn=3, vt=vt, content=content),
        AgentMessage(ts=2.5, step=4, turn=4, vt=vt, content=content),
    ):
        assert fast_line(record) == dump_line_reference(record)


def test_text_that_only_looks_like_an_exponent_keeps_the_fast_path() -> None:
    """A small float pydantic spells apart (``1.5e-7``) follows a digit; a run id such as
    ``airline-1-…`` (in every airline header) does not send its line to the slow path."""
    assert not _spelled_apart('{"run_id":"airline-1-scripted_gold-s0","seed":0}')
    assert _spelled_apart('{"x":1.5e-7}')
    assert _spelled_apart('{"x":0.00001}')
    header = Header(
        sscbench_version="0",
        tau2_version="0",
        run_id="airline-1-x",
        domain="airline",
        task_id="1",
        agent=ParticipantSpec(name="a"),
        user=ParticipantSpec(name="u"),
        seed=0,
        max_steps=1,
    )
    assert dump_line(header) == dump_line_reference(header)


def test_a_lone_surrogate_takes_the_reference_path() -> None:
    record = ToolObservation(ts=1.0, step=0, turn=0, call_id="c", content="a\ud800", error=False)
    assert dump_line(record) == dump_line_reference(record)
