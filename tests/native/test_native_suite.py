"""The native suite: the reference solutions pass every seeded run (the oracle check), the
quadrants' truth table holds, validity takes precedence over integrity, the window's end
is exclusive, and the perturbations are deterministic per seed."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from sscbench.fault_contracts.perturbations import KINDS
from sscbench.native import FAMILIES, PLAYS, SOLUTIONS, catalogue, make_task, run, run_suite
from sscbench.native.server import NativeServer
from sscbench.native.verifier import verify


def test_the_catalogue_covers_four_quadrants_five_perturbations_and_four_families() -> None:
    tasks = catalogue(0)
    assert {t.quadrant for t in tasks} == {"Q1", "Q2", "Q3", "Q4"}
    assert {t.perturbation for t in tasks if t.perturbation} == set(KINDS)
    assert {t.family for t in tasks} == set(FAMILIES)
    assert len({t.task_id for t in tasks}) == len(tasks) == 25
    assert len(catalogue(0, ["link"])) == 12  # the signed-link tasks are as they were
    assert [t.task_id for t in catalogue(0, ["version_conflict"])] == ["Q3-version_conflict"]
    rate_limit = [t for t in catalogue(0, ["rate_limit"])]
    assert [(t.quadrant, t.perturbation) for t in rate_limit] == [
        ("Q2", None),
        *(("Q4", kind) for kind in KINDS),
    ]


def test_the_reference_solution_passes_every_seeded_run() -> None:
    verdicts = run_suite(SOLUTIONS["reference"], seeds=range(10))
    assert len(verdicts) == 250
    failed = [(v.task_id, v.seed, v.details) for v in verdicts if not v.success]
    assert failed == []


EXPECTED = {
    # one contract broken at a time: time-pressured quadrants fail on validity, damaging
    # channels on integrity, and the display text is never the link
    "fetch_then_prepare": {
        "Q1": "SUCCESS",
        "Q2": "EXPIRED_BEFORE_USE",
        "Q3": "SUCCESS",
        "Q4": "EXPIRED_BEFORE_USE",
    },
    "copies_delivered": {
        "Q1": "SUCCESS",
        "Q2": "SUCCESS",
        "Q3": "MUTATED_TOKEN",
        "Q4": "MUTATED_TOKEN",
    },
    "trusts_display": {q: "MUTATED_TOKEN" for q in ("Q1", "Q2", "Q3", "Q4")},
    "expired_and_damaged": {
        "Q1": "MUTATED_TOKEN",
        "Q2": "EXPIRED_BEFORE_USE",
        "Q3": "MUTATED_TOKEN",
        "Q4": "EXPIRED_BEFORE_USE",
    },
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_four_quadrant_truth_table(name: str) -> None:
    assert PLAYS[name] == ("link",)
    for v in run_suite(SOLUTIONS[name], seeds=range(3), families=PLAYS[name]):
        quadrant = v.task_id.split("-")[0]
        want = EXPECTED[name][quadrant]
        if name == "copies_delivered" and v.task_id.endswith("display_text"):
            want = "SUCCESS"  # the link field is intact there; only the label differs
        assert v.primary == want, (v.task_id, v.seed, v.details)


def test_validity_takes_precedence_over_integrity_and_both_are_kept() -> None:
    v = run(make_task("Q4", "truncation", 3), SOLUTIONS["expired_and_damaged"])
    assert v.primary == "EXPIRED_BEFORE_USE" and v.axis == "validity"
    assert v.labels == ("EXPIRED_BEFORE_USE", "MUTATED_TOKEN", "OTHER")


def test_a_later_success_does_not_offset_an_earlier_violation() -> None:
    server = NativeServer(make_task("Q3", "newline", 0))
    issued = json.loads(server.issue_link())
    server.download(issued["link"])  # damaged: refused
    server.download(json.loads(server.resolve_link(issued["handle"]))["link"])  # succeeds
    v = verify(server)
    assert v.primary == "MUTATED_TOKEN" and not v.success and "SUCCESS" not in v.labels


@pytest.mark.parametrize(("waits", "primary"), [(9, "SUCCESS"), (10, "EXPIRED_BEFORE_USE")])
def test_a_use_at_exactly_issue_plus_ttl_is_expired(waits: int, primary: str) -> None:
    server = NativeServer(make_task("Q2", None, 0))
    server.prepare_export()
    issued = json.loads(server.issue_link())  # at 95 s: valid in [95, 155)
    for _ in range(waits):
        link = json.loads(server.resolve_link(issued["handle"]))["link"]  # 5 s each
    server.download(link)  # 10 s: received at 150 s (valid) or 155 s (expired)
    assert verify(server).primary == primary


def test_artifacts_and_perturbations_are_deterministic_per_seed() -> None:
    def delivered(seed: int) -> list[str]:
        out = []
        for task in catalogue(seed, ["link"]):
            out.append(json.loads(NativeServer(task).issue_link())["link"])
        return out

    assert delivered(4) == delivered(4)
    assert delivered(4) != delivered(5)
    counts = Counter(v.primary for v in run_suite(SOLUTIONS["reference"], seeds=[7]))
    assert counts == {"SUCCESS": 25}


def test_the_command_runs_the_oracle_check(capsys: pytest.CaptureFixture[str]) -> None:
    from sscbench.cli.main import main
    from sscbench.cli.native import SOLUTION_NAMES

    assert tuple(SOLUTIONS) == SOLUTION_NAMES
    assert main(["native", "--seeds", "2"]) == 0
    assert "50/50 seeded runs succeeded" in capsys.readouterr().out
    assert main(["native", "--solution", "rewrites_blindly", "--seeds", "2"]) == 0
    out = capsys.readouterr().out
    assert "0/2 seeded runs succeeded" in out and "STALE_WRITE" in out
    assert main(["native", "--seeds", "0"]) == 2
    assert "--seeds must be at least 1" in capsys.readouterr().err
