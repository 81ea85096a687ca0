"""ReturnDate uses: stating or deriving a reservation's return date; calls on that date.

The return date shows as a date in any form ("May 18", "5/18", "2024-05-18"), as a bare
day or a weekday when the text says it is the return ("back on the 18th", "you fly home
Saturday"), or derived as the trip's length ("a 3-night trip"). It is tied to the
reservation by its id, its flight numbers, the heading or list it sits under, or the
dialogue's focus; a date that other visible reservations share is not attributed without
such a tie. A flight search or status call on the return date is a use when its route (or
flight) is the reservation's return leg; an update that keeps the return flights on a date
relies on that date.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from sscbench.fault_contracts.history import Delivered
from sscbench.reconstruct.binding import CLAUSE_BREAK, RESERVATION_ID, Binding, RefIndex
from sscbench.reconstruct.detector import FactModel, Use, ValueMention, Which, call_use
from sscbench.reconstruct.rules.airline_policy import policy_now
from sscbench.reconstruct.rules.base import (
    USE_RULES,
    RunView,
    UseRules,
    by_text,
    record_phrase,
)
from sscbench.reconstruct.segment import Unit
from sscbench.reconstruct.values import Mention, find_dates, fold, occurs, weekday_of
from sscbench.records.events import AgentMessage, AgentToolCall, UserMessage

SEARCH_TOOLS = ("search_direct_flight", "search_onestop_flight")
RETURN_CUE = re.compile(
    r"\b(?:return\w*|back|inbound|home(?:bound)?|second\s+leg|way\s+back|fly(?:ing)?\s+"
    r"back|come\s+back|coming\s+back|last\s+(?:leg|flight|day))\b"
)
_TRIP = re.compile(
    r"\b(?P<n>\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten)[\s-]"
    r"(?P<unit>day|night)s?\b(?=[^.?!]{0,30}\b(?:trip|stay|visit|away|vacation|holiday|"
    r"itinerary|journey|there)\b)"
)
_RELATIVE = re.compile(
    r"\b(?P<n>\d|a|one|two|three|the)?\s*days?\s+(?P<dir>before|after|earlier|later)\s+"
    r"(?:than\s+)?(?:your|the|you)\s+(?:outbound|departure|leave|leaving|depart\w*|"
    r"fly\s+out|flight\s+out|first\s+(?:flight|leg)|go|set\s+off)\b"
)
"""The return placed relative to the outbound: "one day before your outbound"."""
_SAME_DAY = re.compile(r"\b(?:(?:the|that)\s+)?same\s+(?:day|date)\b")
_WORDS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
}


def reservations(view: RunView, step: int) -> dict[str, dict[str, Any]]:
    """The latest delivered record of each reservation before ``step``."""
    return view.latest(step, "reservation_id", "flights")


def flight_numbers(records: dict[str, dict[str, Any]]) -> set[str]:
    """Flight numbers in the records: weak references (many reservations share a flight)."""
    return {
        str(f.get("flight_number"))
        for data in records.values()
        for f in data.get("flights") or []
        if isinstance(f, dict)
    }


def seen_flight_numbers(view: RunView, step: int) -> set[str]:
    """Every flight number in delivered observations and call arguments before ``step``:
    tokens shaped like a reservation id that are known to be flights."""
    cached = view.notes.get("flight_numbers")
    per_step: list[tuple[int, set[str]]] = cached if isinstance(cached, list) else []
    if not isinstance(cached, list):
        for d in view.history.delivered:
            found: set[str] = set(_record_flight_numbers(d) if d.parsed else ())
            _flight_numbers_into(d.call.arguments, found)
            per_step.append((d.step, found))
        view.notes["flight_numbers"] = per_step
    out: set[str] = set()
    for at, numbers in per_step:
        if at < step:
            out |= numbers
    return out


FLIGHTS_BY_TEXT: dict[str, frozenset[str]] = {}
"""The flight numbers of a parsed record by its text (:func:`~.base.by_text`)."""


def _record_flight_numbers(d: Delivered) -> frozenset[str]:
    """:func:`_flight_numbers_into` of a delivered record's data, once per process for each
    text."""

    def walk() -> frozenset[str]:
        out: set[str] = set()
        _flight_numbers_into(d.data, out)
        return frozenset(out)

    return by_text(FLIGHTS_BY_TEXT, d.observation.content, walk)


def _flight_numbers_into(data: Any, out: set[str]) -> None:
    """Add every scalar leaf of ``data`` whose flattened path ends in ``flight_number`` (a
    key ``flight_number``, or one ending ``.flight_number``), without building the paths."""
    if isinstance(data, dict):
        for key, value in data.items():
            if isinstance(value, dict | list):
                _flight_numbers_into(value, out)
            elif str(key).rsplit(".", 1)[-1] == "flight_number":
                out.add(str(value))
    elif isinstance(data, list):
        for value in data:
            if isinstance(value, dict | list):
                _flight_numbers_into(value, out)


def known_ids(view: RunView, step: int) -> set[str]:
    """Reservation ids the agent has seen, read or not (e.g. listed in a user record)."""
    ids: set[str] = set()
    for _, data in view.records(step):
        if isinstance(data, dict) and isinstance(data.get("reservations"), list):
            ids.update(r for r in data["reservations"] if isinstance(r, str))
    return ids


NEW_BOOKING = (
    "book reservation",
    "new reservation",
    "new booking",
    "book a new",
    "book you a new",
    "booked a new",
    "new trip",
)
"""Words that put a sentence about a reservation still to be made (another entity)."""


def reservation_lexicon(records: dict[str, dict[str, Any]], ids: set[str]) -> dict[str, set[str]]:
    """Ids and flight numbers → the reservations they name; new-booking words → "new"."""
    lexicon: dict[str, set[str]] = {form: {"new reservation"} for form in NEW_BOOKING}
    for rid in ids | set(records):
        lexicon.setdefault(rid, set()).add(rid)
    for rid, data in records.items():
        for flight in data.get("flights") or []:
            number = flight.get("flight_number") if isinstance(flight, dict) else None
            if isinstance(number, str):
                lexicon.setdefault(number, set()).add(rid)
    return lexicon


class ReturnDateRules(UseRules):
    """The return segment date(s) of one reservation."""

    def _pairs(self, view: RunView) -> list[tuple[str, str, str]]:
        c = view.contract
        return [
            (p, str(c.authoritative_value[p]), str(c.injected_value[p])) for p in c.target.paths
        ]

    def model(self, view: RunView, step: int) -> FactModel:
        """References: reservation ids and flight numbers; values: the return dates."""
        c = view.contract
        rid = c.target.entity_id
        records = reservations(view, step)
        lexicon = reservation_lexicon(records, known_ids(view, step) | {rid})
        pairs = self._pairs(view)
        record = records.get(rid) or {}
        indexes = [int(p.split(".")[1]) for p, _, _ in pairs]
        # Legs as the faulted record showed them and as the latest record shows them (a
        # flight change may have renumbered the segments).
        faulted = reservations(view, view.t_f + 1).get(rid) or {}
        return_numbers: set[str] = set()
        outbound: list[dict[str, Any]] = []
        for rec in (faulted, record):
            ret, out = _split_legs(rec, indexes)
            return_numbers |= {fold(str(f.get("flight_number"))) for f in ret}
            outbound += out
        outbound_numbers = {fold(str(f.get("flight_number"))) for f in outbound} - return_numbers
        first_out = next(
            (str(f.get("date")) for f in _split_legs(record, indexes)[1]),
            None,
        )
        holders: dict[str, set[str]] = {}
        for other, data in records.items():
            for flight in data.get("flights") or []:
                if isinstance(flight, dict):
                    holders.setdefault(str(flight.get("date")), set()).add(other)
        year, month = int(pairs[0][2][:4]), int(pairs[0][2][5:7])
        injected = {vp for _, _, vp in pairs}
        true = {v for _, v, _ in pairs}

        def role(unit: Unit) -> bool:
            framed = fold(unit.framed)
            return occurs(RETURN_CUE, framed) or any(n in framed for n in return_numbers)

        def find(unit: Unit) -> list[ValueMention]:
            explicit = record_phrase(unit)
            if explicit is not None and (
                explicit["id"] != rid or explicit["path"] not in c.target.paths
            ):
                return []
            bound: Binding | None = "target" if explicit is not None else None
            found: list[ValueMention] = []
            cue = explicit is not None or role(unit)
            low = fold(unit.text)
            shift_said = occurs(RELATIVE_SHIFT, low)
            for m in find_dates(unit.text, year, month):
                if m.form == "day" and BACK_REFERENCE.match(low[m.end : m.end + 40]):
                    m = _referred(m, view, step, year, month, return_numbers, outbound_numbers)
                leg = _leg(low, m.start, return_numbers, outbound_numbers)
                if leg == "outbound":
                    continue  # the date of another leg of the trip
                which = _which(m, injected, true, cue or m.form == "referred" or leg is not None)
                # "moving your return back a day would put it on Friday the 17th":
                # a date shifted from the (believed) return date.
                if (
                    which is None
                    and shift_said
                    and cue
                    and m.form == "full"
                    and _near(m.value, injected)
                    and not _near(m.value, true)
                ):
                    which = "v_prime"
                if which is None:
                    continue
                weak = m.form != "full"
                found.append(
                    ValueMention(
                        m,
                        which,
                        "return date",
                        decisive=not weak,
                        bound=bound,
                        needs_binding=weak or which == "v",
                    )
                )
            if first_out is not None and not found:
                found.extend(_derived(unit, first_out, min(injected), min(true), role(unit)))
            if not found:
                found.extend(_timing(unit, max(injected), max(true)))
            return found

        return FactModel(
            target=rid,
            index=RefIndex(
                lexicon,
                weak=flight_numbers(records),
                shapes=(RESERVATION_ID,),
                ignore=seen_flight_numbers(view, step),
            ),
            find=find,
            holders=lambda value: frozenset(holders.get(value, set())),
            label="return date",
        )

    def call(self, view: RunView, call: AgentToolCall) -> list[Use]:
        """A search, status check or update that uses the return date."""
        c = view.contract
        rid = c.target.entity_id
        record = reservations(view, call.step).get(rid)
        if record is None or call.name == "get_reservation_details":
            return []
        flights = record.get("flights") or []
        out = []
        for path, v, vp in self._pairs(view):
            index = int(path.split(".")[1])
            segment = flights[index] if index < len(flights) else {}
            args = call.arguments
            if call.name in SEARCH_TOOLS:
                leg = {
                    (segment.get("origin"), segment.get("destination")),
                    (record.get("destination"), record.get("origin")),
                }
                route = (args.get("origin"), args.get("destination"))
                if route not in leg or _flown_by_other(
                    view, call.step, rid, route, args.get("date")
                ):
                    continue
                dates = [args.get("date")]
            elif call.name == "get_flight_status":
                if args.get("flight_number") != segment.get("flight_number"):
                    continue
                dates = [args.get("date")]
            elif call.name == "update_reservation_flights" and args.get("reservation_id") == rid:
                dates = [
                    f.get("date")
                    for f in args.get("flights") or []
                    if isinstance(f, dict)
                    and f.get("flight_number") == segment.get("flight_number")
                ]
            else:
                continue
            for d in dates:
                if (
                    call.name in SEARCH_TOOLS
                    and d not in (v, vp)
                    and _shifted(d, vp)
                    and not _user_stated(view, call.step, str(d))
                    and _relative_shift_said(view, call.step)
                ):
                    out.append(
                        call_use(
                            call.step,
                            True,
                            f"{call.name} searches {d}, shifted from the injected "
                            f"{path} ({vp}) that no user message named",
                        )
                    )
                elif d == vp:
                    out.append(
                        call_use(
                            call.step,
                            True,
                            f"{call.name} uses the injected {path} ({vp})",
                        )
                    )
                elif d == v:
                    out.append(
                        call_use(
                            call.step,
                            False,
                            f"{call.name} uses the true {path} ({v})",
                        )
                    )
        return out[:1]


def _split_legs(
    record: dict[str, Any], indexes: list[int]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(return segments, outbound segments) of a reservation record: by the fact's segment
    indexes while they exist, else from the first segment leaving the destination."""
    flights = [f for f in record.get("flights") or [] if isinstance(f, dict)]
    if flights and all(i < len(flights) for i in indexes):
        chosen = set(indexes)
    else:
        turn = next(
            (i for i, f in enumerate(flights) if f.get("origin") == record.get("destination")),
            len(flights),
        )
        chosen = set(range(turn, len(flights)))
    ret = [f for i, f in enumerate(flights) if i in chosen]
    return ret, [f for i, f in enumerate(flights) if i not in chosen]


def _flown_by_other(view: RunView, step: int, rid: str, route: tuple[Any, Any], day: Any) -> bool:
    """Does another visible reservation fly that route (or its legs' ends) on that day? Then
    the search may be about it."""
    for other, data in reservations(view, step).items():
        if other == rid:
            continue
        flights = [f for f in data.get("flights") or [] if isinstance(f, dict)]
        ends = {
            (data.get("origin"), data.get("destination")),
            (data.get("destination"), data.get("origin")),
        }
        for f in flights:
            if f.get("date") == day and (
                (f.get("origin"), f.get("destination")) == route or route in ends
            ):
                return True
    return False


RELATIVE_SHIFT = re.compile(
    r"\b(?:(?:one|a|two|three|\d)\s+days?\s+(?:later|earlier|after|before|sooner|back|"
    r"forward)|(?:back|forward|later|earlier|up)\s+(?:by\s+)?(?:one|a|two|three|\d)\s+days?|next\s+day|day\s+(?:after|before)|push\w*\s+(?:it\s+|that\s+)?(?:back|out)|"
    r"move\w*\s+(?:it\s+|that\s+)?(?:up|back|forward|later|earlier)|postpon\w*|"
    r"delay\w*\s+by|extend\w*\s+by)\b"
)
"""Words that derive a new date from the current one ("one day later", "push it back")."""


def _relative_shift_said(view: RunView, step: int) -> bool:
    """Did the dialogue before ``step`` ask for a date relative to the current one?"""
    return any(
        isinstance(e, UserMessage | AgentMessage) and RELATIVE_SHIFT.search(fold(e.content))
        for e in view.history.events
        if e.step < step
    )


BACK_REFERENCE = re.compile(
    r"\W*(?:(?:that|which)\s+)?(?:you(?:'ve|\s+have)?|the\s+(?:user|customer|passenger))\s+"
    r"(?:mentioned|said|gave|told\s+(?:me|us)|asked\s+for|wanted|requested|named|quoted)\b"
    r"|\W*(?:as|like)\s+you\s+(?:said|mentioned|told\s+(?:me|us)|asked)\b"
    r"|\W*(?:from|on)\s+your\s+(?:ticket|message|itinerary|booking\s+confirmation)\b"
    r"|\W*(?:from\s+)?(?:earlier|before)\b"
)
"""After a bare day of month: the day refers back to a date said earlier ("the 20th you
mentioned", "the 20th, as you said", "the 20th from your ticket")."""


def _referred(
    m: Mention,
    view: RunView,
    step: int,
    year: int,
    month: int,
    back: set[str],
    out: set[str],
) -> Mention:
    """A bare day that refers back to an earlier-mentioned date, as that date: the one full
    date with that day of month said in a user or agent message before ``step`` (dates said
    of the outbound leg left out). Kept as a bare day when no such date, or more than one,
    was said (form ``referred`` marks a resolved one: the reference ties it to the trip's
    dates as firmly as a return cue)."""
    said: set[str] = set()
    for event in view.history.events:
        if event.step >= step:
            break
        if isinstance(event, UserMessage | AgentMessage):
            low = fold(event.content)
            for earlier in find_dates(event.content, year, month):
                if (
                    earlier.form == "full"
                    and str(date.fromisoformat(earlier.value).day) == m.value
                    and _leg(low, earlier.start, back, out) != "outbound"
                ):
                    said.add(earlier.value)
    if len(said) != 1:
        return m
    return Mention(said.pop(), m.start, m.end, "referred")


def _near(day: str, dates: set[str], most: int = 3) -> bool:
    """Is ``day`` a few days (not zero) from one of ``dates``?"""
    return any(_shifted(day, d, most) for d in dates)


def _shifted(day: Any, base: str, most: int = 3) -> bool:
    """Is ``day`` within ``most`` days of ``base`` (a date derived by a relative shift)?"""
    try:
        return 0 < abs((date.fromisoformat(str(day)) - date.fromisoformat(base)).days) <= most
    except ValueError:
        return False


def _user_stated(view: RunView, step: int, day: str) -> bool:
    """Did a user message before ``step`` name the date (in any form)?"""
    d = date.fromisoformat(day)
    for event in view.history.events:
        if event.step >= step:
            break
        if isinstance(event, UserMessage):
            for m in find_dates(event.content, d.year):
                if (m.form == "full" and m.value == day) or (
                    m.form == "day" and m.value == str(d.day)
                ):
                    return True
    return False


def _which(m: Mention, injected: set[str], true: set[str], cue: bool) -> Any:
    if m.form in ("full", "referred"):
        if m.value in injected:
            return "v_prime"
        return "v" if m.value in true and cue else None
    if not cue:
        return None
    if m.form == "day":
        days_vp = {str(date.fromisoformat(x).day) for x in injected}
        days_v = {str(date.fromisoformat(x).day) for x in true}
        if m.value in days_vp - days_v:
            return "v_prime"
        return "v" if m.value in days_v - days_vp else None
    if m.form == "weekday":
        wd_vp = {weekday_of(x) for x in injected}
        wd_v = {weekday_of(x) for x in true}
        if m.value in wd_vp - wd_v:
            return "v_prime"
        return "v" if m.value in wd_v - wd_vp else None
    return None


OUT_CUE = re.compile(r"\b(?:outbound|outgoing|onward|first\s+leg|way\s+out|fly(?:ing)?\s+out)\b")


def _leg(low: str, start: int, back: set[str], out: set[str]) -> str | None:
    """The leg a date belongs to: the nearest flight number or leg word before it, within
    the clause ("HAT188 EWR→IAH on May 28, returning HAT207 … on May 26")."""
    window = low[max(0, start - 60) : start]
    clause = CLAUSE_BREAK.split(window)[-1]
    best: tuple[int, str] | None = None
    for number in back | out:
        at = clause.rfind(number)
        if at >= 0 and (best is None or at > best[0]):
            best = (at, "return" if number in back else "outbound")
    for pattern, leg in ((RETURN_CUE, "return"), (OUT_CUE, "outbound")):
        for m in pattern.finditer(clause):
            if best is None or m.start() > best[0]:
                best = (m.start(), leg)
    return None if best is None else best[1]


def _lengths(days: int) -> set[int]:
    """Numbers an agent may give as the length of a trip whose return lies ``days`` after
    the outbound: nights (``days``) or days (``days + 1``), or their sizes when the return
    (wrongly) precedes the outbound."""
    return {days, days + 1, abs(days), abs(days) + 1}


def _derived(
    unit: Unit, first_out: str, injected: str, true: str, cue: bool = False
) -> list[ValueMention]:
    """Values derived from the return date: the trip's length ("a 3-night trip"), or the
    return's position relative to the outbound ("the day before you leave"; "same day" where
    the unit speaks of the return)."""
    try:
        out = date.fromisoformat(first_out)
        delta_vp = (date.fromisoformat(injected) - out).days
        delta_v = (date.fromisoformat(true) - out).days
    except ValueError:
        return []
    low = fold(unit.text)
    found = []

    def add(n_start: int, n_end: int, which: Which, label: str) -> None:
        mention = Mention(low[n_start:n_end], n_start, n_end, "derived")
        found.append(ValueMention(mention, which, label, decisive=False, needs_binding=True))

    for m in _TRIP.finditer(low):
        n = int(m["n"]) if m["n"].isdigit() else _WORDS[m["n"]]
        nights = n if m["unit"] == "night" else n - 1
        fits_vp = nights in _lengths(delta_vp) or n in {abs(delta_vp), abs(delta_vp) + 1}
        fits_v = nights in _lengths(delta_v) or n in {abs(delta_v), abs(delta_v) + 1}
        if fits_vp != fits_v:
            add(
                m.start(),
                m.end(),
                "v_prime" if fits_vp else "v",
                "trip length (from the return date)",
            )
    if cue and (delta_v == 0) != (delta_vp == 0):
        for m in _SAME_DAY.finditer(low):
            add(
                m.start(), m.end(), "v" if delta_v == 0 else "v_prime", "return on the outbound day"
            )
    for m in _RELATIVE.finditer(low):
        n = (
            1
            if m["n"] in (None, "a", "the", "one")
            else (int(m["n"]) if m["n"].isdigit() else _WORDS.get(m["n"], 0))
        )
        signed = -n if m["dir"] in ("before", "earlier") else n
        if signed == delta_vp != delta_v:
            add(m.start(), m.end(), "v_prime", "return date relative to the outbound")
        elif signed == delta_v != delta_vp:
            add(m.start(), m.end(), "v", "return date relative to the outbound")
    return found


_PAST = re.compile(
    r"\b(?:(?:all|both)\s+(?:of\s+)?(?:its|the|your|these|those|their)?\s*(?:flights|legs|"
    r"segments|directions)\b[^.;!?]{0,40}?\b(?:have|has|are|were)\s+(?:all\s+)?(?:already\s+)?"
    r"(?:departed|flown|been\s+flown|taken\s+off|completed|behind|in\s+the\s+past|over|"
    r"done|used)"
    r"|(?:trip|journey|travel|return(?:\s+(?:flight|leg|trip|segment)s?)?|flights?\s+back|"
    r"way\s+back|(?:whole|entire)\s+(?:trip|itinerary|reservation|booking))\s+(?:is|are|was|"
    r"were|has|have)\s+(?:already\s+)?(?:been\s+)?(?:behind|over|completed?|done|in\s+the\s+"
    r"past|flown|departed|taken\s+place|happened|past|used)"
    r"|already\s+(?:flown\s+(?:back|home)|returned|come\s+back|flew\s+back|travell?ed)"
    r"|no\s+(?:upcoming|remaining|future|unflown)\s+(?:segments?|flights?|legs?|travel))\b"
)
"""The return (or the whole trip) said to lie in the past."""
_FUTURE = re.compile(
    r"\b(?:(?:return(?:\s+(?:flight|leg|trip|segment)s?)?|flights?\s+back|way\s+back)\s+"
    r"(?:is|are)\s+(?:still\s+)?(?:upcoming|ahead(?:\s+of\s+you)?|in\s+the\s+future|yet\s+to"
    r"\s+(?:come|depart|fly))"
    r"|(?:return|flights?\s+back)\s+(?:has|have)(?:n'?t|\s+not)\s+(?:departed|flown|happened)"
    r"\s+yet)\b"
)
"""The return said to lie ahead."""


def _timing(unit: Unit, injected: str, true: str) -> list[ValueMention]:
    """The return placed in the past or the future ("both directions are already behind
    us"): derived from the return date against the policy's current date, when the injected
    and the true date fall on different sides of it."""
    low = fold(unit.text)
    if _PAST.search(low) is None and _FUTURE.search(low) is None:
        return []  # (and the policy, which loads the τ² domain, is not needed)
    now = policy_now()
    if now is None:
        return []
    today = now.date().isoformat()
    if (injected < today) == (true < today) or today in (injected, true):
        return []
    past: Which = "v_prime" if injected < today else "v"
    future: Which = "v" if past == "v_prime" else "v_prime"
    found = []
    patterns: tuple[tuple[re.Pattern[str], Which, str], ...] = (
        (_PAST, past, "return in the past (from the return date)"),
        (_FUTURE, future, "return still ahead (from the return date)"),
    )
    for pattern, which, label in patterns:
        for m in pattern.finditer(low):
            mention = Mention(low[m.start() : m.end()], m.start(), m.end(), "derived")
            found.append(ValueMention(mention, which, label, decisive=False, needs_binding=True))
    return found


USE_RULES.add("return_date", ReturnDateRules)
