"""ItemOption uses: describing an ordered item by its option; choosing a new item from it.

The option value shows in any surface form ("full-size", "Full size", "1.5 liters",
"no backlight" for ``none``, "waterproof"/"not waterproof" for ``yes``/``no``, "Large" for
``L``); short or common values ("10", "L", "black") count only where the option's name or
the item frames them. A value is tied to the ordered item by its item id, its product name
or head noun ("your keyboard"), its order, the list or JSON object it sits in, or the focus;
values in an *offer* (available variants, candidate new items, "would you like …") describe
other items unless the text marks them as the current one ("current", "original", "same").
An exchange or modification whose new item keeps ``v′`` relies on it — unless the user had
asked for that value, in which case the choice follows the request, not the fact.
"""

from __future__ import annotations

import re
from collections.abc import Hashable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from sscbench.fault_contracts.history import Delivered
from sscbench.reconstruct.binding import ITEM_ID, ORDER_ID, Binding, RefIndex
from sscbench.reconstruct.detector import FactModel, Use, ValueMention, Which, call_use
from sscbench.reconstruct.rules.base import (
    USE_RULES,
    RunView,
    UseRules,
    by_text,
    find_scalar,
    record_phrase,
    short_value,
)
from sscbench.reconstruct.rules.base import (
    value_pairs as _pairs,
)
from sscbench.reconstruct.segment import Unit
from sscbench.reconstruct.values import Mention, fold, stem, value_tokens
from sscbench.records.events import AgentMessage, AgentToolCall, UserMessage

ITEM_TOOLS = ("exchange_delivered_order_items", "modify_pending_order_items")
OFFER = re.compile(
    r"\b(?:available|in[\s-]stock|(?:other|new|possible|alternative)\s+(?:options?|variants?|"
    r"choices?|items?|versions?|colou?rs?|sizes?)|options?\s+(?:are|include|available)|"
    r"variants?|alternatives?|choices?|instead|replacement|replac\w*\s+(?:it\s+|them\s+)?with|"
    r"new\s+item|exchang\w*\s+(?:it\s+|them\s+)?(?:for|to|with|into)|switch\w*\s+to|"
    r"upgrad\w*\s+to|swap\w*|cheapest|comes?\s+in|select|choose|pick|prefer|"
    r"would\s+you\s+like|in\s+exchange|target|desired|requested|"
    r"(?:we|they|store)\s+(?:have|has|carry|carries|stock|sell|offer)\s+(?:it|them|this|that|"
    r"one|the\s+\w+)\s+in)\b"
)
CURRENT = re.compile(
    r"\b(?:current\w*|original\w*|existing|ordered|purchased|bought|received|you\s+have|"
    r"yours|urs|"
    r"you\s+own|same|keep\w*|still|old|from\s+your\s+order|currently|(?:going|switch\w*|"
    r"chang\w*|moving)\s+from)\b"
)
_LETTER_SIZES = {
    "xs": ("extra small", "x-small"),
    "s": ("small",),
    "m": ("medium",),
    "l": ("large",),
    "xl": ("extra large", "x-large"),
    "xxl": ("2xl", "xx-large", "double extra large"),
}


def orders(view: RunView, step: int) -> dict[str, dict[str, Any]]:
    """The latest delivered record of each order before ``step``."""
    return view.latest(step, "order_id", "items")


def order_deliveries(view: RunView, step: int) -> dict[str, Delivered]:
    """The deliveries of :func:`orders`' records (their texts say what the records are)."""
    return view.latest_delivered(step, "order_id", "items")


def variants(view: RunView, step: int, product_id: str | None = None) -> dict[str, Any]:
    """Variant item ids → variant records of delivered product records (latest wins)."""
    out: dict[str, Any] = {}
    for _, data in view.records(step, "get_product_details"):
        if not isinstance(data, dict):
            continue
        if product_id is not None and data.get("product_id") != product_id:
            continue
        for item_id, variant in (data.get("variants") or {}).items():
            out[item_id] = variant
    return out


def item_key(oid: str, item_id: str) -> str:
    """Entity key of an ordered item."""
    return f"{oid}/{item_id}"


def _nouns(name: str) -> set[str]:
    """Ways to call a product: its name, its head noun and that noun's plural."""
    folded = fold(name).strip()
    head = folded.split()[-1] if folded.split() else folded
    forms = {folded, head, head.split("-")[-1]}
    return forms | {f + "s" for f in forms} | {f + "es" for f in forms if f.endswith(("sh", "ch"))}


@lru_cache(maxsize=8192)
def _option_cue(option: str, framed: str) -> bool:
    words = [stem(w) for w in re.findall(r"[a-z]+", fold(option))]
    text = {stem(w) for w in re.findall(r"[a-z]+", fold(framed))}
    return any(w in text for w in words if len(w) > 2)


OWNER_PHRASES = (
    "the one you have",
    "the one you have now",
    "the one you ordered",
    "the one you bought",
    "the one you received",
    "your current one",
    "like yours",
)
"""Phrases that point at an item the customer already has (which one: by narrowing)."""
NEGATED_BEFORE = re.compile(r"(?:\bnot|\bnon|\bno|\bwithout|n't)[\s-]*(?:\w+[\s-]+){0,1}$")
SELECTION_CRITERION = re.compile(
    r"\b(?:cheapest|lowest[\s-](?:price|cost)\w*|least\s+expensive|most\s+affordable|"
    r"lowest[\s-]priced|best\s+price)\b"
)
"""A criterion that picks the new item by itself (not by keeping the current options)."""


def _name_phrase(option: str) -> str:
    """A pattern for an option's name as an adjective or noun phrase ("water-resistant",
    "waterproof"): each word matched by its first five letters."""
    words = re.findall(r"[a-z]+", fold(option))
    return r"\b" + r"[\s-]*".join(re.escape(w[:5]) + r"\w*" for w in words) + r"\b"


def _offer(unit: Unit) -> bool:
    """Does the unit describe candidate items rather than the one ordered?"""
    return _offered(unit.text, unit.scope)


@lru_cache(maxsize=1 << 12)  # every model of a run asks it of the same units
def _offered(own: str, scope: tuple[str, ...]) -> bool:
    """:func:`_offer` once per text and scope."""
    for text in (own, *reversed(scope)):
        low = fold(text)
        if CURRENT.search(low):
            return False
        if OFFER.search(low):
            return True
    return False


REASON = re.compile(
    r"\b(?:since|because|given\s+that|now\s+that|seeing\s+that)\s|(?:^|[,;:]\s+)as\s"
)
STOCK = re.compile(
    r"\b(?:out\s+of\s+stock|unavailable|sold\s+out|discontinued|costs?|priced?|cheaper|"
    r"more\s+expensive)\b"
)
"""A reason about a candidate's availability or price, not about the ordered item."""
CLAUSE_END = re.compile(r"[,;:]\s|\s(?:so|and\s+so|which\s+is\s+why)\s|$")


def _reason_clauses(text: str) -> list[tuple[int, int]]:
    """Spans of the clauses that give a reason from the ordered item ("Since the keyboard
    is 60%, …") in a unit that otherwise talks of candidate items: the reason states the
    current option even where the rest of the sentence offers others."""
    low = fold(text)
    out: list[tuple[int, int]] = []
    for m in REASON.finditer(low):
        end = CLAUSE_END.search(low, m.end())
        stop = end.start() if end is not None else len(low)
        clause = low[m.start() : stop]
        if not OFFER.search(clause) and not STOCK.search(clause):
            out.append((m.start(), stop))
    return out


def option_mentions(unit: Unit, option: str, value: str, year: int = 2024) -> list[Mention]:
    """Mentions of one option value in a unit, in the forms the value takes."""
    return list(_option_mentions(unit.text, unit.framed, option, value, year))


@lru_cache(maxsize=16384)
def _option_mentions(
    text: str, framed: str, option: str, value: str, year: int
) -> tuple[Mention, ...]:
    low = value.strip().lower()
    cue = _option_cue(option, framed)
    name = "|".join(re.escape(stem(w)) + r"\w*" for w in re.findall(r"[a-z]+", fold(option)))
    out: list[Mention] = []
    if low == "none" and name:
        pattern = rf"\b(?:no|without|non-?)\s*(?:{name})|\b(?:{name})\s*:?\s*none\b"
        return tuple(
            Mention(value, m.start(), m.end(), "full") for m in re.finditer(pattern, fold(text))
        )
    if low in ("yes", "no") and name:
        phrase = _name_phrase(option)
        folded = fold(text)
        for m in re.finditer(phrase, folded):
            before = folded[max(0, m.start() - 24) : m.start()]
            after = folded[m.end() : m.end() + 8]
            negated = bool(NEGATED_BEFORE.search(before)) or bool(re.match(r"\s*:?\s*no\b", after))
            if negated == (low == "no"):
                out.append(Mention(value, m.start(), m.end(), "full"))
        return tuple(out)
    forms = [value, *_LETTER_SIZES.get(low, ())]
    for form in forms:
        if short_value(form) and not cue:
            continue
        out += find_scalar(text, form, year)
    low_text = fold(text)
    own = {stem(w)[:5] for w in re.findall(r"[a-z]+", fold(option))}
    return tuple(
        Mention(" ".join(value_tokens(value)), m.start, m.end, m.form)
        for m in out
        if not _class_noun(low_text, m.start, m.end, own)
    )


CLASS_NOUN = re.compile(r"^[\s-]*(?P<noun>[a-z]+s)\b")
OWNED_BEFORE = re.compile(r"\b(?:your|this|that|the\s+one|it|it'?s|is|was)\s+(?:\w+\s+){0,2}$")


def _class_noun(low: str, start: int, end: int, option: set[str]) -> bool:
    """ "… only on full-size boards": a value qualifying a plural noun speaks of a class of
    products, not of the customer's item (the option's own name, "cordless features", is
    not such a noun)."""
    m = CLASS_NOUN.match(low[end : end + 24])
    if m is None or m["noun"] in ("is", "was", "has", "its", "yes") or m["noun"].endswith("ss"):
        return False
    if stem(m["noun"])[:5] in option:
        return False
    return OWNED_BEFORE.search(low[max(0, start - 30) : start]) is None


def _picked_by_user(
    view: RunView, step: int, new_id: str, option: str, catalogue: dict[str, Any]
) -> bool:
    """Did the user pick the new item from a list the agent offered ("the bagless one"),
    by its id or by another option's value that sets it apart from the listed items? Then
    the choice follows the user, whatever it keeps of the fact's option."""
    listing: AgentMessage | None = None
    listed: list[str] = []
    for event in view.history.events:
        if event.step >= step:
            break
        if isinstance(event, AgentMessage) and new_id in event.content:
            listed = [i for i in ITEM_ID.findall(event.content) if i in catalogue]
            if len(set(listed)) >= 2:  # an offer of several items
                listing = event
                break
    if listing is None:
        return False
    chosen = (catalogue.get(new_id) or {}).get("options") or {}
    for event in view.history.events:
        if not (listing.step < event.step < step) or not isinstance(event, UserMessage):
            continue
        if new_id in event.content:
            return True
        unit = Unit(event.content, (), 0, -1, "sentence")
        for other, value in chosen.items():
            shared = all(
                ((catalogue.get(i) or {}).get("options") or {}).get(other) == value for i in listed
            )
            if other != option and not shared and option_mentions(unit, other, str(value)):
                return True
    return False


_NUMBER_WORDS = {"one": 1.0, "two": 2.0, "three": 3.0, "four": 4.0, "five": 5.0, "half a": 0.5}
_RELATIVE = re.compile(
    r"\b(?P<x>\d+(?:\.\d+)?)\b[^.;!?]{0,40}?\b(?P<n>\d+(?:\.\d+)?|one|two|three|four|five|"
    r"half\s+a)\s+(?:\w+\s+)?(?P<dir>smaller|larger|bigger|less|more|lower|higher|shorter|"
    r"longer|fewer)\s+(?:than|then|from)\b"
)
"""A value stated relative to the current one: "size 8 would be 4 sizes smaller than the
pair you ordered" puts the ordered pair at 12."""


def _relative(text: str, option: str, vp: str, v: str) -> list[ValueMention]:
    """The current value derived from a stated value and a difference ("4 sizes smaller
    than yours"), for numeric options where only one of ``v``/``v′`` fits."""
    try:
        injected, true = float(vp), float(v)
    except ValueError:
        return []
    low = fold(text)
    out = []
    for m in _RELATIVE.finditer(low):
        n = _NUMBER_WORDS.get(re.sub(r"\s+", " ", m["n"])) or float(m["n"])
        down = m["dir"] in ("smaller", "less", "lower", "shorter", "fewer")
        current = float(m["x"]) + n if down else float(m["x"]) - n
        which: Which | None = "v_prime" if current == injected else "v" if current == true else None
        if which is None:
            continue
        mention = Mention(low[m.start() : m.end()], m.start(), m.end(), "derived")
        out.append(
            ValueMention(
                mention, which, f"{option} (derived from a difference)", needs_binding=True
            )
        )
    return out


ARROW = re.compile(r"\s*(?:→|->|=>|⟶)\s*|\s+(?:to|into|for)\s+")


def _successors(view: RunView, step: int, oid: str, item_id: str) -> set[str]:
    """Items that replaced (or were requested to replace) the ordered item before ``step``."""
    out: set[str] = set()
    for call in view.history.tool_calls():
        if call.step >= step or call.name not in ITEM_TOOLS:
            continue
        old, new = call.arguments.get("item_ids"), call.arguments.get("new_item_ids")
        if call.arguments.get("order_id") != oid or not isinstance(old, list):
            continue
        if isinstance(new, list) and item_id in old and old.index(item_id) < len(new):
            out.add(str(new[old.index(item_id)]))
    return out


def _replaced_side(text: str, end: int, successors: set[str]) -> bool:
    """Is the value on the "from" side of "old → new (successor id)"? The successor's id
    names the new item; the value before the arrow describes the one it replaced."""
    if not successors:
        return False
    rest = text[end : end + 120]
    arrow = ARROW.search(rest[:40])
    if arrow is None or re.search(r"[.;!?\n]", rest[: arrow.start()]):
        return False
    after = re.split(r"[.;!?\n]", rest[arrow.end() :], maxsplit=1)[0]
    return any(s in after for s in successors)


DESCRIPTOR_NOUNS = ("one", "ones", "model", "version", "variant")
"""Nouns that, after an item's other option value, stand for the item ("the silver one")."""


def _descriptor(value: str) -> bool:
    """Can an option value describe an item (not "yes", a bare number or a letter)?"""
    low = fold(value).strip()
    return len(low) >= 2 and not low.isdigit() and low not in ("yes", "no", "none")


def _descriptions(order: dict[str, Any], order_id: str, option: str) -> list[tuple[str, str]]:
    """Weak references to ordered items by description: another option's value before the
    product noun or "one" ("the silver laptop", "the black one"), and the bare value ("the
    i5") where the order holds another item of the same noun. The faulted option's own
    values are never references: they are the fact."""
    items = [i for i in order.get("items") or [] if isinstance(i, dict)]
    heads: dict[str, int] = {}
    for item in items:
        words = fold(str(item.get("name") or "")).split()
        if words:
            heads[words[-1]] = heads.get(words[-1], 0) + 1
    out: list[tuple[str, str]] = []
    for item in items:
        if not isinstance(item.get("item_id"), str):
            continue
        key = item_key(order_id, item["item_id"])
        name = fold(str(item.get("name") or "")).strip()
        head = name.split()[-1] if name.split() else ""
        for opt, value in (item.get("options") or {}).items():
            if fold(str(opt)) == fold(option) or not _descriptor(str(value)):
                continue
            low = fold(str(value)).strip()
            for noun in {*DESCRIPTOR_NOUNS, name, head} - {""}:
                out.append((f"{low} {noun}", key))
            if heads.get(head, 0) > 1:
                out.append((low, key))
    return out


@dataclass(frozen=True)
class _OrderRefs:
    """What one order record adds to the model, in the order the model adds it."""

    names: tuple[tuple[str, str | None], ...]
    """(surface form, item key) for the lexicon (no key: the form names no item)."""
    weak: tuple[str, ...]
    holders: tuple[tuple[str, str], ...]
    """(an option value's tokens, the item key holding it)."""
    ordered: tuple[str, ...]


ORDER_REFS_BY_TEXT: dict[tuple[str, str, str], _OrderRefs] = {}
""":func:`_order_refs` by the record's text, order id and option."""


def _order_refs(order_id: str, delivered: Delivered, option: str) -> _OrderRefs:
    """:class:`_OrderRefs` of a delivered order record, found once per process for each
    record text (the model is rebuilt at each arrival from every order the run has seen,
    and the runs of a task read the same order records)."""
    order = delivered.data
    return by_text(
        ORDER_REFS_BY_TEXT,
        (delivered.observation.content, order_id, option),
        lambda: _order_refs_of(order_id, order, option),
    )


def _order_refs_of(order_id: str, order: dict[str, Any], option: str) -> _OrderRefs:
    names: list[tuple[str, str | None]] = []
    weak: list[str] = []
    holders: list[tuple[str, str]] = []
    ordered: list[str] = []
    keys = set()
    for item in order.get("items") or []:
        if not isinstance(item, dict) or not isinstance(item.get("item_id"), str):
            continue
        key = item_key(order_id, item["item_id"])
        keys.add(key)
        ordered.append(item["item_id"])
        names.append((item["item_id"], key))
        if isinstance(item.get("product_id"), str):
            names.append((item["product_id"], key))
            weak.append(item["product_id"])
        for noun in _nouns(str(item.get("name") or "")):
            # A product noun fits every variant ("the 60% tactile keyboard is item …"):
            # weak, unless the text makes it the customer's own.
            names.append((noun, key))
            weak.append(noun)
            for owned in (f"your {noun}", f"your current {noun}", f"your original {noun}"):
                names.append((owned, key))
        for owner in OWNER_PHRASES:
            names.append((owner, key))
        for value in (item.get("options") or {}).values():
            holders.append((" ".join(value_tokens(str(value))), key))
    for form in (order_id, order_id.lstrip("#")):
        names += [(form, key) for key in keys] if keys else [(form, None)]
        weak.append(form)
    for form, key in _descriptions(order, order_id, option):
        names.append((form, key))
        weak.append(form)
    return _OrderRefs(tuple(names), tuple(weak), tuple(holders), tuple(ordered))


class ItemOptionRules(UseRules):
    """One option of one ordered item."""

    def _target(self, view: RunView) -> tuple[str, str, str, str, str]:
        p = view.contract.refutation.params
        return (
            p["order_id"],
            p["item_id"],
            p["option"],
            str(view.contract.injected_value),
            str(view.contract.authoritative_value),
        )

    def inputs(self, view: RunView, step: int) -> Hashable:
        """The text of the latest record of each order, the variant ids and the target
        item's successors: a model reads nothing else."""
        oid, item_id, _, _, _ = self._target(view)
        return (
            tuple((k, d.observation.content) for k, d in order_deliveries(view, step).items()),
            tuple(variants(view, step)),
            tuple(sorted(_successors(view, step, oid, item_id))),
        )

    def model(self, view: RunView, step: int) -> FactModel:
        """References: item ids, product names and nouns, order ids, variant ids."""
        oid, item_id, option, vp, v = self._target(view)
        target = item_key(oid, item_id)
        lexicon: dict[str, set[str]] = {item_id: {target}, oid: {target}}
        weak: set[str] = set()
        holders: dict[str, set[str]] = {}
        ordered: set[str] = set()
        for order_id, delivered in order_deliveries(view, step).items():
            refs = _order_refs(order_id, delivered, option)
            for form, key in refs.names:
                entities = lexicon.setdefault(form, set())
                if key is not None:
                    entities.add(key)
            weak.update(refs.weak)
            for value, key in refs.holders:
                holders.setdefault(value, set()).add(key)
            ordered.update(refs.ordered)
        for variant_id in variants(view, step):
            if variant_id not in ordered:
                lexicon.setdefault(variant_id, set()).add(f"variant/{variant_id}")
        path = view.contract.target.paths[0]
        successors = _successors(view, step, oid, item_id)

        def find(unit: Unit) -> list[ValueMention]:
            explicit = record_phrase(unit)
            bound: Binding | None = None
            if explicit is not None:
                if explicit["path"] != path or explicit["id"] != oid:
                    return []
                bound = "target"
            reasons: list[tuple[int, int]] | None = None
            if explicit is None and not ITEM_ID.search(unit.text) and _offer(unit):
                reasons = _reason_clauses(unit.text)
                if not reasons:
                    return []
            found = []
            for which, value in _pairs(vp, v):
                if which == "v" and value == vp:
                    continue
                for m in option_mentions(unit, option, value):
                    if reasons is not None and not any(a <= m.start < b for a, b in reasons):
                        continue  # a candidate item's option, not the ordered one's
                    here = bound
                    if here is None and _replaced_side(unit.text, m.end, successors):
                        here = "target"
                    found.append(
                        ValueMention(
                            m,
                            which,
                            f"{option} of item {item_id}",
                            bound=here,
                            needs_binding=which == "v",
                        )
                    )
            found.extend(_relative(unit.text, option, vp, v))
            return found

        return FactModel(
            target=target,
            index=RefIndex(lexicon, weak=weak, shapes=(ITEM_ID, ORDER_ID)),
            find=find,
            holders=lambda value: frozenset(holders.get(value, set())),
            label=f"{option} of item {item_id}",
        )

    def call(self, view: RunView, call: AgentToolCall) -> list[Use]:
        """The new item chosen for the old one keeps ``v′`` (reliance), keeps ``v``, or
        changes the option (no use of it); a ``calculate`` on the ordered item's price and
        one variant's price has already chosen that variant."""
        oid, item_id, _, _, _ = self._target(view)
        if call.name == "calculate":
            chosen = self._priced(view, call, oid, item_id)
            if chosen is None or not self._decided_by_option(view, call.step, chosen):
                return []
            return self._new_item(view, call.step, chosen)
        if call.name not in ITEM_TOOLS or call.arguments.get("order_id") != oid:
            return []
        old, new = call.arguments.get("item_ids"), call.arguments.get("new_item_ids")
        if not isinstance(old, list) or not isinstance(new, list) or item_id not in old:
            return []
        position = old.index(item_id)
        if position >= len(new):
            return []
        return self._new_item(view, call.step, str(new[position]))

    def _priced(self, view: RunView, call: AgentToolCall, oid: str, item_id: str) -> str | None:
        """The one catalogue variant whose price a ``calculate`` sets against the ordered
        item's price ("154.75 - 147.05"), if any."""
        expression = str(call.arguments.get("expression", ""))
        terms = set(re.findall(r"\d+(?:\.\d+)?", expression))
        order = orders(view, call.step).get(oid) or {}
        item = next(
            (
                i
                for i in order.get("items") or []
                if isinstance(i, dict) and i.get("item_id") == item_id
            ),
            None,
        )
        if item is None or f"{float(item.get('price', -1)):g}" not in {
            f"{float(t):g}" for t in terms
        }:
            return None
        product = view.contract.refutation.params.get("product_id")
        priced = [
            vid
            for vid, variant in variants(view, call.step, product).items()
            if vid != item_id
            and isinstance(variant, dict)
            and f"{float(variant.get('price', -1)):g}" in {f"{float(t):g}" for t in terms}
        ]
        return priced[0] if len(priced) == 1 else None

    def _decided_by_option(self, view: RunView, step: int, new_id: str) -> bool:
        """Could the fact's option have decided the choice? Yes when the dialogue asks to keep
        it ("same size"), or when an available variant with the chosen item's other options
        has another value of it (otherwise the other options alone pick the item)."""
        _, _, option, _, _ = self._target(view)
        name = "|".join(re.escape(w) for w in re.findall(r"[a-z]+", fold(option)))
        keep = re.compile(
            rf"\b(?:same|keep(?:s|ing)?\s+(?:the\s+|my\s+|your\s+|its\s+)?)\s*(?:{name})"
        )
        for event in view.history.events:
            if event.step >= step:
                break
            if isinstance(event, UserMessage | AgentMessage) and keep.search(fold(event.content)):
                return True  # "the new shoes have to be the same size"
        catalogue = variants(view, step + 1, view.contract.refutation.params.get("product_id"))
        chosen = (catalogue.get(new_id) or {}).get("options") or {}
        for vid, variant in catalogue.items():
            if vid == new_id or not isinstance(variant, dict) or not variant.get("available"):
                continue
            options = variant.get("options") or {}
            same_rest = all(options.get(k) == val for k, val in chosen.items() if k != option)
            if same_rest and options.get(option) != chosen.get(option):
                return True
        return False

    def _new_item(self, view: RunView, step: int, new_id: str) -> list[Use]:
        """A use when the chosen new item keeps ``v′`` or ``v`` of the fact's option (and the
        choice did not follow the user's request or a stated criterion)."""
        c = view.contract
        _, _, option, vp, v = self._target(view)
        catalogue = variants(view, step + 1, c.refutation.params.get("product_id"))
        variant = catalogue.get(new_id)
        if not isinstance(variant, dict):
            return [
                call_use(
                    step,
                    False,
                    f"no delivered product record shows new item {new_id}",
                    kind="undecidable",
                )
            ]
        value = str((variant.get("options") or {}).get(option))
        if value in (vp, v) and (
            (c.control and value == vp)  # a target-value control: the task asks for v′
            or self._requested(view, step, option, value)
            or self._criterion(view, step)
            or _picked_by_user(view, step, new_id, option, catalogue)
        ):
            return []  # the choice follows the user's request or a stated criterion
        if value == vp:
            return [call_use(step, True, f"new item {new_id} keeps the injected {option}={value}")]
        if value == v:
            return [call_use(step, False, f"new item {new_id} keeps the true {option}={value}")]
        return []

    def _criterion(self, view: RunView, step: int) -> bool:
        """Was the new item picked by a stated criterion (e.g. the cheapest variant)?"""
        return any(
            isinstance(e, UserMessage | AgentMessage)
            and SELECTION_CRITERION.search(fold(e.content))
            for e in view.history.events
            if e.step < step
        )

    def _requested(self, view: RunView, step: int, option: str, value: str) -> bool:
        """Did the user ask for ``value`` of ``option`` themselves before ``step``?"""
        for event in view.history.events:
            if event.step >= step:
                break
            if isinstance(event, UserMessage):
                unit = Unit(event.content, (), 0, -1, "sentence")
                if option_mentions(unit, option, value):
                    return True
        return False


USE_RULES.add("item_option", ItemOptionRules)
