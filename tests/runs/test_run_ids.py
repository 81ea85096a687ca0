"""Run ids are safe in file names and URLs, stable, and unchanged for airline and retail."""

from __future__ import annotations

import re
from pathlib import Path

from sscbench.cases.caseset import load_case_set, slug
from sscbench.envs.domain import load_domain
from sscbench.file_names import MAX_NAME
from sscbench.runs.layout import run_id_for, task_token

SAFE = re.compile(r"[A-Za-z0-9_.+-]+")


def test_airline_and_retail_run_ids_are_unchanged_byte_for_byte() -> None:
    assert run_id_for("airline", "7", "scripted:careful", 0) == "airline-7-scripted.careful-s0"
    assert run_id_for("retail", "12", "openai:gpt-4o", 3) == "retail-12-openai.gpt-4o-s3"
    for domain in ("airline", "retail"):
        for task in load_domain(domain).tasks:
            assert task_token(task.id) == task.id


def test_a_telecom_task_id_maps_to_a_documented_safe_token() -> None:
    task = "[mobile_data_issue]airplane_mode_on|data_mode_off[PERSONA:None]"
    token = task_token(task)
    assert token == "mobile_data_issue.airplane_mode_on.data_mode_off.PERSONA.None.h2ab55949"
    run_id = run_id_for("telecom", task, "scripted:gold", 0)
    assert run_id == f"telecom-{token}-scripted.gold-s0"
    assert SAFE.fullmatch(run_id)


def test_every_telecom_task_gets_a_distinct_safe_token() -> None:
    ids = [t.id for t in load_domain("telecom").tasks]
    tokens = [task_token(i) for i in ids]
    assert all(SAFE.fullmatch(t) for t in tokens)
    assert len(set(tokens)) == len(ids)
    assert tokens == [task_token(i) for i in ids]  # stable


def test_ids_differing_only_in_replaced_characters_stay_apart() -> None:
    assert task_token("a|b") != task_token("a:b")
    assert task_token("a|b").startswith("a.b.h")


def _longest_telecom_case_id() -> tuple[str, str]:
    task = max((t.id for t in load_domain("telecom").tasks), key=len)
    return task, f"device_reading/telecom/{task}/airplane_mode"


def test_a_long_telecom_id_gives_a_run_directory_the_file_system_accepts(tmp_path: Path) -> None:
    """The longest telecom task spells out a dozen faults: its case's run id (with a long
    agent and a mitigation), its clean run id and its case file name stay under the
    255-byte name limit, can be created, and stay distinct from a sibling that differs
    only at the end."""
    task, case_id = _longest_telecom_case_id()
    assert len(case_id) > MAX_NAME  # the test is about ids that need bounding
    agent = "openai-compatible+verify_before_write"
    names = [
        run_id_for("telecom", task, agent, 10, case_id),
        run_id_for("telecom", task, agent, 10),
        slug(case_id) + ".witness.json",
    ]
    for name in names:
        assert len(name.encode()) <= 255 - len(".incomplete-99")
        assert SAFE.fullmatch(name)
        (tmp_path / name).mkdir()
    sibling = case_id[:-1] + "X"
    assert run_id_for("telecom", task, agent, 0, sibling) != run_id_for(
        "telecom", task, agent, 0, case_id
    )
    assert slug(sibling) != slug(case_id)


def test_every_shipped_case_keeps_its_file_name_and_run_id() -> None:
    """Bounding changes no name that was within the limit: every shipped case file is
    named by the plain slug of its case id, and its run ids by the plain safe form."""
    for case in load_case_set(None).cases:
        case_id = case.entry.case_id
        assert case.entry.contract == f"cases/{slug(case_id)}.yaml"
        if len(case_id) <= MAX_NAME:
            plain = re.sub(r"[^A-Za-z0-9_.+-]", "_", case_id)
            assert slug(case_id) == plain
            head = re.sub(r"[^A-Za-z0-9_.+-]", ".", case_id)
            assert run_id_for("x", "t", "scripted:gold", 0, case_id) == f"{head}-scripted.gold-s0"
