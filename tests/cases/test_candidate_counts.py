"""The candidate counts cached with the package are what screening gives, and ``operators
list`` reads them instead of screening (it answered in 38 s; now well under a second)."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from sscbench.cases import candidate_counts as cc
from sscbench.cli.main import main

ROOT = Path(__file__).resolve().parents[2]


def _stored() -> dict[str, dict[str, object]]:
    return json.loads((ROOT / "sscbench" / "data" / cc.COUNTS_FILE).read_text())["operators"]


def test_the_cache_names_every_built_in_operator() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    built_in = set(project["project"]["entry-points"]["sscbench.operators"])
    assert set(_stored()) == built_in


@pytest.mark.slow
def test_the_cached_counts_are_what_screening_every_candidate_gives() -> None:
    for name, entry in _stored().items():
        fresh = cc.screen_counts(name)
        assert (fresh.candidates, fresh.valid) == (entry["candidates"], entry["valid"]), (
            f"{name}: cached counts are stale; run `python -m sscbench.cases.candidate_counts`"
        )


def test_operators_list_reads_the_cache(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def never(name: str) -> cc.CandidateCounts:
        raise AssertionError(f"screened {name} although its counts are cached")

    monkeypatch.setattr(cc, "screen_counts", never)
    assert main(["operators", "list"]) == 0
    out = capsys.readouterr().out
    item_option = next(line for line in out.splitlines() if line.strip().startswith("item_opt"))
    stored = _stored()["item_option"]
    assert item_option.split()[-2:] == [str(stored["candidates"]), str(stored["valid"])]
    assert max(len(line) for line in out.splitlines()) <= 100


def test_an_operator_whose_version_changed_is_screened_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from sscbench.operators.registry import get_operator

    op = type(get_operator("write_effect"))
    monkeypatch.setattr(op, "version", "999")
    screened: list[str] = []

    def fake(name: str) -> cc.CandidateCounts:
        screened.append(name)
        return cc.CandidateCounts(1, 1)

    monkeypatch.setattr(cc, "screen_counts", fake)
    counts = cc.candidate_counts(["write_effect", "pay_source"])
    assert screened == ["write_effect"]
    assert counts["pay_source"].cached and not counts["write_effect"].cached
