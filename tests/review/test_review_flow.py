"""Export → three reviewers and an adjudicator → κ, reference, automatic vs reference."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from sscbench.cli import review as review_cmd
from sscbench.errors import ConfigError
from sscbench.reconstruct.labels import EventTime, RunLabels
from sscbench.review.export import export_review, read_run_labels
from sscbench.review.labels import Mark, ReviewLabel, append_label
from sscbench.review.report import agreement_report


def cli(*argv: str) -> int:
    parser = argparse.ArgumentParser(prog="sscbench")
    review_cmd.register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    code: int = args.handler(args)
    return code


def mark(event: EventTime) -> Mark:
    return Mark(status=event.status, step=event.step if event.status == "found" else None)


def as_review(label: RunLabels, reviewer: str, pid: str) -> ReviewLabel:
    """A reviewer who agrees with the reconstructor."""
    adopted = {True: "yes", False: "no", None: "undecidable"}[label.adopted]
    return ReviewLabel(
        packet_id=pid,
        reviewer=reviewer,
        t_e=mark(label.t_e),
        t_s=mark(label.t_s),
        t_u=mark(label.t_u),
        adopted=adopted,  # type: ignore[arg-type]
    )


def test_three_reviewers_and_an_adjudicator_yield_kappa_and_the_reference(
    review_runs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "review"
    result = export_review(review_runs, out, 10, seed=2)
    auto = {x.run_id: x for x in read_run_labels(review_runs / "labels.jsonl")}
    entries = list(result.entries)
    flipped = next(e for e in entries if auto[e.run_id].adopted is True)
    for entry in entries:
        for reviewer in "ABC":
            label = as_review(auto[entry.run_id], reviewer, entry.packet_id)
            if reviewer == "C" and entry is flipped:
                # C misses the reliance: a 1-vs-2 split on T_U and A.
                label = label.model_copy(update={"t_u": Mark(status="never"), "adopted": "no"})
            append_label(out, label)
    report = agreement_report(out)
    pending = [r for r in report.references if r.status != "accepted"]
    assert [r.packet_id for r in pending] == [flipped.packet_id]
    assert pending[0].sources["adopted"] == "pending"
    kappa = {row.quantity: row for row in report.kappa}
    assert kappa["A"].result.subjects == 10 and kappa["A"].result.kappa is not None
    assert kappa["A"].result.kappa < 1.0 and kappa["Z_S"].result.kappa == pytest.approx(1.0)
    # The adjudicator sides with the minority; the reference follows D, not the majority.
    append_label(
        out,
        as_review(auto[flipped.run_id], "D", flipped.packet_id).model_copy(
            update={"t_u": Mark(status="never"), "adopted": "no"}
        ),
    )
    assert cli("review", "agree", str(out)) == 0
    printed = capsys.readouterr().out
    assert "Fleiss κ" in printed and "automatic labels vs adjudicated reference" in printed
    refs = [json.loads(x) for x in (out / "reference.jsonl").read_text().splitlines()]
    assert len(refs) == 10 and all(r["status"] == "accepted" for r in refs)
    by_packet = {r["packet_id"]: r for r in refs}
    assert by_packet[flipped.packet_id]["adopted"] == "no"
    assert by_packet[flipped.packet_id]["run_id"] == flipped.run_id
    report = agreement_report(out)
    compared = report.comparison
    assert compared.compared["A"] == 10 and compared.agree["A"] == 9
    assert compared.agree["Z_S"] == compared.compared["Z_S"] == 10
    # Status and step are compared apart: the reference has T_U never, so only the status
    # differs, and no step comparison is made for that run.
    assert [(p, q) for p, q, _, _ in compared.mismatches] == [
        (flipped.packet_id, "A"),
        (flipped.packet_id, "T_U status"),
    ]
    located = compared.compared["T_U step"]
    assert located == compared.agree["T_U step"] and located < compared.compared["T_U status"]


def test_agree_refuses_labels_for_packets_that_were_not_exported(
    review_runs: Path, tmp_path: Path
) -> None:
    export_review(review_runs, tmp_path, 2, seed=0)
    append_label(
        tmp_path,
        ReviewLabel(
            packet_id="pnotexported",
            reviewer="A",
            t_e=Mark(status="never"),
            t_s=Mark(status="none"),
            t_u=Mark(status="never"),
            adopted="no",
        ),
    )
    with pytest.raises(ConfigError, match="not exported"):
        agreement_report(tmp_path)
