"""Run ids are safe in file names and URLs, stable, and unchanged for airline and retail."""

from __future__ import annotations

import re

from sscbench.envs.domain import load_domain
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
