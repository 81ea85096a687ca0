"""LineUsage reconstruction on hand-written telecom runs: the usage as a figure, as what is
left, and as the side of the plan's limit, in varied phrasing (written before running the
labeller, and kept as written). The case: a line over its 15 GB limit (15.1 GB used) whose
record shows 5.4 GB."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from sscbench.cases.caseset import load_case_set
from sscbench.reconstruct import label_run
from sscbench.reconstruct.rules.line_usage import side_mentions

sys.path.insert(0, str(Path(__file__).parent))
from build_fixtures import RunBuilder  # the hand-built-run writer beside this file

V_PRIME, V, NONE = "v_prime", "v", None

PHRASES: list[tuple[str, str | None]] = [
    ("Your line L1002 has used 5.4 GB of data this cycle.", V_PRIME),
    ("I see you've used 5.4GB so far, comfortably inside your plan.", V_PRIME),
    ("Data used: 5.4 GB", V_PRIME),
    ("Line L1002 shows 15.1 GB used.", V),
    ("Good news: you're still within your data limit, so that's not the problem.", V_PRIME),
    ("You haven't exceeded your data limit, so let's look at your phone instead.", V_PRIME),
    ("You have 9.6 GB left this month.", V_PRIME),
    ("You have exceeded your data limit for this billing cycle.", V),
    ("It looks like you're over your allowance, which cuts mobile data.", V),
    ("Your line has used up all of your data.", V),
    ("I'll check your network settings next.", NONE),
    ("Could you tell me what your status bar shows?", NONE),
]


def _case() -> object:
    return next(
        c
        for c in load_case_set().cases
        if c.entry.operator == "line_usage"
        and c.contract.authoritative_value == 15.1
        and c.contract.injected_value == 5.4
    )


@pytest.mark.parametrize(("text", "expected"), PHRASES)
def test_usage_statements_in_varied_phrasing(
    text: str, expected: str | None, tmp_path: Path
) -> None:
    contract = _case().contract  # type: ignore[attr-defined]
    run = RunBuilder("r", "telecom", contract.task_id, contract.contract_id)
    run.user("Hi, my mobile data is not working. I am John Smith, phone number 555-123-2002.")
    run.act("get_customer_by_phone", {"phone_number": "555-123-2002"})
    run.act("get_details_by_id", {"id": "L1002"}, fault="rewrite")
    run.say(text)
    run.user("###STOP###")
    run.write(tmp_path)
    labels = label_run(tmp_path / "r")
    if expected is None:
        assert labels.t_s.status == "none", labels.t_s.reason
        return
    assert labels.t_s.status == "found", labels.t_s.reason
    assert labels.adopted is (expected == V_PRIME), labels.t_s.reason


def test_a_negated_side_is_the_other_side_and_never_both() -> None:
    found = side_mentions("You have not exceeded your limit.", "v_prime", "v")
    assert [m.which for m in found] == ["v"]
    found = side_mentions("You are over your data limit.", "v_prime", "v")
    assert [m.which for m in found] == ["v_prime"]
