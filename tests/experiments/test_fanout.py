"""Reconstruction and the report's bootstrap fanned out as Ray tasks give the local path's
output exactly (the Ray test is skipped without Ray); the two-pass bootstrap book is
checked without Ray too."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from sscbench.analysis.intervals import BOOK, BootstrapBook, bootstrap_jobs
from sscbench.analysis.population import read_schedule
from sscbench.analysis.quantities import analyze
from sscbench.analysis.results import AnalysisResult
from sscbench.cases.caseset import load_case_set
from sscbench.cli.main import main
from sscbench.experiments import load_experiment, run_experiment
from sscbench.reconstruct.label import label_dir
from sscbench.reconstruct.labels import RunLabels

Write = Callable[..., Path]


@pytest.fixture(scope="module")
def run_set(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two scripted configurations, two repetitions: labels and bootstrapped rates."""
    root = tmp_path_factory.mktemp("fanout")
    path = root / "exp.toml"
    path.write_text(
        """
concurrency = 4
repetitions = 2
[cases]
operators = ["item_option", "write_effect"]
per_operator = 2
[[configurations]]
id = "hasty"
agent = "scripted:hasty"
[[configurations]]
id = "eager"
agent = "scripted:eager"
""",
        encoding="utf-8",
    )
    run_experiment(load_experiment(path), root / "runs")
    return root / "runs"


def _analysis(run_set: Path, labels: list[RunLabels]) -> Callable[[], AnalysisResult]:
    schedule = read_schedule(run_set / "schedule.jsonl")
    assert schedule is not None
    case_set = load_case_set(None)
    return lambda: analyze(
        labels,
        case_set,
        schedule=schedule.runs,
        first_seeds=schedule.first_seeds,
        gated=schedule.gated,
    )


def test_a_filled_bootstrap_book_gives_the_local_analysis(run_set: Path) -> None:
    analyse = _analysis(run_set, label_dir(run_set))
    local = analyse().model_dump_json()
    book = BootstrapBook(collecting=True)
    token = BOOK.set(book)
    try:
        collected = analyse().model_dump_json()
    finally:
        BOOK.reset(token)
    jobs = list(book.wanted)
    assert jobs, "the run set has clustered rates"
    assert collected != local, "while collecting, intervals are placeholders"
    token = BOOK.set(BootstrapBook(known=dict(zip(jobs, bootstrap_jobs(jobs), strict=True))))
    try:
        assert analyse().model_dump_json() == local
    finally:
        BOOK.reset(token)


@pytest.fixture
def ray_cluster() -> Iterator[None]:
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level=40)
    yield
    ray.shutdown()


def test_labels_and_bootstrap_on_ray_equal_the_local_ones(
    run_set: Path, tmp_path: Path, ray_cluster: None
) -> None:
    from sscbench.analysis.fanout import with_bootstrap_on_ray

    local, on_ray = tmp_path / "local.jsonl", tmp_path / "ray.jsonl"
    assert main(["reconstruct", str(run_set), "--out", str(local)]) == 0
    assert main(["reconstruct", str(run_set), "--out", str(on_ray), "--executor", "ray"]) == 0
    assert on_ray.read_bytes() == local.read_bytes()
    analyse = _analysis(run_set, label_dir(run_set))
    expected = analyse().model_dump_json()
    assert with_bootstrap_on_ray(analyse, None).model_dump_json() == expected
