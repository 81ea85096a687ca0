"""A small directory of real scripted runs (faulted, with labels.jsonl) for review tests."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from sscbench.reconstruct.label import label_dir

RECONSTRUCT_CONFTEST = Path(__file__).parents[1] / "reconstruct" / "conftest.py"


def _load_runner() -> object:
    spec = importlib.util.spec_from_file_location("review_scripted_runs", RECONSTRUCT_CONFTEST)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def review_runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """13 cases × 5 scripted configurations, reconstructed into ``labels.jsonl``."""
    out = tmp_path_factory.mktemp("review_runs")
    _load_runner().run_scripted_cases(out)  # type: ignore[attr-defined]
    with (out / "labels.jsonl").open("w", encoding="utf-8") as fh:
        for label in label_dir(out):
            fh.write(label.model_dump_json() + "\n")
    return out
