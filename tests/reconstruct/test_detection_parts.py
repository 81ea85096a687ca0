"""Parts of use detection that whole-run fixtures exercise only indirectly: binding of a
value to the reference attached after it, conditions on a value, values attributed to the
user, derived timing of a return, category counts and totals, clipped payment ids, and the
"from" side of an item replacement."""

from __future__ import annotations

from pathlib import Path

import pytest

from sscbench.reconstruct import label_run
from sscbench.reconstruct.binding import nearest
from sscbench.reconstruct.detector import USER_SOURCE
from sscbench.reconstruct.rules.item_option import _replaced_side
from sscbench.reconstruct.rules.pay_aggregates import Readings
from sscbench.reconstruct.rules.pay_source import masked
from sscbench.reconstruct.rules.return_date import _timing
from sscbench.reconstruct.segment import Unit
from sscbench.reconstruct.stance import stance_of
from sscbench.reconstruct.values import find_money, fold


def _refs(text: str, names: dict[str, str]) -> list[tuple[frozenset[str], int, int]]:
    out = []
    for form, entity in names.items():
        at = text.index(form)
        out.append((frozenset({entity}), at, at + len(form)))
    return sorted(out, key=lambda r: r[1])


@pytest.mark.parametrize(
    ("text", "value", "expected"),
    [
        # the next conjunct's apposition names the value, not the earlier balance
        ("a gift card, GC1, with $203, and a travel certificate, GC2", "travel certificate", "B"),
        # a reference glued to the value after an arrow from the previous one
        ("GC1 ($203) → cert GC2 + more", "cert", "B"),
        # plain prose: the last reference before the value
        ("GC1 ($203) is a certificate and GC2 too", "certificate", "A"),
    ],
)
def test_nearest_prefers_an_attached_reference_after_a_break(
    text: str, value: str, expected: str
) -> None:
    names = {"GC1": "A", "$203": "A", "GC2": "B"}
    at = text.index(value)
    assert nearest(_refs(text, names), at, at + len(value), text) == frozenset({expected})


@pytest.mark.parametrize(
    ("text", "value", "stance"),
    [
        ("If 5/11 were real you'd have flown home before leaving.", "5/11", "condition"),
        ("If May 16 is right, the trip is four days.", "May 16", "condition"),
        ("Your return is May 16, if I read it right.", "May 16", "assert"),
        ("The return is listed as May 11, so it can't be.", "May 11", "flag"),
    ],
)
def test_conditions_on_a_value_and_bare_impossibility(text: str, value: str, stance: str) -> None:
    at = text.index(value)
    assert stance_of(text, at, at + len(value)) == stance


@pytest.mark.parametrize(
    ("text", "value", "stance"),
    [
        # an action said to be impossible is a consequence the agent draws from the value
        ("The order is cancelled, so an exchange isn't possible.", "cancelled", "assert"),
        ("Since it shipped by ground, modifying it is not possible.", "ground", "assert"),
        ("It's economy, and it is impossible to upgrade online.", "economy", "assert"),
        # the value itself said to be impossible, or the record doubted, is a flag
        ("A return on May 11 isn't possible: you leave May 14.", "May 11", "flag"),
        ("The record says cancelled, but that may be stale.", "cancelled", "flag"),
        ("It shows cancelled; the data might be outdated.", "cancelled", "flag"),
        ("It shows cancelled, which could be a glitch.", "cancelled", "flag"),
        # a yes/no question about the value checks it; an offer does not
        ("Is your keyboard the 60% size?", "60%", "verify"),
        ("Did you order the black one?", "black", "verify"),
        ("Is there anything else I can do for your 60% keyboard?", "60%", "assert"),
    ],
)
def test_an_impossible_action_is_not_doubt_but_stale_data_is(
    text: str, value: str, stance: str
) -> None:
    at = text.index(value)
    assert stance_of(text, at, at + len(value)) == stance


@pytest.mark.parametrize(
    ("before", "attributed"),
    [
        ("user says he returns", True),
        ("you told me you fly back", True),
        ("per the customer, the date is", True),
        ("the record lists the return on", False),
        ("you fly back on", False),
    ],
)
def test_values_attributed_to_the_user(before: str, attributed: bool) -> None:
    assert (USER_SOURCE.search(fold(before + " ")) is not None) == attributed


def _unit(text: str) -> Unit:
    return Unit(text, (), 0, -1, "sentence", text)


@pytest.mark.parametrize(
    ("text", "which"),
    [
        ("Both directions of this trip are already behind us.", "v_prime"),
        ("All of its flights have departed, so nothing can be moved.", "v_prime"),
        ("You've already flown back, so there is nothing left to change.", "v_prime"),
        ("Your return flight is still ahead of you.", "v"),
        ("The flight back hasn't departed yet.", "v"),
        ("Your return is on a Thursday.", None),
    ],
)
def test_a_return_placed_in_the_past_or_the_future(text: str, which: str | None) -> None:
    # policy date 2024-05-15: the injected return (May 11) has passed, the true one (May 16)
    # has not
    found = _timing(_unit(text), "2024-05-11", "2024-05-16")
    assert [vm.which for vm in found] == ([] if which is None else [which])
    # both dates on the same side of today: the statement cannot tell them apart
    assert _timing(_unit(text), "2024-05-18", "2024-05-20") == []


METHODS = {
    "gift_card_1": {"source": "gift_card", "amount": 198.0},
    "gift_card_2": {"source": "gift_card", "amount": 129.0},
    "certificate_3": {"source": "certificate", "amount": 500.0},
    "certificate_4": {"source": "certificate", "amount": 250.0},
    # the target: truly a certificate, shown as a gift card
    "certificate_5": {"source": "gift_card", "amount": 250.0},
    "credit_card_6": {"source": "credit_card"},
}


@pytest.mark.parametrize(
    ("expression", "which"),
    [
        ("198 + 129 + 250", "v_prime"),  # the gift cards, counting the target
        ("198 + 129", "v"),  # the gift cards without it
        ("500 + 250 + 250", "v"),  # the certificates with it
        ("500 + 250", "v_prime"),  # the certificates without it
        ("198 + 500", None),  # no category's members
        ("2 * (350 - 122)", None),  # not a sum of balances
    ],
)
def test_sums_of_a_categorys_balances(expression: str, which: str | None) -> None:
    readings = Readings(METHODS, "certificate_5", "certificate", "gift_card")
    assert readings.of_sum(expression) == which


@pytest.mark.parametrize(
    ("text", "which"),
    [
        ("Your gift cards come to $577 in total.", ["v_prime"]),
        ("You have 3 gift cards on file.", ["v_prime"]),
        ("You have two gift cards saved, $327 altogether.", ["v", "v"]),
        ("You have two certificates on file.", ["v_prime"]),
        ("You can apply one certificate per reservation.", []),  # a rule, not a count
        ("From what's on file you can use at most two certificates.", []),
        ("On file: only one credit card or one certificate can be used.", []),
        ("You have 1 gift card? No: two certificates per booking is the limit.", []),
        (
            "You have two certificates on file, but only one certificate per reservation.",
            ["v_prime"],
        ),
        ("Gift cards and certificates together: $1,327.", []),  # both categories
    ],
)
def test_counts_and_totals_of_a_category(text: str, which: list[str]) -> None:
    readings = Readings(METHODS, "certificate_5", "certificate", "gift_card")
    assert [vm.which for vm in readings.in_unit(text)] == which


def test_a_clipped_id_with_another_category_word_states_that_category() -> None:
    prefixes = {"4856383": "certificate", "7504069": "certificate"}
    text = "GC 4856383 → $5 used; cert 7504069 → $250; certificate_4856383."
    out = masked(text, prefixes)
    assert out.startswith("gc ")  # a gift-card word on a certificate's digits stays
    assert "cert 7504069" not in out and "certificate 4856383" not in out  # own ids blanked
    assert len(out) == len(fold(text))


def test_money_in_thousands() -> None:
    assert [m.value for m in find_money("$1.2k, $2k, $1,536, $1.234")] == [
        "120000",
        "200000",
        "153600",
    ]


@pytest.mark.parametrize(
    ("text", "value", "expected"),
    [
        ("puzzle: 1500-pc intermediate → 500-pc beginner (1096508426)", "1500", True),
        ("changed from 1500 pieces to 500 pieces, item 1096508426", "1500", True),
        ("the 500-pc beginner (1096508426)", "500", False),
        ("1500-pc. Then → 1096508426", "1500", False),  # a sentence between
    ],
)
def test_the_from_side_of_a_replacement(text: str, value: str, expected: bool) -> None:
    end = text.index(value) + len(value)
    assert _replaced_side(text, end, {"1096508426"}) is expected


@pytest.mark.parametrize(
    ("text", "value", "stance"),
    [
        ("I'd like to be sure it has actually gone through before I say so.", "gone", "verify"),
        ("Before I tell you it's done, I'm checking once more.", "done", "verify"),
        ("Let me check your reservation: your return is May 18.", "May 18", "assert"),
    ],
)
def test_a_check_that_governs_the_value(text: str, value: str, stance: str) -> None:
    at = text.index(value)
    assert stance_of(text, at, at + len(value)) == stance


def test_lowercase_sentences_are_split_but_not_abbreviations() -> None:
    from sscbench.reconstruct.segment import segment

    texts = [u.text for u in segment("ok found it. the one in #W1 is size 10. apt. 4 is fine")]
    assert texts == ["ok found it.", "the one in #W1 is size 10.", "apt. 4 is fine"]


def test_storage_in_casual_units() -> None:
    from sscbench.reconstruct.values import tokens, value_tokens

    assert value_tokens("64GB") == ["64", "gb"]
    assert [t.text for t in tokens("with 64 gig")][-2:] == ["64", "gb"]
    assert [t.text for t in tokens("2 terabytes")] == ["2", "tb"]


@pytest.mark.parametrize(
    ("text", "which"),
    [
        ("size 8 would be 4 sizes smaller than the pair you ordered", ["v_prime"]),
        ("size 8 is 2 sizes smaller than yours", ["v"]),
        ("a size 14 is two sizes larger than yours", ["v_prime"]),
        ("size 8 is 3 sizes smaller than yours", []),  # neither 10 nor 12
    ],
)
def test_an_option_derived_from_a_difference(text: str, which: list[str]) -> None:
    from sscbench.reconstruct.rules.item_option import _relative

    assert [vm.which for vm in _relative(text, "size", "12", "10")] == which
    assert _relative(text, "color", "red", "blue") == []  # not numeric


def test_a_total_of_one_method_is_its_balance() -> None:
    methods = {
        "gift_card_1": {"source": "gift_card", "amount": 128.0},
        "certificate_2": {"source": "gift_card", "amount": 500.0},  # target: truly a cert
    }
    readings = Readings(methods, "certificate_2", "certificate", "gift_card")
    # Under v the gift cards are just gift_card_1: "$128 in total" is its balance.
    assert readings.in_unit("your gift cards: $128 in total") == []
    # Under v′ they are both: $628 is a total only that reading gives.
    assert [vm.which for vm in readings.in_unit("your gift cards: $628 in total")] == ["v_prime"]
    assert [vm.which for vm in readings.in_unit("so u have 2 gift cards")] == ["v_prime"]


BLIND2 = Path(__file__).parents[1] / "fixtures" / "reconstruction_blind2"


@pytest.mark.parametrize(
    ("run", "step", "erroneous", "why"),
    [
        # a cancellation planned on top of the claimed upgrade, made without a read
        ("wec04", 17, True, "next step of a plan"),
        # a calculate pricing the one variant that keeps the believed size ("same size")
        ("ioc01", 21, True, "keeps the injected size"),
        # "yep correct, same day" for a return on the outbound's day
        ("rdc07", 12, False, "return on the outbound day"),
    ],
)
def test_uses_that_exist_only_through_derivation(
    run: str, step: int, erroneous: bool, why: str
) -> None:
    labels = label_run(BLIND2 / run)
    assert labels.t_s.step == step
    first = [u for u in labels.uses if u["step"] == step]
    assert first and first[0]["erroneous"] is erroneous and why in first[0]["reason"]


def test_an_item_the_user_picked_from_an_offer_is_not_a_use_of_the_option() -> None:
    # "the bagless one": the new vacuum keeps the true features only because it is the one
    # bagless canister on offer.
    labels = label_run(BLIND2 / "ioc08")
    assert labels.t_s.status == "none" and labels.adopted is False
