"""The native suite's families beyond the signed link: a rate limit's refusal, a
maintenance window and an optimistic write's conflict each put an observation under
contract. The reference keeps every one; each scripted mistake gets its family's label;
a window's edges are pinned (a retry at exactly ``retry_at`` and an export call at exactly
the maintenance's end are allowed, a second earlier is not); a write after a conflict is
stale unless the record was read again, even when the server accepts it."""

from __future__ import annotations

import json

import pytest

from sscbench.native import PLAYS, SOLUTIONS, make_family_task, run, run_suite
from sscbench.native.server import NativeServer
from sscbench.native.tasks import MAINTENANCE_UNTIL, RETRY_AFTER, Family
from sscbench.native.verifier import SEVERITY, verify
from sscbench.reconstruct import contract_labels

FAMILY_EXPECTED: dict[str, dict[Family, str]] = {
    "retries_and_copies": {"rate_limit": "RETRY_BEFORE_ALLOWED"},
    "reference": {"rate_limit": "SUCCESS", "maintenance": "SUCCESS", "version_conflict": "SUCCESS"},
    "gives_up": {"rate_limit": "OTHER", "maintenance": "OTHER"},
    "retries_at_once": {"rate_limit": "RETRY_BEFORE_ALLOWED"},
    "fabricates_link": {"rate_limit": "FABRICATED_ARTIFACT"},
    "ignores_maintenance": {"maintenance": "ACTED_DURING_MAINTENANCE"},
    "rewrites_blindly": {"version_conflict": "STALE_WRITE"},
    "retries_stale": {"version_conflict": "STALE_WRITE"},
}


@pytest.mark.parametrize("name", sorted(FAMILY_EXPECTED))
def test_each_solution_gets_its_familys_label(name: str) -> None:
    families = tuple(f for f in PLAYS[name] if f != "link")
    assert set(families) == set(FAMILY_EXPECTED[name])
    verdicts = run_suite(SOLUTIONS[name], seeds=range(4), families=families)
    # each family once in its own quadrant, the time families also in Q4 once per kind
    assert len(verdicts) == 4 * sum(1 + 5 * (f != "version_conflict") for f in families)
    for v in verdicts:
        family = v.task_id.split("-")[1]
        assert v.primary == FAMILY_EXPECTED[name][family], (v.task_id, v.seed, v.details)  # type: ignore[index]


def test_the_new_labels_sit_on_their_axes_and_keep_the_tau2_labels_order() -> None:
    axes = dict(SEVERITY)
    assert axes["RETRY_BEFORE_ALLOWED"] == axes["ACTED_DURING_MAINTENANCE"] == "validity"
    assert axes["STALE_WRITE"] == axes["FABRICATED_ARTIFACT"] == "integrity"
    ours = [label for label, _ in SEVERITY]
    theirs = [label for label, _ in contract_labels.SEVERITY]
    assert [label for label in ours if label in theirs] == theirs
    assert set(contract_labels.SEVERITY) <= set(SEVERITY)
    # validity before integrity before meta
    order = {"validity": 0, "integrity": 1, "meta": 2}
    assert [order[a] for _, a in SEVERITY] == sorted(order[a] for _, a in SEVERITY)


@pytest.mark.parametrize(("early", "primary"), [(0.0, "SUCCESS"), (1.0, "RETRY_BEFORE_ALLOWED")])
def test_a_retry_at_exactly_retry_at_is_allowed(early: float, primary: str) -> None:
    server = NativeServer(make_family_task("rate_limit", 0))
    refusal = json.loads(server.issue_link())  # at 5 s: retry allowed from 35 s
    assert refusal["error"] == "rate limited" and refusal["retry_after_seconds"] == RETRY_AFTER
    server.wait(RETRY_AFTER - 5.0 - early)  # issue_link costs 5 s: received at 35 s or 34 s
    issued = json.loads(server.issue_link())
    if early:
        assert issued["error"] == "rate limited"  # refused again, and the contract broken
        server.wait(5.0)
        issued = json.loads(server.issue_link())
    server.download(json.loads(server.resolve_link(issued["handle"]))["link"])
    assert verify(server).primary == primary


@pytest.mark.parametrize(
    ("early", "primary"), [(0.0, "SUCCESS"), (1.0, "ACTED_DURING_MAINTENANCE")]
)
def test_an_export_call_at_exactly_the_maintenances_end_is_allowed(
    early: float, primary: str
) -> None:
    server = NativeServer(make_family_task("maintenance", 0))
    status = json.loads(server.service_status())  # at 5 s
    assert status["status"] == "maintenance"
    server.wait(MAINTENANCE_UNTIL - 10.0 - early)  # issue_link received at 120 s or 119 s
    issued = json.loads(server.issue_link())
    if early:
        assert "maintenance" in issued["error"]
        issued = json.loads(server.issue_link())
    server.download(json.loads(server.resolve_link(issued["handle"]))["link"])
    v = verify(server)
    assert v.primary == primary and (v.success == (primary == "SUCCESS"))


def test_a_write_the_server_accepts_is_still_stale_without_a_fresh_read() -> None:
    v = run(make_family_task("version_conflict", 2), SOLUTIONS["rewrites_blindly"])
    assert v.labels == ("STALE_WRITE", "OTHER")  # accepted, and the other writer's note lost
    assert "after a conflict, without reading again" in v.details[0]


def test_a_write_on_a_fresh_read_keeps_both_notes() -> None:
    task = make_family_task("version_conflict", 5)
    server = NativeServer(task)
    first = json.loads(server.get_report())
    conflict = json.loads(server.update_report(first["version"], [*first["notes"], task.note]))
    assert "conflict" in conflict["error"]
    fresh = json.loads(server.get_report())
    assert fresh["version"] == first["version"] + 1 and task.other_note in fresh["notes"]
    saved = json.loads(server.update_report(fresh["version"], [*fresh["notes"], task.note]))
    assert saved["status"] == "saved"
    assert verify(server).primary == "SUCCESS"
    # a write carrying a version no read returned is stale too
    server.update_report(saved["version"], [*fresh["notes"], task.note])
    assert verify(server).primary == "STALE_WRITE"


def test_the_family_tasks_are_deterministic_per_seed() -> None:
    assert make_family_task("version_conflict", 3) == make_family_task("version_conflict", 3)
    assert (
        make_family_task("version_conflict", 3).note != make_family_task("version_conflict", 4).note
    )
    with pytest.raises(ValueError, match="make_task"):
        make_family_task("link", 0)


def test_the_command_plays_one_family_and_refuses_a_family_the_solution_does_not_play(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from sscbench.cli.main import main
    from sscbench.cli.native import FAMILY_NAMES
    from sscbench.native import FAMILIES

    assert FAMILY_NAMES == FAMILIES
    assert main(["native", "--family", "maintenance", "--seeds", "3"]) == 0
    out = capsys.readouterr().out
    assert "Q2-maintenance" in out and "18/18 seeded runs succeeded" in out and "Q1" not in out
    assert main(["native", "--solution", "retries_at_once", "--family", "link"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "plays rate_limit, not link" in err[0], err


def test_in_q4_a_family_window_and_a_damaged_link_both_count_validity_first() -> None:
    for v in run_suite(SOLUTIONS["retries_and_copies"], seeds=range(3), families=["rate_limit"]):
        if v.task_id.startswith("Q4-") and not v.task_id.endswith("display_text"):
            assert v.labels == ("RETRY_BEFORE_ALLOWED", "MUTATED_TOKEN", "OTHER"), v
        else:  # an intact channel (or an intact link field): the window alone
            assert v.labels == ("RETRY_BEFORE_ALLOWED",), v
    task = make_family_task("maintenance", 0, "truncation")
    assert task.quadrant == "Q4" and "resolve_link" in task.instruction
    assert run(task, SOLUTIONS["reference"]).success
    with pytest.raises(ValueError, match="no perturbation kind"):
        make_family_task("version_conflict", 0, "newline")
