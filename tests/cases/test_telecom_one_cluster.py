"""docs/measurement.md §3.5: telecom's LineUsage cases are one entity cluster because every
τ² telecom task is the same customer's line — a property of τ²'s data, checked here."""

from __future__ import annotations

import json
import re
from pathlib import Path

from sscbench.envs.domain import load_domain

MANIFEST = Path(__file__).resolve().parents[2] / "sscbench" / "data" / "cases" / "manifest.json"


def test_every_telecom_task_is_one_customers_phone() -> None:
    domain = load_domain("telecom")
    phones = {p.phone_number for p in domain.base_db.lines}
    named = {phone for task in domain.tasks for phone in phones if phone in task.model_dump_json()}
    assert len(domain.tasks) == 114
    assert named == {"555-123-2002"}
    (line,) = (x for x in domain.base_db.lines if x.phone_number == "555-123-2002")
    assert line.line_id == "L1002"


def test_every_shipped_line_usage_case_is_that_line() -> None:
    text = MANIFEST.read_text(encoding="utf-8")
    clusters = {
        c["cluster"] for c in json.loads(text)["cases"] if re.match(r"line_usage/", c["case_id"])
    }
    assert clusters == {"L1002"}
