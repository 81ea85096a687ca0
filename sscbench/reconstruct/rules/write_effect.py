"""WriteEffect uses: telling the user the change is done, acting on the new state.

Two kinds of text depend on the claimed effect of the write request:

* **completion claims**, in any words ("Done!", "You're all set", "your reservation has
  been updated", "the passenger has been changed") — tied to the request by what they
  speak of (flights, bags, passengers, cancellation: the request's own subject), by the
  reservation, or, for a bare "Done", by coming right after the payload with no other
  write in between; a claim that the change did *not* take effect is a flag;
* **the claimed new values** stated as current: new flight numbers and dates, the new
  cabin, bag counts, passenger names, the new prices or the amount charged or refunded.

Either is erroneous reliance until an authoritative read of the reservation shows the
claimed values (a retry may have made the claim true). Read-backs are retrievals; a repeat
of the same request is a repair, not a use; after another write changes the affected
fields, statements concern a new state and are no longer about this request.
"""

from __future__ import annotations

import re
from collections.abc import Hashable
from typing import Any

from sscbench.fault_contracts.history import arguments_match
from sscbench.fault_contracts.relations.post_write_read_back import WRITE_FIELDS
from sscbench.json_paths import flatten
from sscbench.reconstruct.binding import RESERVATION_ID, Binding, RefIndex
from sscbench.reconstruct.detector import (
    FactModel,
    LazyFocus,
    Use,
    ValueMention,
    Which,
    call_use,
    outermost,
)
from sscbench.reconstruct.rules.airline_policy import booked_within_a_day, nonfree_bags
from sscbench.reconstruct.rules.base import (
    USE_RULES,
    RunView,
    UseRules,
    find_scalar,
    record_phrase,
    takes_lazy_focus,
)
from sscbench.reconstruct.rules.base import (
    value_pairs as _pairs,
)
from sscbench.reconstruct.rules.return_date import (
    flight_numbers,
    known_ids,
    reservation_lexicon,
    reservations,
    seen_flight_numbers,
)
from sscbench.reconstruct.segment import Unit
from sscbench.reconstruct.stance import INCONSISTENT, PLAN, doubts
from sscbench.reconstruct.values import Mention, find_dates, find_money, fold, money_key
from sscbench.records.events import AgentMessage, AgentToolCall, UserMessage

# What a request's completion claim speaks of.
SUBJECTS = {
    "update_reservation_flights": r"flights?|itinerar\w*|trip|cabin|class|fare|seats?|"
    r"upgrad\w*|downgrad\w*|economy|business|schedule|date|rebook\w*|change|modification",
    "update_reservation_baggages": r"bags?|baggage|luggage|suitcases?|checked",
    "update_reservation_passengers": r"passengers?|travell?ers?|names?|details|dob|birth",
    "cancel_reservation": r"cancel\w*|refund\w*",
}
GENERIC_SUBJECT = r"reservation|booking|request|change|update|modification"
COMPLETION = re.compile(
    r"\b(?:(?:has|have|had)\s+(?:now\s+)?(?:been|got|gotten)\s+\w+|(?:is|are)\s+now|now\s+"
    r"(?:shows?|has|have|on|in|includes?|reflects?)|successful(?:ly)?|all\s+set|you'?re\s+set|"
    r"(?:all\s+)?done|completed|(?:is|are|now)\s+complete|complete[.!]|confirmed|"
    r"went\s+through|gone\s+through|go\s+through|"
    r"processed|in\s+place|took\s+effect|taken\s+effect|reflected|i'?ve\s+\w+ed|"
    r"i\s+have\s+\w+ed|(?:updated|changed|modified|cancell?ed|added|upgraded|downgraded|"
    r"moved|switched|rebooked|applied|removed|corrected|issued)\b)"
)
REQUEST = re.compile(
    r"\b(?:please|kindly|need\s+to|needs\s+to|should|must|can\s+you|could\s+you|would\s+you|"
    r"expected|expecting|would\s+be|due|pending|estimated|"
    r"asks?\s+(?:to|for|us)|wants?\s+(?:to|a))\b"
)
"""A request for the change (to a colleague, in a hand-off): not a claim that it happened."""
COLLECTIVE = re.compile(
    r"\b(?:all|both|every(?:thing)?|each|reservations|bookings|itineraries|trips|changes|"
    r"updates|them|those)\b"
)
"""A claim about all the changes made ("the updated itineraries", "both are done")."""
WRITES = frozenset(WRITE_FIELDS) | {"book_reservation", "send_certificate"}
STATED_LEAVES = (
    "flight_number",
    "date",
    "cabin",
    "total_baggages",
    "nonfree_baggages",
    "first_name",
    "last_name",
    "dob",
)
"""Claimed leaves an agent states as the new state (prices and amounts are found as money;
a cancellation is a completion claim)."""
ARGUMENT_FIELDS = ("cabin", "total_baggages", "nonfree_baggages")
"""Claimed fields a later write on the same reservation can restate as an argument."""
FIELD_CUES = {
    "total_baggages": r"bags?|baggage|luggage|suitcases?|checked",
    "nonfree_baggages": r"paid|non[\s-]?free|extra|fee|charged",
    "cabin": r"cabin|class|economy|business",
    "status": r"cancel\w*|status",
}


def changed_leaves(v: dict[str, Any], v_prime: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
    """Leaf paths whose claimed value differs from the stored one: path → (v, v′)."""
    old, new = dict(flatten(v)), dict(flatten(v_prime))
    return {p: (old.get(p), new[p]) for p in new if old.get(p) != new[p]}


def _changed(view: RunView) -> dict[str, tuple[Any, Any]]:
    """:func:`changed_leaves` of the run's contract, once per run (the rules ask at every
    record arrival and every call); read-only."""
    found = view.notes.get("changed_leaves")
    if not isinstance(found, dict):
        c = view.contract
        found = changed_leaves(c.authoritative_value, c.injected_value)
        view.notes["changed_leaves"] = found
    return found


def flight_sets(claimed: Any, stored: Any) -> tuple[set[str], set[str]]:
    """Flight numbers only the claimed itinerary has, and only the stored one has (a list
    diff by index would call a kept flight that moved position a change)."""

    def numbers(value: Any) -> set[str]:
        flights = value.get("flights") if isinstance(value, dict) else None
        return {str(f.get("flight_number")) for f in flights or [] if isinstance(f, dict)}

    new, old = numbers(claimed), numbers(stored)
    return new - old, old - new


def _pairs_of(value: Any) -> set[tuple[str, str]]:
    flights = value.get("flights") if isinstance(value, dict) else None
    return {
        (str(f.get("flight_number")), str(f.get("date")))
        for f in flights or []
        if isinstance(f, dict)
    }


def flight_dates(text: str, claimed: Any, stored: Any) -> list[ValueMention]:
    """Dates of the claimed (or stored) itinerary: a date belongs to the flight named nearest
    to it; without a flight it counts only if one itinerary alone has that date."""
    new, old = _pairs_of(claimed), _pairs_of(stored)
    if new == old:
        return []
    low = fold(text)
    numbers = sorted({fn for fn, _ in new | old}, key=len, reverse=True)
    spots = [
        (m.start(), m.group(0).upper())
        for n in numbers
        for m in re.finditer(re.escape(n.lower()), low)
    ]
    new_dates, old_dates = {d for _, d in new}, {d for _, d in old}
    out = []
    for m in find_dates(text, 2024):
        if m.form != "full":
            continue
        if spots:
            fn = min(spots, key=lambda s: abs(s[0] - m.start))[1]
            which: Which | None = (
                "v_prime"
                if (fn, m.value) in new - old
                else "v"
                if (fn, m.value) in old - new
                else None
            )
        else:
            which = (
                "v_prime"
                if m.value in new_dates - old_dates
                else "v"
                if m.value in old_dates - new_dates
                else None
            )
        if which is not None:
            out.append(ValueMention(m, which, "claimed flight date", needs_binding=which == "v"))
    return out


def passenger_names(text: str, claimed: Any, stored: Any) -> list[ValueMention]:
    """Full names only one passenger list has ("Mei Garcia" claimed, "Mei Lee" stored): a
    surname the lists share says nothing by itself."""

    def names(value: Any) -> set[str]:
        people = value.get("passengers") if isinstance(value, dict) else None
        return {
            f"{p.get('first_name')} {p.get('last_name')}"
            for p in people or []
            if isinstance(p, dict)
        }

    new, old = names(claimed), names(stored)
    out = []
    low = fold(text)
    groups: tuple[tuple[Which, set[str]], ...] = (("v_prime", new - old), ("v", old - new))
    for which, group in groups:
        for name in group:
            for m in re.finditer(rf"\b{re.escape(fold(name))}\b", low):
                mention = Mention(name, m.start(), m.end(), "full")
                out.append(
                    ValueMention(
                        mention,
                        which,
                        "passenger name",
                        needs_binding=which == "v",
                    )
                )
    return out


def scope_end(view: RunView) -> int | None:
    """Step of the first later write that changed the affected fields under another request:
    after it, statements about those fields concern a new state, not the request's effect.
    Found once per run (every message and call after the fault asks)."""
    found = view.notes.get("scope_end")
    if not isinstance(found, tuple):
        found = view.notes["scope_end"] = (_scope_end(view),)
    end: int | None = found[0]
    return end


def _scope_end(view: RunView) -> int | None:
    c = view.contract
    request = c.target.logical_request or {}
    fields = set(c.target.paths)
    for d in view.history.delivered:
        if d.step <= view.t_f or d.observation.error or d.call.name not in WRITE_FIELDS:
            continue
        if d.call.arguments.get("reservation_id") != c.target.entity_id:
            continue
        same = d.call.name == request.get("tool") and arguments_match(
            d.call.arguments, request.get("match", {})
        )
        if not same and fields & set(WRITE_FIELDS[d.call.name]):
            return d.step
    return None


def _claimed_amounts(view: RunView) -> frozenset[str]:
    """Money amounts only the claimed effect implies: new payment-history entries of the
    success payload, the new prices and their total. Found once per run (the model's
    inputs name them at every record arrival)."""
    found = view.notes.get("claimed_amounts")
    if not isinstance(found, frozenset):
        found = view.notes["claimed_amounts"] = frozenset(_amounts_claimed(view))
    return found


def _amounts_claimed(view: RunView) -> set[str]:
    c = view.contract
    out: set[str] = set()
    payload = next((d.data for d in view.history.delivered if d.step == view.t_f), None)
    before = set()
    for _, data in view.records(view.t_f, "get_reservation_details"):
        if isinstance(data, dict) and data.get("reservation_id") == c.target.entity_id:
            before = {json_key(p) for p in data.get("payment_history") or []}
    if isinstance(payload, dict):
        for entry in payload.get("payment_history") or []:
            if isinstance(entry, dict) and json_key(entry) not in before:
                amount = entry.get("amount")
                if isinstance(amount, int | float) and amount:
                    out.add(money_key(abs(float(amount))))
    new_prices = [
        float(value)
        for path, (_, value) in _changed(view).items()
        if path.endswith(".price") and isinstance(value, int | float)
    ]
    out |= {money_key(p) for p in new_prices}
    flights = c.injected_value.get("flights") if isinstance(c.injected_value, dict) else None
    if new_prices and isinstance(flights, list):
        total = sum(float(f.get("price", 0)) for f in flights if isinstance(f, dict))
        out.add(money_key(total))
    return out


def json_key(obj: Any) -> str:
    """A hashable rendering of a payment-history entry."""
    return repr(sorted(obj.items())) if isinstance(obj, dict) else repr(obj)


def _next_in_plan(view: RunView, call: AgentToolCall) -> bool:
    """Is ``call`` a cancellation the agent planned on top of the faulted write ("I will
    upgrade XEHM4B to economy and then cancel it"), made in the same turn right after it?
    A cancellation refunds what was paid, the claimed change's charge included, so making
    it without a read acts on the claimed change. (A write whose content does not depend
    on the change, such as a passenger update, is not a use however it was planned.)"""
    if call.name != "cancel_reservation" or not _same_turn(view, call.step):
        return False
    subject = SUBJECTS.get(call.name)
    request = view.contract.target.logical_request or {}
    if subject is None or call.name == request.get("tool"):
        return False
    plan = next(
        (e for e in reversed(view.history.events[: view.t_f]) if isinstance(e, AgentMessage)),
        None,
    )
    if plan is None:
        return False
    low = fold(plan.content)
    first = SUBJECTS.get(str(request.get("tool")), GENERIC_SUBJECT)
    step_two = r"(?:\b(?:then|after\s+that|afterwards|next|step\s+2)\b|(?:^|\s)2[.)]\s)"
    then = re.search(rf"\b(?:{first})\b.*{step_two}.*\b(?:{subject})\b", low, re.S)
    return then is not None


def _same_turn(view: RunView, step: int) -> bool:
    """Is ``step`` the agent's first message since the faulted write, with no user message
    or read of any reservation between (one turn that made a run of writes)?"""
    for event in view.history.events[view.t_f + 1 : step]:
        if isinstance(event, UserMessage | AgentMessage):
            return False
        if isinstance(event, AgentToolCall) and event.name not in WRITES:
            return False
    return True


class WriteEffectRules(UseRules):
    """The effect of one logical write request on a reservation."""

    def _confirmed_before(self, view: RunView, step: int) -> bool:
        """Has the claim become true before ``step``: a read shows the claimed values, or a
        repeat of the request succeeded that the contract's persistence lets through."""
        c = view.contract
        changed = _changed(view)
        request = c.target.logical_request or {}
        if c.persistence == "first_attempt":
            for d in view.history.successes(request.get("tool")):
                if view.t_f < d.step < step and arguments_match(
                    d.call.arguments, request.get("match", {})
                ):
                    return True
        for d in view.history.successes("get_reservation_details"):
            if d.step <= view.t_f or d.step >= step or not isinstance(d.data, dict):
                continue
            if d.data.get("reservation_id") != c.target.entity_id:
                continue
            shown = dict(flatten({k: d.data.get(k) for k in c.target.paths}))
            if all(shown.get(p) == new for p, (_, new) in changed.items()):
                return True
        return False

    def _other_writes_between(self, view: RunView, step: int) -> tuple[bool, bool]:
        """Between the payload and ``step``: was there a write on another entity, and was
        there one of the same kind as the request on another reservation (which a bare
        "that one's cancelled" could equally be about)?"""
        c = view.contract
        request = c.target.logical_request or {}
        elsewhere = same_kind = False
        for call in view.history.tool_calls():
            if not (view.t_f < call.step < step) or call.name not in WRITES:
                continue
            if call.name == request.get("tool") and arguments_match(
                call.arguments, request.get("match", {})
            ):
                continue
            if call.arguments.get("reservation_id") == c.target.entity_id:
                continue  # the same reservation: "All set!" covers every change to it
            elsewhere = True
            same_kind = same_kind or call.name == request.get("tool")
        return elsewhere, same_kind

    def inputs(self, view: RunView, step: int) -> Hashable:
        """The texts of the latest record of each reservation, the reservation ids seen, the
        amounts the claim implies, the writes and the turn since the payload, the flight
        numbers seen and whether the claim was confirmed: a model reads nothing else."""
        records = view.latest_delivered(step, "reservation_id", "flights")
        return (
            tuple((k, d.observation.content) for k, d in records.items()),
            tuple(sorted(known_ids(view, step))),
            tuple(sorted(_claimed_amounts(view))),
            self._other_writes_between(view, step),
            _same_turn(view, step),
            tuple(sorted(seen_flight_numbers(view, step))),
            self._confirmed_before(view, step),
        )

    def model(self, view: RunView, step: int) -> FactModel:
        """References: reservation ids and flight numbers; values: the claimed leaves, the
        amounts they imply, and completion claims about the request."""
        c = view.contract
        rid = c.target.entity_id
        request = c.target.logical_request or {}
        tool = str(request.get("tool"))
        records = reservations(view, step)
        lexicon = reservation_lexicon(records, known_ids(view, step) | {rid})
        changed = _changed(view)
        claimed_numbers, stored_numbers = flight_sets(c.injected_value, c.authoritative_value)
        for number in claimed_numbers:
            lexicon.setdefault(number, set()).add(rid)
        amounts = _claimed_amounts(view)
        subject = re.compile(rf"\b(?:{SUBJECTS.get(tool, GENERIC_SUBJECT)})\b")
        other_subjects = re.compile(
            r"\b(?:" + "|".join(s for t, s in SUBJECTS.items() if t != tool) + r")\b"
        )
        elsewhere_write, same_kind = self._other_writes_between(view, step)
        adjacent = not elsewhere_write
        batch = _same_turn(view, step)
        index = RefIndex(
            lexicon,
            weak=flight_numbers(records) - claimed_numbers,
            shapes=(RESERVATION_ID,),
            ignore=seen_flight_numbers(view, step),
        )
        confirmed = self._confirmed_before(view, step)
        holders: dict[str, set[str]] = {}
        for other, data in records.items():
            if other == rid:
                continue
            for _, value in flatten(data.get("flights") or []):
                holders.setdefault(str(value), set()).add(other)

        def find(unit: Unit) -> list[ValueMention]:
            explicit = record_phrase(unit)
            found: list[ValueMention] = []
            if explicit is not None:
                if explicit["id"] != rid:
                    return []
                for path, (v, vp) in changed.items():
                    if path != explicit["path"]:
                        continue
                    for which, value in _pairs(vp, v):
                        for m in find_scalar(explicit["value"], value, 2024):
                            offset = explicit.start("value")
                            mention = Mention(m.value, m.start + offset, m.end + offset, m.form)
                            found.append(
                                ValueMention(
                                    mention,
                                    which,
                                    path,
                                    bound="target",
                                )
                            )
                longest = sorted(found, key=lambda vm: vm.mention.start - vm.mention.end)
                return longest[:1]
            low = fold(unit.text)
            for path, (v, vp) in changed.items():
                leaf = path.rsplit(".", 1)[-1]
                if leaf not in STATED_LEAVES or (
                    path.startswith(("flights.", "passengers."))
                    and (leaf in ("date", "first_name", "last_name", "dob"))
                ):
                    continue
                cue = FIELD_CUES.get(path.split(".")[0])
                if cue and not re.search(cue, fold(unit.framed)) and not isinstance(vp, str):
                    continue
                for which, value in _pairs(vp, v):
                    if value is None or isinstance(value, bool):
                        continue
                    if leaf == "flight_number" and str(value) not in (
                        claimed_numbers if which == "v_prime" else stored_numbers
                    ):
                        continue  # a flight both itineraries have (its index moved)
                    for m in find_scalar(unit.text, value, 2024):
                        found.append(
                            ValueMention(
                                m,
                                which,
                                f"claimed {path}",
                                needs_binding=which == "v" or isinstance(value, int),
                            )
                        )
            found.extend(flight_dates(unit.text, c.injected_value, c.authoritative_value))
            found.extend(passenger_names(unit.text, c.injected_value, c.authoritative_value))
            found = outermost(found)
            if any(vm.which == "v_prime" for vm in found):
                # "changed from HAT227 to HAT110": the old value is the contrast, the new
                # one what the unit asserts.
                found = [vm for vm in found if vm.which == "v_prime"]
            doubted = any(doubts(t) for t in (low, fold(unit.message)))
            for m in find_money(unit.text):
                if (
                    m.value in amounts
                    and not doubted
                    and not REQUEST.search(low[max(0, m.start - 60) : m.start])
                ):
                    found.append(
                        ValueMention(
                            m, "v_prime", "amount implied by the claimed change", needs_binding=True
                        )
                    )
            claim = COMPLETION.search(low)
            if claim is None and not found:
                # "the cancellation isn't showing", "it still shows active": a statement that
                # the change did not happen is about it too (and flags it).
                claim = INCONSISTENT.search(low)
            if claim is not None and not found and not PLAN.search(low[: claim.start()]):
                about = subject.search(fold(unit.framed)) is not None
                elsewhere = other_subjects.search(low) is not None
                generic = re.search(rf"\b(?:{GENERIC_SUBJECT})\b", low) is not None
                # "All done!" right after a run of writes in one turn covers every one.
                covers_all = batch and COLLECTIVE.search(low) is not None and len(low) < 80
                if covers_all and not about and not elsewhere:
                    m = Mention("claim", claim.start(), claim.end(), "derived")
                    found.append(ValueMention(m, "v_prime", f"effect of {tool}", bound="target"))
                    return found
                if about or (adjacent and not elsewhere and (generic or len(low) < 80)):
                    m = Mention("claim", claim.start(), claim.end(), "derived")
                    named = {e for group, _, _ in index.find(unit.framed) for e in group}
                    if about and named and rid not in named:
                        return found  # a claim about another reservation
                    collective = COLLECTIVE.search(low) is not None
                    unnamed: Binding = "ambiguous" if same_kind and not collective else "target"
                    found.append(
                        ValueMention(
                            m,
                            "v_prime",
                            f"effect of {tool}",
                            bound=unnamed if about and not named else None,
                            needs_binding=not about and not adjacent,
                        )
                    )
            return found

        return FactModel(
            target=rid,
            index=index,
            find=find,
            holders=lambda value: frozenset(holders.get(value, set())),
            label=f"effect of {tool}",
            confirmed=confirmed,
            effect=True,
        )

    @takes_lazy_focus
    def message(
        self,
        view: RunView,
        text: str,
        step: int,
        focus: LazyFocus = frozenset(),
        source: Any = "message",
    ) -> list[Use]:
        """Statements about the claimed effect, within the request's scope."""
        end = scope_end(view)
        if end is not None and step > end:
            return []
        return super().message(view, text, step, focus, source)

    def call(self, view: RunView, call: AgentToolCall) -> list[Use]:
        """A later call carrying values only the claimed new state has (e.g. new flights)."""
        c = view.contract
        request = c.target.logical_request or {}
        end = scope_end(view)
        if end is not None and call.step > end:
            return []
        if call.name == "get_reservation_details" or (
            call.name == request.get("tool")
            and arguments_match(call.arguments, request.get("match", {}))
        ):
            return []
        claimed_only, _ = flight_sets(c.injected_value, c.authoritative_value)
        if self._confirmed_before(view, call.step):
            return []
        used = claimed_only & {str(v) for _, v in flatten(call.arguments)}
        if used:
            return [
                call_use(
                    call.step,
                    True,
                    f"{call.name} acts on claimed {sorted(used)}",
                )
            ]
        if call.name in WRITE_FIELDS and call.arguments.get("reservation_id") == c.target.entity_id:
            by_cabin = self._cabin_ruled(view, call)
            if by_cabin:
                return by_cabin
            if _next_in_plan(view, call):
                return [
                    call_use(
                        call.step,
                        True,
                        f"{call.name} is the next step of a plan built on the claimed "
                        f"{request.get('tool')}, made without reading the reservation",
                    )
                ]
            # A later write on the reservation that restates a claimed field acts on the
            # claimed state (or on the true one, when it restates the stored value).
            changed = _changed(view)
            for name in ARGUMENT_FIELDS:
                if name not in changed or name not in call.arguments:
                    continue
                old, new = changed[name]
                if call.arguments[name] == new:
                    return [
                        call_use(
                            call.step,
                            True,
                            f"{call.name} restates the claimed {name}={new}",
                        )
                    ]
                if call.arguments[name] == old:
                    return [
                        call_use(
                            call.step,
                            False,
                            f"{call.name} restates the stored {name}={old}",
                        )
                    ]
        return []

    def _cabin_ruled(self, view: RunView, call: AgentToolCall) -> list[Use]:
        """A bag update whose paid-bag count, or a change-of-plan cancellation whose
        eligibility, only the claimed cabin (not the stored one) explains under the policy."""
        c = view.contract
        changed = _changed(view)
        if "cabin" not in changed:
            return []
        old, new = (str(x) for x in changed["cabin"])
        rid = c.target.entity_id
        record = reservations(view, call.step).get(rid) or {}
        if call.name == "update_reservation_baggages":
            user = _user_record(view, call.step, str(record.get("user_id")))
            level = str(user.get("membership")) if user else None
            passengers = len(record.get("passengers") or [])
            total, paid = (
                call.arguments.get("total_baggages"),
                call.arguments.get("nonfree_baggages"),
            )
            if level is None or not passengers or not isinstance(total, int):
                return []
            as_claimed = nonfree_bags(level, new, passengers, total)
            as_stored = nonfree_bags(level, old, passengers, total)
            if as_claimed is None or as_stored is None or as_claimed == as_stored:
                return []
            if paid == as_claimed:
                return [
                    call_use(
                        call.step,
                        True,
                        f"{call.name} charges {paid} bag(s) as the claimed {new} cabin allows",
                    )
                ]
            if paid == as_stored:
                return [
                    call_use(
                        call.step,
                        False,
                        f"{call.name} charges {paid} bag(s) as the stored {old} cabin allows",
                    )
                ]
            return []
        if call.name == "cancel_reservation" and new == "business" and old != "business":
            recent = booked_within_a_day(str(record.get("created_at")))
            if recent is False and record.get("insurance") != "yes":
                return [
                    call_use(
                        call.step,
                        True,
                        f"cancels {rid}, which the policy allows here only in the claimed "
                        "business cabin",
                    )
                ]
        return []


def _user_record(view: RunView, step: int, uid: str) -> dict[str, Any] | None:
    """The latest delivered record of a user before ``step``."""
    found = None
    for _, data in view.records(step, "get_user_details"):
        if isinstance(data, dict) and data.get("user_id") == uid:
            found = data
    return found


USE_RULES.add("write_effect", WriteEffectRules)
