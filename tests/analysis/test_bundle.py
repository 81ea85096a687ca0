"""Results bundles: export from a labelled run set, compare side by side, refuse mixed
case sets unless told, escape what they show."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from sscbench.analysis.bundle import BUNDLE_FILE, read_bundle
from sscbench.cases.caseset import load_case_set
from sscbench.cli.main import main
from sscbench.experiments.inline import command_line_experiment, fault_runs
from sscbench.experiments.session import run_experiment
from sscbench.reconstruct.label import label_dir
from sscbench.reconstruct.run_set import write_labels

CASE = "write_effect/airline/11/0"


@pytest.fixture(scope="module")
def run_set(tmp_path_factory: pytest.TempPathFactory) -> Path:
    case_set = load_case_set(None)
    (case,) = [c for c in case_set.cases if c.entry.case_id == CASE]
    experiment = command_line_experiment(
        "bundle",
        [("scripted:gold", {})],
        seeds=[0],
        case_set=case_set,
        mitigations=("read_back_after_write",),
    )
    out = tmp_path_factory.mktemp("bundle") / "runs"
    run_experiment(experiment, out, runs=fault_runs(experiment, [case.contract]))
    write_labels(out / "labels.jsonl", label_dir(out), out)
    return out


@pytest.fixture(scope="module")
def bundle(run_set: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("bundles") / "b1"
    assert main(["export", "results", str(run_set), "--out", str(out), "--ledgers"]) == 0
    return out


def test_the_bundle_holds_cards_case_set_labels_analysis_and_ledgers(bundle: Path) -> None:
    card, analysis = read_bundle(bundle)
    assert card.schema_version == 1 and card.ledgers
    assert card.case_set.name == "sscbench-default"
    manifest = load_case_set(None).root / "manifest.json"
    assert card.case_set.manifest_sha256 == hashlib.sha256(manifest.read_bytes()).hexdigest()
    ids = {(c.id, c.mitigation) for c in card.configurations}
    assert ids == {
        ("scripted:gold", None),
        ("scripted:gold+read_back_after_write", "read_back_after_write"),
    }
    for name, digest in card.files.items():
        assert hashlib.sha256((bundle / name).read_bytes()).hexdigest() == digest
    assert sum(name.startswith("ledgers/") for name in card.files) == 2
    assert [r.mitigation for r in analysis.mitigations if r.operator == "write_effect"] == [
        "read_back_after_write"
    ]


def test_compare_prints_and_writes_an_escaped_page(
    bundle: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = tmp_path / "b2"
    other.mkdir()
    for name in ("analysis.json", "labels.jsonl"):
        (other / name).write_bytes((bundle / name).read_bytes())
    data = json.loads((bundle / BUNDLE_FILE).read_text())
    data["configurations"][0]["model"] = "<script>alert(1)</script>"
    (other / BUNDLE_FILE).write_text(json.dumps(data))
    page = tmp_path / "compare.html"
    assert main(["compare", str(bundle), str(other), "--html", str(page)]) == 0
    out = capsys.readouterr().out
    assert "scripted:gold" in out and "b2" in out
    html = page.read_text()
    assert "<script>alert" not in html and "&lt;script&gt;alert(1)" in html

    data["case_set"]["version"] = "9.9.9"
    (other / BUNDLE_FILE).write_text(json.dumps(data))
    assert main(["compare", str(bundle), str(other)]) == 2
    assert "different case sets" in capsys.readouterr().err
    assert main(["compare", str(bundle), str(other), "--allow-mixed"]) == 0


def test_a_bundle_is_written_only_into_a_new_directory(run_set: Path, bundle: Path) -> None:
    assert main(["export", "results", str(run_set), "--out", str(bundle)]) == 2


def test_compare_refuses_what_is_not_a_bundle(tmp_path: Path) -> None:
    assert main(["compare", str(tmp_path)]) == 2
