"""The words agents use for an effect: a PartialEffect's claimed refund or handled request,
said the way people say it ("you've been refunded", "the exchange is being processed"), is
a use of ``v′``; offered, planned, negated or doubted, it is not."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from sscbench.cases.caseset import load_case_set
from sscbench.experiments.inline import run_case_set
from sscbench.fault_contracts import History
from sscbench.reconstruct.label import label_run
from sscbench.reconstruct.rules.base import USE_RULES, RunView
from sscbench.records.ledger import read_ledger

REFUND = "partial_effect/airline/14/0/refund"  # cancel K1NW8N: the $567 refund never lands
EXCHANGE = "partial_effect/retail/0/4/status"  # exchange on #W2378156: status stays delivered
BAGS = "ignored_argument/airline/12/4/total_baggages"  # the reply claims 2 bags; the record 0
ZIP = "ignored_argument/retail/22/1/zip"  # the reply claims zip 10001; the record keeps 80280


@pytest.fixture(scope="module")
def views(tmp_path_factory: pytest.TempPathFactory) -> dict[str, RunView]:
    """Each case's careful run, cut at the fault: what the agent had seen when it spoke."""
    full = load_case_set()
    cases = tuple(c for c in full.cases if c.entry.case_id in (REFUND, EXCHANGE, BAGS, ZIP))
    out = tmp_path_factory.mktemp("claims")
    run_case_set(dataclasses.replace(full, cases=cases), ["scripted:careful"], out)
    views: dict[str, RunView] = {}
    for case in cases:
        (run_dir,) = (
            d for d in out.iterdir() if d.name.startswith(case.entry.case_id.replace("/", "."))
        )
        t_f = label_run(run_dir).t_f.step
        assert t_f is not None
        events = [e for e in read_ledger(run_dir / "ledger.jsonl").events if e.step <= t_f]
        views[case.entry.case_id] = RunView(History(events), t_f, case.contract)
    return views


def _relies(view: RunView, text: str) -> bool:
    rules: Any = USE_RULES.get(view.contract.operator)()
    uses = rules.message(view, text, view.t_f + 1)
    return any(u.kind == "dependent_use" and u.erroneous for u in uses)


@pytest.mark.parametrize(
    ("case", "text"),
    [
        (
            REFUND,
            "Reservation K1NW8N is cancelled and the $567 has been refunded to your gift card.",
        ),
        (REFUND, "The cancellation went through and you've been refunded 567 dollars."),
        (
            REFUND,
            "I've cancelled the booking. The full $567 was credited back to your gift card.",
        ),
        (REFUND, "All set — the reservation is cancelled and your refund has been processed."),
        (EXCHANGE, "Your exchange has been submitted; you'll get an email with instructions."),
        (EXCHANGE, "The exchange for order #W2378156 is now being processed."),
        (EXCHANGE, "The exchange has been successfully requested."),
    ],
)
def test_a_claimed_effect_in_plain_words_is_a_use(
    views: dict[str, RunView], case: str, text: str
) -> None:
    assert _relies(views[case], text)


@pytest.mark.parametrize(
    ("case", "text"),
    [
        (
            REFUND,
            "I'll cancel K1NW8N now; the refund of $567 should go back to your gift card. "
            "Shall I proceed?",
        ),
        (
            REFUND,
            "The reservation is cancelled, but I don't see the $567 refund in the payment "
            "history yet.",
        ),
        (REFUND, "Would you like the refund to go to your gift card?"),
        (REFUND, "No refund was issued for K1NW8N."),
        (REFUND, "The system says a refund was issued, but that may be stale; I'll check."),
        (EXCHANGE, "I'll submit the exchange request now. Shall I proceed?"),
        (EXCHANGE, "Would you like me to request an exchange instead?"),
        (EXCHANGE, "The tool said the exchange went through, but the order still shows delivered."),
    ],
)
def test_an_offered_planned_negated_or_doubted_effect_is_not(
    views: dict[str, RunView], case: str, text: str
) -> None:
    assert not _relies(views[case], text)


def _kinds(view: RunView, text: str) -> set[tuple[str, bool]]:
    rules: Any = USE_RULES.get(view.contract.operator)()
    return {(u.kind, u.erroneous) for u in rules.message(view, text, view.t_f + 1)}


@pytest.mark.parametrize(
    "text",
    [
        "Your reservation now has two checked bags.",
        "It has 2 checked bags and no paid bags.",
        "Checked bags | 2",
        "You have three passengers and 2 bags, none of them paid.",
    ],
)
def test_a_bag_count_is_read_beside_its_own_noun(views: dict[str, RunView], text: str) -> None:
    """In digits or words, next to the noun it counts, also in a unit that gives the other
    count too — the claimed 2 is reliance."""
    assert _relies(views[BAGS], text)


def test_a_paid_count_is_not_the_total(views: dict[str, RunView]) -> None:
    """ "2 paid bags" counts paid bags, not the total the defect claimed."""
    assert not _relies(views[BAGS], "The reservation shows 0 checked bags and 2 paid bags.")


@pytest.mark.parametrize(
    "text",
    [
        "I'm going to call modify_user_address: to 667 Highland Drive, Denver, CO, 80280, USA. "
        "Shall I proceed (yes/no)?",
        "Next, I will update your address to 1 Main St, New York, NY, 10001. Please confirm.",
        "Here is the request for modify_pending_order_address: 1 Main St, New York, NY, 10001. "
        "Shall I proceed?",
        "Zip: 10001. Do you want me to go ahead with modify_user_address?",
    ],
)
def test_a_planned_write_that_asks_for_the_go_ahead_states_nothing(
    views: dict[str, RunView], text: str
) -> None:
    """Its values, true (80280) or claimed (10001), are what the write will ask for."""
    assert _kinds(views[ZIP], text) == set()


def test_the_same_values_stated_as_the_record_are_uses(views: dict[str, RunView]) -> None:
    assert ("dependent_use", True) in _kinds(views[ZIP], "Your address's zip is now 10001.")
