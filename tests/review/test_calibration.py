"""Calibration trajectories: drawn outside the sample, seeded, spread over operators, shown
first, masked like any packet, and kept out of κ, step agreement and the reference."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from sscbench.cli.main import main
from sscbench.errors import ConfigError
from sscbench.reconstruct.labels import EventTime, RunLabels
from sscbench.review.export import export_review, read_key, read_run_labels
from sscbench.review.labels import Mark, ReviewLabel, append_label
from sscbench.review.report import agreement_report, write_reference
from sscbench.review.server import create_app


def test_calibration_is_drawn_outside_the_sample_seeded_and_spread(
    review_runs: Path, tmp_path: Path
) -> None:
    with_cal = export_review(review_runs, tmp_path / "a", 8, seed=4, calibration=5)
    again = export_review(review_runs, tmp_path / "b", 8, seed=4, calibration=5)
    without = export_review(review_runs, tmp_path / "c", 8, seed=4, calibration=0)
    other = export_review(review_runs, tmp_path / "d", 8, seed=9, calibration=5)

    main_runs = [e.run_id for e in with_cal.entries]
    cal_runs = [e.run_id for e in with_cal.calibration]
    assert len(cal_runs) == 5 and not set(cal_runs) & set(main_runs)
    assert main_runs == [e.run_id for e in without.entries], "calibration never moves the sample"
    assert cal_runs == [e.run_id for e in again.calibration], "seeded"
    assert cal_runs != [e.run_id for e in other.calibration]
    assert {e.operator for e in with_cal.calibration} == {
        "return_date",
        "item_option",
        "pay_source",
        "write_effect",
    }, "five calibration packets cover the four operators"
    assert without.calibration == ()
    assert len(list((tmp_path / "c" / "packets").glob("*.json"))) == 8

    key = read_key(tmp_path / "a")
    for entry in (*with_cal.entries, *with_cal.calibration):
        packet = json.loads((tmp_path / "a" / "packets" / f"{entry.packet_id}.json").read_text())
        assert packet["calibration"] is entry.calibration is key[entry.packet_id].calibration
    export = json.loads((tmp_path / "a" / "export.json").read_text())
    assert (export["packets"], export["calibration"], export["calibration_packets"]) == (8, 5, 5)


def test_calibration_takes_only_what_the_sample_left(review_runs: Path, tmp_path: Path) -> None:
    result = export_review(review_runs, tmp_path / "all", 1000, seed=1, calibration=5)
    assert result.calibration == () and len(result.entries) == result.eligible
    with pytest.raises(ConfigError, match="--calibration"):
        export_review(review_runs, tmp_path / "neg", 3, seed=1, calibration=-1)
    assert not (tmp_path / "neg").exists(), "refused before anything is written"
    argv = ["review", "export", str(review_runs), "--sample", "3", "--out", str(tmp_path / "x")]
    assert main([*argv, "--calibration", "-2"]) == 2


def test_the_page_lists_calibration_packets_first(review_runs: Path, tmp_path: Path) -> None:
    result = export_review(review_runs, tmp_path, 4, seed=2, calibration=3)
    assert result.urls is not None
    token = result.urls["A"].split("#token=")[1]
    client = TestClient(create_app(tmp_path), base_url="http://127.0.0.1:8765")
    listed = client.get("/api/packets", headers={"x-review-token": token}).json()["packets"]
    assert [p["calibration"] for p in listed] == [True] * 3 + [False] * 4
    assert {p["packet_id"] for p in listed[:3]} == {e.packet_id for e in result.calibration}
    page = client.get("/").text
    assert "Calibration trajectory" in page and "calibration " in page


def _mark(event: EventTime) -> Mark:
    return Mark(status=event.status, step=event.step if event.status == "found" else None)


def _agreeing(label: RunLabels, reviewer: str, pid: str) -> ReviewLabel:
    adopted = {True: "yes", False: "no", None: "undecidable"}[label.adopted]
    return ReviewLabel(
        packet_id=pid,
        reviewer=reviewer,
        t_e=_mark(label.t_e),
        t_s=_mark(label.t_s),
        t_u=_mark(label.t_u),
        adopted=adopted,  # type: ignore[arg-type]
    )


def test_calibration_labels_never_enter_kappa_or_the_reference(
    review_runs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "review"
    result = export_review(review_runs, root, 6, seed=3, calibration=3)
    auto = {x.run_id: x for x in read_run_labels(review_runs / "labels.jsonl")}
    main_ids = {e.packet_id for e in result.entries}
    cal_ids = {e.packet_id for e in result.calibration}
    for entry in result.entries:  # the sample: unanimous, in agreement with the automatic labels
        for reviewer in "ABC":
            append_label(root, _agreeing(auto[entry.run_id], reviewer, entry.packet_id))
    # Calibration: everyone labels, C says the opposite about T_E every time, D joins in.
    for entry in result.calibration:
        for reviewer in "ABCD":
            label = _agreeing(auto[entry.run_id], reviewer, entry.packet_id)
            if reviewer == "C":
                label = ReviewLabel(
                    packet_id=entry.packet_id,
                    reviewer="C",
                    t_e=Mark(status="undecidable"),
                    t_s=Mark(status="undecidable"),
                    t_u=Mark(status="undecidable"),
                    adopted="undecidable",
                )
            append_label(root, label)

    report = agreement_report(root)
    assert report.packets == 6 and report.labelled_by_all == 6
    assert {r.packet_id for r in report.references} == main_ids
    assert all(r.status == "accepted" for r in report.references)
    kappa = {row.quantity: row for row in report.kappa}
    for row in kappa.values():
        assert row.result.subjects == 6 and row.unanimous == 6, row
    assert all(s.located_by_all == s.exact for s in report.steps)
    assert report.comparison.compared["A"] == 6

    cal = report.calibration
    assert cal.packets == 3
    rows = {r.reviewer: r for r in cal.rows}
    assert set(rows) == {"A", "B", "C", "D"} and all(r.labelled == 3 for r in rows.values())
    assert (rows["A"].agree["A"], rows["A"].pairs["A"]) == (3, 6), "agrees with B, not C"
    assert (rows["C"].agree["T_E"], rows["C"].pairs["T_E"]) == (0, 6)
    assert (rows["D"].agree["Z_S"], rows["D"].pairs["Z_S"]) == (6, 9)

    write_reference(root, report)
    written = [json.loads(x) for x in (root / "reference.jsonl").read_text().splitlines()]
    assert {r["packet_id"] for r in written} == main_ids and not cal_ids & main_ids
    assert {r["run_id"] for r in written} == {e.run_id for e in result.entries}

    assert main(["review", "agree", str(root)]) == 0
    printed = capsys.readouterr().out
    assert "calibration (3 packets" in printed and "3/6" in printed
