"""Real scripted runs (faulted, with labels.jsonl) and an exported review for review tests."""

from __future__ import annotations

import importlib.util
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from sscbench.reconstruct.label import label_dir
from sscbench.review.export import ExportResult, export_review

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


@dataclass(frozen=True)
class Review:
    """An exported review directory with its reviewers' tokens."""

    root: Path
    result: ExportResult
    tokens: dict[str, str]

    def packet(self, pid: str | None = None) -> dict[str, Any]:
        """A main-sample packet as JSON (the first one by default)."""
        pid = pid or self.result.entries[0].packet_id
        data: dict[str, Any] = json.loads((self.root / "packets" / f"{pid}.json").read_text())
        return data

    def good(self, pid: str | None = None) -> dict[str, Any]:
        """A valid label body for ``pid``: refuted at the first tool result, used at the
        next agent step, no reliance."""
        packet = self.packet(pid)
        steps = packet["steps"]
        refuted = next(s["step"] for s in steps if s["kind"] == "tool_observation")
        used = next(
            s["step"]
            for s in steps
            if s["step"] > refuted and s["kind"] in ("agent_message", "tool_call")
        )
        return {
            "packet_id": packet["packet_id"],
            "t_e": {"status": "found", "step": refuted},
            "t_s": {"status": "found", "step": used},
            "t_u": {"status": "never", "step": None},
            "adopted": "no",
            "note": "",
        }

    def lines(self, reviewer: str) -> list[str]:
        """The reviewer's label file, line by line ([] when absent)."""
        path = self.root / "labels" / f"{reviewer}.jsonl"
        return path.read_text().splitlines() if path.is_file() else []


@pytest.fixture
def review(review_runs: Path, tmp_path: Path) -> Review:
    """Three sampled packets and two calibration packets, tokens for A, B, C and D."""
    result = export_review(review_runs, tmp_path / "review", 3, seed=5, calibration=2)
    assert result.urls is not None
    tokens = {name: url.split("#token=", 1)[1] for name, url in result.urls.items()}
    return Review(tmp_path / "review", result, tokens)
