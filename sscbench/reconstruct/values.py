"""Finding values in agent text, whatever their surface form.

Agents do not echo record values verbatim: a date is "May 17", "the 17th", "5/17",
"Friday"; a category is "gift cards"; an option is "full-size", "no backlight", "size 10",
"1.5 liters". Every finder here maps text to *canonical* values so that a mention can be
compared with a fact's true and injected values, and reports the character span so that
stance and binding can look around it.

Normalisation (:func:`fold`) folds Unicode compatibility forms, every dash and hyphen
variant, curly quotes and markdown emphasis, and lower-cases; offsets in the folded text
are those of the original (the fold never changes length).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from datetime import date
from functools import lru_cache

_DASHES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d"
_QUOTES = {"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u00a0": " "}
_FOLD = str.maketrans({**{d: "-" for d in _DASHES}, **_QUOTES, "*": " ", "`": " ", "_": " "})


@lru_cache(maxsize=1 << 14)  # the rules ask the same few patterns of every unit
def occurs(pattern: re.Pattern[str], folded: str) -> bool:
    """Whether ``pattern`` occurs in ``folded`` (text already :func:`fold`-ed), once per
    pattern and text: every fact model of a run asks the same questions of the same units."""
    return pattern.search(folded) is not None


@lru_cache(maxsize=1 << 16)
def fold(text: str) -> str:
    """Lower-case, dash-, quote- and emphasis-folded text of the same length.

    Underscores become spaces (``basic_economy`` and "basic economy" match), markdown ``*``
    and backticks become spaces. Characters whose compatibility form is longer than one
    character are kept as they are, so offsets stay valid.
    """
    if text.isascii():
        return text.translate(_FOLD).lower()
    out = []
    for ch in text.translate(_FOLD):
        norm = unicodedata.normalize("NFKC", ch)
        out.append(norm if len(norm) == 1 else ch)
    return "".join(out).lower()


@dataclass(frozen=True)
class Mention:
    """A value found in text: canonical value, span in the text, and how it was written."""

    value: str
    start: int
    end: int
    form: str
    """``full`` (the whole value), ``day`` (day of month only), ``weekday``, ``derived``,
    ``referred`` (a bare day resolved to the earlier-mentioned date it refers back to)."""


# -- dates --------------------------------------------------------------------------------

_MONTHS = {
    m: i
    for i, names in enumerate(
        (
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ),
        start=1,
    )
    for m in names
}
_MONTH = r"(?P<month>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_ORD = r"(?:st|nd|rd|th)?"
_DAY = r"(?P<day>[0-3]?\d)" + _ORD
_YEAR = r"(?:,?\s*(?P<year>\d{4}))?"
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_DATE_PATTERNS = (
    re.compile(r"\b(?P<year>\d{4})-(?P<mon>\d{1,2})-(?P<day>\d{1,2})\b"),
    re.compile(r"\b(?P<mon>\d{1,2})/(?P<day>\d{1,2})(?:/(?P<year>\d{2}|\d{4}))?\b"),
    re.compile(r"\b" + _MONTH + r"\s+" + _DAY + r"\b" + _YEAR),
    re.compile(r"\b" + _DAY + r"\s+(?:of\s+)?" + _MONTH + _YEAR + r"\b"),
)
_RANGES = (
    # "May 25-30", "May 25 to 30": the second day of a range in one month
    re.compile(
        r"\b" + _MONTH + r"\s+(?P<d1>[0-3]?\d)" + _ORD + r"\s*(?:-|to|through|until)\s*"
        r"(?P<day>[0-3]?\d)" + _ORD + r"\b(?!\s*(?:am|pm|:))"
    ),
    # "2024-05-10/11"
    re.compile(r"\b(?P<year>\d{4})-(?P<mon>\d{1,2})-(?P<d1>\d{1,2})/(?P<day>\d{1,2})\b"),
)
_DAY_ONLY = re.compile(r"\bthe\s+(?P<day>[0-3]?\d)(?:st|nd|rd|th)\b")
_WEEKDAY = re.compile(
    r"\b(?P<wd>monday|tuesday|wednesday|thursday|friday|saturday|sunday|mon|tue|tues|wed|"
    r"thu|thur|thurs|fri|sat|sun)\b\.?"
)
_WD_INDEX = {"mon": 0, "tue": 1, "wed": 2, "thu": 3, "fri": 4, "sat": 5, "sun": 6}


def _as_date(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


_WEEKDAY_DAY = re.compile(
    r"\b(?P<wd>monday|tuesday|wednesday|thursday|friday|saturday|sunday|mon|tue|tues|wed|thu|"
    r"thur|thurs|fri|sat|sun)\.?,?\s+(?:the\s+)?(?P<day>[0-3]?\d)(?:st|nd|rd|th)\b"
)


def find_dates(text: str, year: int, month: int | None = None) -> list[Mention]:
    """Dates in ``text`` (folded): full dates (any common form; ``year`` fills a missing
    year), a bare day of month ("the 17th") and weekday names ("Friday"). With a ``month``
    hint, a weekday with a day ("Saturday the 25th") is resolved to the one date near that
    month it can be."""
    return list(_find_dates(text, year, month))


@lru_cache(maxsize=1 << 12)  # every fact model of a run asks it of the same units
def _find_dates(text: str, year: int, month: int | None) -> tuple[Mention, ...]:
    """:func:`find_dates` once per text, year and month (the mentions are frozen)."""
    return tuple(_dates_in(text, year, month))


def _dates_in(text: str, year: int, month: int | None) -> list[Mention]:
    low = fold(text)
    out: list[Mention] = []
    taken: list[tuple[int, int]] = []
    if month is not None:
        for m in _WEEKDAY_DAY.finditer(low):
            wd, day = _WD_INDEX[m["wd"][:3]], int(m["day"])
            fits = [
                d
                for mo in (month - 1, month, month + 1)
                if 1 <= mo <= 12
                and (d := _as_date(year, mo, day)) is not None
                and d.weekday() == wd
            ]
            if len(fits) == 1:
                taken.append((m.start(), m.end()))
                out.append(Mention(fits[0].isoformat(), m.start(), m.end(), "full"))
    for pattern in _DATE_PATTERNS:
        for m in pattern.finditer(low):
            if any(s < m.end() and m.start() < e for s, e in taken):
                continue
            groups = m.groupdict()
            month = int(groups["mon"]) if groups.get("mon") else _MONTHS[groups["month"]]
            y = groups.get("year")
            y_num = year if not y else (2000 + int(y) if len(y) == 2 else int(y))
            d = _as_date(y_num, month, int(groups["day"]))
            if d is None:
                continue
            taken.append((m.start(), m.end()))
            out.append(Mention(d.isoformat(), m.start(), m.end(), "full"))
    for pattern in _RANGES:
        for m in pattern.finditer(low):
            groups = m.groupdict()
            month = int(groups["mon"]) if groups.get("mon") else _MONTHS[groups["month"]]
            y = groups.get("year")
            d = _as_date(int(y) if y else year, month, int(groups["day"]))
            if d is not None:
                start = m.start("day")
                out.append(Mention(d.isoformat(), start, m.end("day"), "full"))
                taken.append((start, m.end("day")))
    for m in _DAY_ONLY.finditer(low):
        if not any(s <= m.start() < e for s, e in taken):
            out.append(Mention(str(int(m["day"])), m.start(), m.end(), "day"))
    for m in _WEEKDAY.finditer(low):
        word = m.group(0).rstrip(".")
        attached = any(0 <= s - m.end() <= 3 for s, _ in taken)
        if attached or any(s <= m.start() < e for s, e in taken):
            continue  # "Friday, May 17": part of the full date
        if word in ("sat", "sun", "wed"):
            continue  # English words; abbreviations count only attached to a date
        out.append(Mention(str(_WD_INDEX[m["wd"][:3]]), m.start(), m.end(), "weekday"))
    return sorted(out, key=lambda x: x.start)


def weekday_of(iso: str) -> str:
    """The weekday index (0 = Monday) of an ISO date, as :func:`find_dates` reports it."""
    return str(date.fromisoformat(iso).weekday())


# -- money ----------------------------------------------------------------------------------

_MONEY = re.compile(
    r"(?:\$|usd\s?)\s?(?P<a>\d{1,3}(?:,\d{3})+|\d+)(?:\.(?P<c>\d{1,3}))?(?P<k>k\b)?"
    r"|\b(?P<b>\d{1,3}(?:,\d{3})+|\d+)(?:\.(?P<d>\d{1,2}))?\s?(?:dollars|usd)\b"
)


def money_key(amount: float) -> str:
    """Canonical money value: cents as an integer string."""
    return str(round(amount * 100))


def find_money(text: str) -> list[Mention]:
    """Amounts of money: "$1,234.50", "USD 150", "150 dollars", "$1.2k"."""
    low = fold(text)
    out = []
    for m in _MONEY.finditer(low):
        whole = (m["a"] or m["b"]).replace(",", "")
        fraction = m["c"] or m["d"] or "0"
        if m["k"]:
            amount = float(f"{whole}.{fraction}") * 1000
        elif len(fraction) > 2:
            continue  # "$1.234" is not an amount of money
        else:
            amount = int(whole) + int(fraction.ljust(2, "0")) / 100
        out.append(Mention(money_key(amount), m.start(), m.end(), "full"))
    return out


# -- words and option values ------------------------------------------------------------------

_UNITS = {
    "l": "l",
    "liter": "l",
    "liters": "l",
    "litre": "l",
    "litres": "l",
    "ml": "ml",
    "milliliter": "ml",
    "milliliters": "ml",
    "ft": "ft",
    "foot": "ft",
    "feet": "ft",
    "'": "ft",
    "in": "in",
    "inch": "in",
    "inches": "in",
    '"': "in",
    "gb": "gb",
    "gig": "gb",
    "gigs": "gb",
    "gigabyte": "gb",
    "gigabytes": "gb",
    "tb": "tb",
    "tera": "tb",
    "terabyte": "tb",
    "terabytes": "tb",
    "mm": "mm",
    "mah": "mah",
    "lb": "lb",
    "lbs": "lb",
    "pound": "lb",
    "pounds": "lb",
    "mp": "mp",
    "megapixel": "mp",
    "megapixels": "mp",
    "w": "w",
    "watt": "w",
    "watts": "w",
    "hour": "h",
    "hours": "h",
    "hr": "h",
    "hrs": "h",
    "h": "h",
    "degree": "deg",
    "degrees": "deg",
    "°": "deg",
    "cup": "cup",
    "cups": "cup",
    "bar": "bar",
    "piece": "piece",
    "pieces": "piece",
    "pc": "piece",
    "pcs": "piece",
    "x": "x",
    "percent": "%",
    "pct": "%",
}
_SYNONYMS = {
    "gray": "grey",
    "colour": "color",
    "fullsize": "full size",
    "wifi": "wi fi",
    "t shirt": "tshirt",
    "tee": "tshirt",
}
_TOKEN = re.compile(r"\d+(?:\.\d+)?|[a-z]+|%|\"|'|°|\+")
_NUMBER_WORDS = {
    "zero": "0",
    "one": "1",
    "two": "2",
    "three": "3",
    "four": "4",
    "five": "5",
    "six": "6",
    "seven": "7",
    "eight": "8",
    "nine": "9",
    "ten": "10",
}


def stem(word: str) -> str:
    """A crude English stem: enough to match plurals and -ing/-ed forms of one word."""
    for suffix in ("ings", "ing", "ies", "es", "ed", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            base = word[: -len(suffix)]
            return base + "y" if suffix == "ies" else base
    return word


@dataclass(frozen=True)
class Token:
    """A canonical token and the span of text it came from."""

    text: str
    start: int
    end: int


def tokens(text: str) -> list[Token]:
    """Canonical tokens of ``text`` (see :func:`_tokens`)."""
    return list(_tokens(text))


@lru_cache(maxsize=1 << 14)
def _tokens(text: str) -> tuple[Token, ...]:
    """Canonical tokens of ``text``: folded, numbers split from units ("1000ml" → 1000 ml),
    thousands separators dropped, units and synonyms mapped, words stemmed."""
    low = fold(text)
    low = re.sub(r"(?<=\d),(?=\d{3}\b)", "", low)  # keeps length? no: handled below
    out: list[Token] = []
    src = fold(text)
    # Work on the original folded string for offsets; remove thousands separators by
    # joining number tokens that a comma split.
    raw = [(m.group(0), m.start(), m.end()) for m in _TOKEN.finditer(src)]
    merged: list[tuple[str, int, int]] = []
    for word, start, end in raw:
        if (
            merged
            and word.isdigit()
            and len(word) == 3
            and merged[-1][0].replace(".", "").isdigit()
            and src[merged[-1][2] : start] == ","
        ):
            prev = merged.pop()
            merged.append((prev[0] + word, prev[1], end))
            continue
        merged.append((word, start, end))
    for word, start, end in merged:
        if word in _NUMBER_WORDS:
            word = _NUMBER_WORDS[word]
        elif word in _UNITS and out and out[-1].text.replace(".", "").isdigit():
            word = _UNITS[word]
        elif not word.replace(".", "").isdigit() and word not in ("%", '"', "'", "°", "+"):
            word = stem(word)
        elif word in ('"', "'", "°") and not (out and out[-1].text.replace(".", "").isdigit()):
            continue
        elif word in ('"', "'", "°"):
            word = _UNITS[word]
        out.append(Token(word, start, end))
    del low
    return tuple(out)


def value_tokens(value: str) -> list[str]:
    """Canonical token sequence of a record value (synonyms applied)."""
    return list(_value_tokens(value))


@lru_cache(maxsize=1 << 14)
def _value_tokens(value: str) -> tuple[str, ...]:
    """Canonical token sequence of a record value (synonyms applied)."""
    text = fold(value)
    for a, b in _SYNONYMS.items():
        text = re.sub(rf"\b{re.escape(a)}\b", b, text)
    return tuple(t.text for t in _tokens(text))


def _synonym_tokens(seq: list[Token]) -> list[Token]:
    """Apply single-word synonyms to a token sequence (spans kept)."""
    out = []
    for t in seq:
        mapped = _SYNONYMS.get(t.text)
        if mapped is None or " " in mapped:
            out.append(t)
            continue
        out.append(Token(mapped, t.start, t.end))
    return out


def find_phrase(text_tokens: list[Token], phrase: list[str]) -> list[tuple[int, int]]:
    """Spans (start, end) where ``phrase`` occurs as consecutive tokens; a phrase may also
    occur written as one word ("fullsize", "60%" split or not)."""
    if not phrase:
        return []
    seq = _synonym_tokens(text_tokens)
    words = [t.text for t in seq]
    out = []
    n = len(phrase)
    for i in range(len(words) - n + 1):
        if words[i : i + n] == phrase:
            out.append((seq[i].start, seq[i + n - 1].end))
    if n > 1:
        joined = "".join(phrase)
        for t in seq:
            if t.text == joined:
                out.append((t.start, t.end))
    return sorted(set(out))


# -- categories and record words --------------------------------------------------------------

CATEGORY_FORMS: dict[str, tuple[str, ...]] = {
    "gift_card": (r"gift[\s-]?cards?", r"gc"),
    "certificate": (
        r"(?:travel\s+)?certificates?",
        r"(?:travel\s+|e-?)?vouchers?",
        r"certs?",
        r"(?:travel|flight|airline)\s+credits?",
    ),
    "credit_card": (r"credit[\s-]?cards?", r"(?:visa|mastercard|amex|american express|discover)"),
    "paypal": (r"pay[\s-]?pal",),
}


def find_category(text: str, category: str) -> list[Mention]:
    """Mentions of a payment category ("gift card(s)", "travel certificate", "voucher")."""
    low = fold(text)
    out = []
    for form in CATEGORY_FORMS.get(category, (re.escape(fold(category)),)):
        for m in re.finditer(rf"\b{form}\b", low):
            out.append(Mention(category, m.start(), m.end(), "full"))
    return out
