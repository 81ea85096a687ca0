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
from pydantic import BaseModel, TypeAdapter, ValidationError

from sscbench.agents.scripted.truth import FactConflict, FactUse
from sscbench.envs.intervention import InterventionRecord
from sscbench.experiments.status import RunRecord, SessionRecord
from sscbench.fault_contracts.injection import FaultDelivery
from sscbench.llm.records import ProviderCall
from sscbench.reconstruct.labels import RunLabels
from sscbench.records.hidden import StateCheck
from sscbench.records.ledger import dump_line

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
