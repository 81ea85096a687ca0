"""Exported packets are masked: no configuration, condition, automatic label or position."""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sscbench.cli import review as review_cmd
from sscbench.errors import ConfigError
from sscbench.records.events import AgentToolCall, ToolObservation
from sscbench.records.ledger import read_ledger
from sscbench.review.export import export_review, read_key, read_run_labels
from sscbench.runs.episode import LEDGER_FILE

FORBIDDEN_KEYS = {
    # run and configuration identity
    "run_id",
    "case_id",
    "contract_id",
    "agent",
    "user",
    "seed",
    "max_steps",
    "variant",
    "variants",
    "cluster",
    "operator_version",
    "call_id",
    "ts",
    "turn",
    # experimental condition
    "control",
    "fault",
    # automatic labels and event positions
    "triggered",
    "triggered_reason",
    "t_f",
    "t_e",
    "t_s",
    "t_u",
    "adopted",
    "adopted_reason",
    "z_s",
    "y_end",
    "uses",
    "evidence",
    "success",
    "termination",
}


def keys(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        for key, child in value.items():
            yield key
            yield from keys(child)
    elif isinstance(value, list):
        for child in value:
            yield from keys(child)


def cli(*argv: str) -> int:
    parser = argparse.ArgumentParser(prog="sscbench")
    review_cmd.register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    code: int = args.handler(args)
    return code


@pytest.mark.parametrize(("sample", "calibration"), [(1000, 0), (4, 1000)])
def test_packets_never_contain_configuration_names_or_automatic_labels(
    review_runs: Path, tmp_path: Path, sample: int, calibration: int
) -> None:
    out = tmp_path / "review"
    result = export_review(
        review_runs, out, sample, seed=3, include_controls=True, calibration=calibration
    )
    labels = {x.run_id: x for x in read_run_labels(review_runs / "labels.jsonl")}
    # The review speaks for r0 (the smallest seed here: no schedule): scripted:mixed's
    # seed-1 runs are a later repetition.
    triggered = sum(bool(x.triggered) and x.seed == 0 for x in labels.values())
    assert result.eligible == triggered == len(result.entries) + len(result.calibration)
    for entry in (*result.entries, *result.calibration):
        text = (out / "packets" / f"{entry.packet_id}.json").read_text()
        packet = json.loads(text)
        label = labels[entry.run_id]
        ledger = read_ledger(Path(entry.run_dir) / LEDGER_FILE)
        assert not FORBIDDEN_KEYS & set(keys(packet)), entry.packet_id
        assert packet["calibration"] is entry.calibration
        assert "params" not in packet["contract"], "operator parameters are configuration"
        for secret in (
            entry.run_id,
            label.case_id,
            label.agent,
            json.dumps(ledger.header.agent.params),
            *(e.call_id for e in ledger.events if isinstance(e, AgentToolCall)),
        ):
            assert secret and f'"{secret}"' not in text, (entry.packet_id, secret)
        reasons = [
            label.adopted_reason,
            label.triggered_reason,
            *(getattr(label, t).reason for t in ("t_f", "t_e", "t_s", "t_u")),
            *(str(u["reason"]) for u in label.uses),
        ]
        for reason in reasons:
            if len(reason) >= 25:
                assert reason not in text, (entry.packet_id, reason)
        # The trajectory itself is complete and numbered as in the ledger.
        assert [s["step"] for s in packet["steps"]] == [e.step for e in ledger.events]
        calls = {e.call_id: e.step for e in ledger.events if isinstance(e, AgentToolCall)}
        for event, step in zip(ledger.events, packet["steps"], strict=True):
            if isinstance(event, ToolObservation):
                assert step["call_step"] == calls[event.call_id]
                assert step["content"] == event.content


def test_the_sample_spreads_over_strata_and_is_seeded(review_runs: Path, tmp_path: Path) -> None:
    first = export_review(review_runs, tmp_path / "a", 12, seed=7)
    again = export_review(review_runs, tmp_path / "b", 12, seed=7)
    other = export_review(review_runs, tmp_path / "c", 12, seed=8)
    assert [e.run_id for e in first.entries] == [e.run_id for e in again.entries]
    assert [e.packet_id for e in first.entries] == [e.packet_id for e in again.entries]
    assert {e.packet_id for e in first.entries}.isdisjoint(e.packet_id for e in other.entries)
    assert {e.operator for e in first.entries} == {
        "return_date",
        "item_option",
        "pay_source",
        "write_effect",
    }
    assert len({e.configuration for e in first.entries}) == 4
    assert len({e.auto_z_s for e in first.entries}) >= 3
    assert not any("/target" in e.run_id or "target-" in e.run_id for e in first.entries), (
        "controls need the flag"
    )
    key = read_key(tmp_path / "a")
    assert set(key) == {e.packet_id for e in (*first.entries, *first.calibration)}
    assert {p for p, e in key.items() if e.calibration} == {e.packet_id for e in first.calibration}


def test_export_refuses_to_overwrite_a_review(review_runs: Path, tmp_path: Path) -> None:
    export_review(review_runs, tmp_path, 2, seed=0)
    with pytest.raises(ConfigError, match="already holds packets"):
        export_review(review_runs, tmp_path, 2, seed=0)


def test_cli_export(review_runs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = cli(
        "review",
        "export",
        str(review_runs),
        "--sample",
        "5",
        "--seed",
        "1",
        "--out",
        str(tmp_path / "r"),
    )
    assert code == 0
    assert len(list((tmp_path / "r" / "packets").glob("*.json"))) == 10, "5 + 5 calibration"
    printed = capsys.readouterr().out
    assert "5 packets" in printed and "5 calibration packets" in printed
    urls = (tmp_path / "r" / "reviewer-urls.txt").read_text().splitlines()
    assert [u.split("\t")[0] for u in urls] == ["A", "B", "C", "D"]
    assert all(u.split("\t")[2] in printed for u in urls), "each reviewer's URL is printed"
    none = ["review", "export", str(review_runs), "--sample", "5", "--out", str(tmp_path / "s")]
    assert cli(*none, "--calibration", "0") == 0
    assert len(list((tmp_path / "s" / "packets").glob("*.json"))) == 5


def test_an_aligned_variant_packet_does_not_reveal_the_condition() -> None:
    from sscbench.cases.caseset import load_case_set
    from sscbench.operators.variants import vary
    from sscbench.review.packet import masked_contract

    case = next(c for c in load_case_set().cases if c.entry.operator == "item_option")
    main = case.contract.model_dump(mode="json")
    aligned = vary(case.contract, "aligned").model_dump(mode="json")
    assert len(aligned["interventions"]) == len(main["interventions"]) + 1
    # a reviewer sees the same contract whichever interface the run had
    assert masked_contract(aligned) == masked_contract(main)
    assert "variant" not in masked_contract(aligned)


PAIRED = """name = "paired"
repetitions = 2
seeds = [5, 1]
[cases]
operators = ["write_effect", "item_option"]
per_operator = 4
controls = false
[checks]
paired = ["aligned", "read_back_hint"]
[[configurations]]
id = "hasty"
agent = "scripted:hasty"
[[configurations]]
id = "careful"
agent = "scripted:careful"
"""


def test_the_sample_is_drawn_from_the_main_runs_of_r0_and_the_manifest_says_so(
    tmp_path: Path,
) -> None:
    """The reference validates the primary analysis, so the sample comes from its
    population: main-interface runs of r0 (here seed 5, the schedule's first), never a
    paired-check variant run or a later repetition; export.json records the population."""
    from sscbench.cli.main import main

    experiment = tmp_path / "exp.toml"
    experiment.write_text(PAIRED, encoding="utf-8")
    runs = tmp_path / "runs"
    assert main(["run", "--config", str(experiment), "--out", str(runs)]) == 0
    assert main(["reconstruct", str(runs)]) == 0
    labels = read_run_labels(runs / "labels.jsonl")
    variants = [x for x in labels if x.case_id and "+" in x.case_id and x.triggered]
    later = [x for x in labels if x.operator and x.seed == 1 and x.triggered]
    assert variants and later  # both kinds are there to be sampled
    out = tmp_path / "review"
    result = export_review(runs, out, 1000, seed=2, calibration=3)
    sampled = {e.run_id for e in (*result.entries, *result.calibration)}
    by_id = {x.run_id: x for x in labels}
    assert sampled and all(by_id[r].seed == 5 and "+" not in str(by_id[r].case_id) for r in sampled)
    main_r0 = {
        x.run_id
        for x in labels
        if x.operator and x.triggered and x.seed == 5 and "+" not in str(x.case_id)
    }
    assert sampled == main_r0
    manifest = json.loads((out / "export.json").read_text(encoding="utf-8"))
    population = manifest["population"]
    assert population["r0_seeds"] == {"careful": 5, "hasty": 5}
    assert population["r0_from"] == "schedule.jsonl"
    left = population["left_out"]
    assert left["paired_check_or_arrival_variant"] == sum(
        1 for x in labels if x.case_id and "+" in x.case_id
    )
    assert left["later_repetition"] == sum(
        1 for x in labels if x.operator and x.seed == 1 and "+" not in str(x.case_id)
    )
