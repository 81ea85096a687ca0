"""Surface forms of single values: dates, cabins, bag counts, payment categories, item
options, statuses.

Every form keeps the value recoverable by a careful reader: a short date form appears
only when the same message already placed its month (or, for a weekday, its week), and a
unit or size spelled out (``1.5L`` → ``1.5 liters``, ``L`` → ``large``) never meets
another value of the same product option that reads the same (no τ² retail product lists
both ``1.5L`` and ``1.5 liters``, or both ``L`` and ``large``, for one option).
"""

from __future__ import annotations

import random
import re
from datetime import date
from typing import Any

MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
NUMBER_WORDS = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
]
ISO_DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})$")


def parse_date(value: Any) -> date | None:
    """The date an ISO ``YYYY-MM-DD`` string names, else ``None``."""
    match = ISO_DATE.match(value) if isinstance(value, str) else None
    if match is None:
        return None
    try:
        return date(int(match[1]), int(match[2]), int(match[3]))
    except ValueError:
        return None


def ordinal(n: int) -> str:
    """``17th``, ``1st``, ``22nd``."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def number(n: int, rng: random.Random) -> str:
    """``3`` or ``three``."""
    if 0 <= n < len(NUMBER_WORDS) and rng.random() < 0.5:
        return NUMBER_WORDS[n]
    return str(n)


class DateSpeller:
    """Spells the dates of one message, remembering which it has placed (month shown), so
    ``the 17th`` follows a date of the same month and a bare weekday follows a date at
    most six days earlier (and only next to a role word, which the caller supplies)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.placed: list[date] = []

    def spell(self, value: Any, *, role: bool = False, year: bool = False) -> str:
        """A form of ``value`` (non-dates are returned as they are)."""
        d = parse_date(value)
        if d is None:
            return str(value)
        month, wd, day = MONTHS[d.month - 1], WEEKDAYS[d.weekday()], d.day
        if year:
            return self.rng.choice(
                [
                    d.isoformat(),
                    f"{month} {day}, {d.year}",
                    f"{day} {month} {d.year}",
                    f"{d.month}/{day}/{d.year}",
                    f"{month[:3]} {day}, {d.year}",
                ]
            )
        forms = [
            f"{month} {day}",
            f"{month} {ordinal(day)}",
            f"{day} {month}",
            f"{d.month}/{day}",
            f"{d.month:02d}/{day:02d}",
            d.isoformat(),
            f"{wd}, {month} {day}",
            f"{wd[:3]} {month[:3]} {day}",
            f"{month} {day}, {d.year}",
        ]
        short: list[str] = []
        if any((p.year, p.month) == (d.year, d.month) for p in self.placed):
            short.append(f"the {ordinal(day)}")
        if role and any(1 <= (d - p).days <= 6 for p in self.placed):
            short.append(wd)
        if short and self.rng.random() < 0.4:
            return self.rng.choice(short)
        self.placed.append(d)
        return self.rng.choice(forms)


def nights(outbound: Any, back: Any) -> int | None:
    """Nights between two ISO dates, when the second is later."""
    a, b = parse_date(outbound), parse_date(back)
    if a is None or b is None or b <= a:
        return None
    return (b - a).days


def trip_length(n_nights: int, rng: random.Random) -> str:
    """``a 3-night trip`` or ``a 4-day trip``."""
    n = n_nights if rng.random() < 0.5 else n_nights + 1
    unit = "night" if n == n_nights else "day"
    return f"{'an' if str(n).startswith('8') or n in (11, 18) else 'a'} {n}-{unit} trip"


CABINS = {
    "basic_economy": ("basic economy", "Basic Economy", "basic-economy", "basic economy class"),
    "economy": ("economy", "Economy", "economy class", "Economy class"),
    "business": ("business", "Business", "business class", "Business Class"),
}


def cabin(value: Any, rng: random.Random) -> str:
    """``basic economy``, ``Economy``, ``business class``..."""
    forms = CABINS.get(str(value))
    return rng.choice(forms) if forms else str(value).replace("_", " ")


def bags(n: Any, rng: random.Random, *, paid: bool = False) -> str:
    """``2 checked bags``, ``two bags``, ``no paid bags``..."""
    if not isinstance(n, int):
        return str(n)
    noun = rng.choice(
        ("paid bags", "non-free bags", "bags you pay for")
        if paid
        else ("checked bags", "bags", "checked bags")
    )
    if n == 1:
        noun = noun.replace("bags", "bag")
    if n == 0 and rng.random() < 0.5:
        return f"no {noun}"
    return f"{number(n, rng)} {noun}"


CATEGORIES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "gift_card": (("gift card", "Gift Card", "gift-card"), ("gift cards",)),
    "certificate": (
        ("travel certificate", "certificate", "voucher", "travel voucher", "Travel Certificate"),
        ("certificates", "travel certificates", "vouchers"),
    ),
    "credit_card": (("credit card", "Credit Card", "credit-card"), ("credit cards",)),
    "paypal": (("PayPal", "PayPal account", "Paypal"), ("PayPal accounts",)),
}
NOUN_FORMS = {"paypal": ("PayPal account",)}
"""Forms that read as a countable noun (after ``a``)."""


def category(value: Any, rng: random.Random, *, plural: bool = False, noun: bool = False) -> str:
    """A payment category: ``gift card``/``gift cards``, ``travel certificate``/``voucher``
    (``noun``: a form that takes an article, ``a PayPal account``)."""
    forms = CATEGORIES.get(str(value))
    if forms is None:
        return str(value).replace("_", " ")
    if noun and str(value) in NOUN_FORMS:
        return rng.choice(NOUN_FORMS[str(value)])
    return rng.choice(forms[1] if plural else forms[0])


def article(word: str) -> str:
    """``a`` or ``an`` before ``word``."""
    return "an" if word[:1].lower() in "aeiou" else "a"


LETTER_SIZES = {
    "XS": "extra small",
    "S": "small",
    "M": "medium",
    "L": "large",
    "XL": "extra large",
    "XXL": "double extra large",
}
UNITS = (
    (re.compile(r"^(\d+(?:\.\d+)?)L$"), ("{n} liters", "{n} L", "{n}-liter")),
    (re.compile(r"^(\d+(?:\.\d+)?) liters?$"), ("{n}L", "{n} L")),
    (re.compile(r"^(\d+)ml$"), ("{n} ml", "{n} milliliters", "{n} mL")),
    (re.compile(r"^(\d+)mAh$"), ("{n} mAh",)),
    (re.compile(r"^(\d+(?:\.\d+)?)-inch$"), ("{n} inch", "{n} inches", '{n}"')),
    (re.compile(r"^(\d+) inch(?:es)?$"), ("{n}-inch", "{n} in")),
    (re.compile(r"^(\d+)\s?ft$"), ("{n} feet", "{n}-foot", "{n} ft")),
    (re.compile(r"^(\d+)mm$"), ("{n} mm", "{n} millimeters")),
    (re.compile(r"^(\d+)GB$"), ("{n} GB",)),
    (re.compile(r"^(\d+) hours$"), ("{n}-hour", "{n} hrs", "{n}h")),
    (re.compile(r"^(\d+)%$"), ("{n} percent",)),
    (re.compile(r"^(\d+)-piece$"), ("{n} piece", "{n} pieces")),
)


def _respell(value: str, rng: random.Random, *, caps: bool = True) -> str:
    """One surface form of an option value: units, hyphenation, and (``caps``, for a value
    standing alone in a list or table) capitalisation."""
    forms = [value]
    for pattern, templates in UNITS:
        match = pattern.match(value)
        if match:
            forms += [t.format(n=match[1]) for t in templates]
    if re.search(r"[a-z]-[a-z]", value):
        forms.append(value.replace("-", " "))
    elif re.fullmatch(r"[a-z]+ [a-z]+", value):
        forms.append(value.replace(" ", "-"))
    if caps and value.islower():
        forms += [value.title(), value.capitalize()]
    return rng.choice(forms)


def option_value(name: str, value: Any, rng: random.Random) -> str:
    """Just the value of an item option, respelled (``L`` → ``large``, ``1.5L`` → ``1.5 L``)."""
    text = str(value)
    if name == "size" and text in LETTER_SIZES:
        return rng.choice((text, LETTER_SIZES[text]))
    return _respell(text, rng, caps=False)


DESCRIPTIVE = {"color", "material", "style", "type", "design", "theme", "switch type"}
"""Options whose values describe the item on their own (``a black thermostat``)."""


def option(name: str, value: Any, rng: random.Random, *, prose: bool = True) -> tuple[str, bool]:
    """A phrase for an item option, and whether it reads as an adjective of the item
    (``full-size``, ``black``, ``not waterproof``) rather than a noun phrase naming the
    option (``size 9``, ``no backlight``). Outside prose (``prose`` false: a list item or
    table cell) ``name: value`` and capitalised values are possible too."""
    text = str(value)
    if text == "none":
        forms = [f"no {name}"] + ([] if prose else [f"without {name}", f"{name}: none"])
        return rng.choice(forms), False
    if text in ("yes", "no") and name in ("waterproof", "water resistance"):
        adjective = "waterproof" if name == "waterproof" else "water-resistant"
        return (adjective if text == "yes" else f"not {adjective}"), True
    if text in ("yes", "no"):
        if prose:
            return (name if text == "yes" else f"no {name}"), False
        return rng.choice(
            (f"{name}: {text}", f"{'with' if text == 'yes' else 'without'} {name}")
        ), False
    if name == "size" and text in LETTER_SIZES:
        word = LETTER_SIZES[text]
        return rng.choice(
            (
                (f"size {text}", False),
                (f"size {word}", False),
                (word, True),
                (f"{word} ({text})", True),
            )
        )
    descriptive = name in DESCRIPTIVE or (name == "size" and not text[:1].isdigit())
    if descriptive and rng.random() < 0.5:
        return _respell(text, rng, caps=not prose), True
    spelled = _respell(text, rng, caps=False)
    forms = [f"{name} {spelled}"] + ([] if prose else [f"{name}: {spelled}"])
    if not text[:1].isdigit() and name not in spelled.lower():
        forms.append(f"{spelled} {name}")
    return rng.choice(forms), False


STATUSES = {
    "cancelled": ("cancelled", "canceled", "Cancelled"),
    "pending (item modified)": (
        "pending (item modified)",
        "pending, with the item modified",
        "Pending (item modified)",
    ),
}


def status(value: Any, rng: random.Random) -> str:
    """A status word; ``None`` reads as ``none``/``not set``."""
    if value is None:
        return rng.choice(("none", "not set", "empty (none)"))
    text = str(value)
    forms = STATUSES.get(text) or (text, text.capitalize())
    return rng.choice(forms)


def money(amount: Any, rng: random.Random) -> str:
    """``$50`` or ``50 USD``."""
    return rng.choice((f"${amount}", f"{amount} USD", f"${amount}"))


def humanise(key: str) -> str:
    """``payment_method_id`` → ``payment method id``."""
    return key.replace("_", " ")
