"""``sscbench demo --local-model``: the real-model runs go through the same executor into the
same run set, labels and report as the scripted agents (a stand-in server here; the real
llama.cpp server in the ``local_server`` tests)."""

from __future__ import annotations

from pathlib import Path

import pytest

from sscbench.cli.demo import DEMO_AGENTS
from sscbench.cli.main import main
from sscbench.llm import local_server
from sscbench.reconstruct.labels import read_labels


def test_the_demo_runs_a_real_model_beside_the_scripted_agents(
    stand_in: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(local_server, "resolve_model", lambda name: stand_in)
    out = tmp_path / "demo"
    assert main(["demo", "--out", str(out), "--seeds", "1", "--local-model"]) == 0
    labels = read_labels(out / "labels.jsonl")
    local = [lab for lab in labels if lab.configuration == "openai-compatible"]
    assert len(local) == 13  # one case per operator, first seed
    assert len({lab.operator for lab in local}) == 13
    assert len(labels) == 334 * len(DEMO_AGENTS) + 13  # every scripted run is still there
    assert "openai-compatible" in (out / "report" / "report.html").read_text(encoding="utf-8")
    assert list(out.glob("llama-server-*.log"))  # the server's log, beside the runs
