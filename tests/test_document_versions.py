"""Whole-file results keep their versions honest: every frozen version is either read
(the case-set manifest: a version-1 manifest reads with today's model, its cases without a
recorded task relevance) or refused with one line that names both versions and the command
that regenerates the file (derived results: ``analysis.json``, ``scores.json``,
``comparison.json``), never half-read.

``tests/fixtures/documents/<name>-v<N>.json`` were written by the version-N
writers; never edit or regenerate them.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import BaseModel, ValidationError

from sscbench.analysis.results import AnalysisResult
from sscbench.cases.build import manifest_json
from sscbench.cases.caseset import Manifest
from sscbench.oracles.metrics import ScoresFile
from sscbench.oracles.validation import ComparisonRecord
from sscbench.user_files import validation_problem

DOCUMENTS = Path(__file__).parent / "fixtures" / "documents"
MODELS: dict[str, type[BaseModel]] = {
    "analysis": AnalysisResult,
    "scores": ScoresFile,
    "comparison": ComparisonRecord,
    "manifest": Manifest,
}
CURRENT = {"analysis": 4, "scores": 1, "comparison": 1, "manifest": 2}
FROZEN = sorted(p.stem for p in DOCUMENTS.glob("*.json"))


def _split(stem: str) -> tuple[str, int]:
    name, version = stem.rsplit("-v", 1)
    return name, int(version)


def test_every_document_kind_has_its_current_version_frozen() -> None:
    assert {f"{name}-v{v}" for name, v in CURRENT.items()} <= set(FROZEN)
    for name, model in MODELS.items():
        assert model.model_fields["schema_version"].default == CURRENT[name]


@pytest.mark.parametrize("stem", FROZEN)
def test_frozen_document_is_read_or_refused_in_one_line(stem: str) -> None:
    name, version = _split(stem)
    text = (DOCUMENTS / f"{stem}.json").read_text(encoding="utf-8")
    assert json.loads(text).get("schema_version", 1) == version
    model = MODELS[name]
    if version == CURRENT[name] or name == "manifest":
        record = model.model_validate_json(text)
        assert record.model_dump()["schema_version"] == version
        if version == CURRENT[name]:
            # Read back and written again as its writer writes it: nothing lost or invented.
            again = (
                manifest_json(record)
                if isinstance(record, Manifest)
                else json.loads(record.model_dump_json())
            )
            assert again == json.loads(text)
        return
    with pytest.raises(ValidationError) as caught:
        model.model_validate_json(text)
    assert caught.value.error_count() == 1
    message = validation_problem(caught.value)
    assert f"schema_version {version} was written by an older SSCBench" in message
    assert "regenerate it with `sscbench" in message


@pytest.mark.parametrize("name", ["analysis", "scores", "comparison"])
def test_a_newer_derived_document_is_refused(name: str) -> None:
    stem = f"{name}-v{CURRENT[name]}"
    data = json.loads((DOCUMENTS / f"{stem}.json").read_text(encoding="utf-8"))
    data["schema_version"] = CURRENT[name] + 1
    with pytest.raises(ValidationError, match="newer than this SSCBench reads"):
        MODELS[name].model_validate(data)


def test_an_old_manifest_reads_without_task_relevance() -> None:
    old = Manifest.model_validate_json((DOCUMENTS / "manifest-v1.json").read_text("utf-8"))
    new = Manifest.model_validate_json((DOCUMENTS / "manifest-v2.json").read_text("utf-8"))
    assert {c.relevance for c in old.cases} == {None}
    assert None not in {c.relevance for c in new.cases if c.operator == "item_option"}
