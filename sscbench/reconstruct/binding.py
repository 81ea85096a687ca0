"""Which entity a value mention is about: references, scope, message and dialogue focus.

Agents rarely repeat an id in every sentence. A value is tied to the entity it belongs to
by, in order of strength: a reference in the same unit (the nearest one to the value), the
unit's scope (heading, parent list item, table header, sibling JSON fields), an earlier
unit of the same message, and finally the dialogue's focus — the entity most recently
referred to by the user, the agent or a tool call's arguments. A reference names either the
target entity or a *competitor* of the same kind (another reservation, item, payment
method). When the available references cannot separate the target from a competitor that
carries the same value, the mention is ambiguous and the use undecidable — never a guess.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Literal

from sscbench.reconstruct.segment import Unit
from sscbench.reconstruct.values import fold

Binding = Literal["target", "other", "ambiguous", "unknown"]

CLAUSE_BREAK = re.compile(
    r"[;!?]|\s[-–—]\s|[–—]|\s(?:→|->|=>)\s|\.\s|\b(?:but|so|then|however)\b|,\s*(?:and|or|but|so|then|if|"
    r"we|i|you|it|they|which|while|returning|departing|flying|coming|going)\b"
)
"""Where a new clause starts: a reference past it is about something else."""

RESERVATION_ID = re.compile(r"\b(?=[A-Z0-9]*\d)(?=[A-Z0-9]*[A-Z])[A-Z0-9]{6}\b")
ITEM_ID = re.compile(r"\b\d{10}\b")
ORDER_ID = re.compile(r"#?\bW\d{7}\b")
PAYMENT_ID = re.compile(r"\b(?:credit_card|gift_card|certificate|paypal)_\d{5,}\b")


@dataclass(frozen=True)
class Ref:
    """One reference found in text: which entity, and where."""

    entity: str
    start: int
    end: int


class RefIndex:
    """Words and ids that refer to entities of one kind, compiled into one pattern.

    ``lexicon`` maps a folded surface form (an id, a flight number, a product name, a
    head noun) to the entity it names; a form shared by several entities (two keyboards
    both "keyboard") maps to all of them and so cannot decide between them.
    """

    def __init__(
        self,
        lexicon: Mapping[str, Iterable[str]],
        weak: Iterable[str] = (),
        shapes: Iterable[re.Pattern[str]] = (),
        ignore: Iterable[str] = (),
    ) -> None:
        self._raw = lexicon
        self._weak = tuple(weak)
        self.shapes = tuple(shapes)
        """Id shapes (matched on the original text): an id of this kind that no record
        showed still names *some other* entity."""
        self._ignore = tuple(ignore)

    # Folded on first use: most indexes find nothing in most texts.
    @cached_property
    def weak(self) -> frozenset[str]:
        """Forms that name an entity only in passing (a flight number many reservations
        share): used only when a unit has no stronger reference."""
        return _folded(frozenset(self._weak))

    @cached_property
    def ignore(self) -> frozenset[str]:
        """Tokens that look like ids but are known to be something else (flight numbers)."""
        return frozenset(fold(i) for i in self._ignore)

    # Built on first use: a fact model is rebuilt whenever a record arrives, and many are
    # never asked to find a reference.
    @cached_property
    def lexicon(self) -> dict[str, frozenset[str]]:
        """Folded surface form → the entities it names."""
        return {form: self._entities(form) for form in self._forms}

    @cached_property
    def _keys(self) -> frozenset[str]:
        return frozenset(self._raw)

    @cached_property
    def _forms(self) -> dict[str, str]:
        """Folded surface form → the (last) raw form it folds from: the entity sets are
        made only for the forms a text names."""
        shared = _fold_map(self._keys)
        if shared is not None:
            return shared
        return {fold(k).strip(): k for k in self._raw if k.strip()}

    def _entities(self, form: str) -> frozenset[str]:
        found = self._named.get(form)
        if found is None:
            found = self._named[form] = frozenset(self._raw[self._forms[form]])
        return found

    @cached_property
    def _named(self) -> dict[str, frozenset[str]]:
        return {}

    @cached_property
    def _matcher(self) -> _Matcher:
        return _raw_matcher(self._keys)

    @cached_property
    def _found(self) -> dict[str, tuple[list[Found], list[Found]]]:
        """Per text: its strong references and all of them (binding asks the same units
        again for every mention)."""
        return {}

    def find(self, text: str, strong_only: bool = False) -> list[Found]:
        """(entities, start, end) for each reference in ``text``, in order; weak forms only
        when the text has no strong one (never, with ``strong_only``)."""
        cached = self._found.get(text)
        if cached is None:
            cached = self._found[text] = self._find(text)
        strong, every = cached
        return strong if strong or strong_only else every

    def _find(self, text: str) -> tuple[list[Found], list[Found]]:
        found = self._matcher(fold(text))
        shaped = [m for shape in self.shapes for m in _shape_matches(shape, text)]
        if not found and not shaped:
            return [], []
        refs = [
            (self._entities(form), start, end)
            for form, start, end in found
            if form not in self.weak
        ]
        for name, start, end in shaped:
            if (
                fold(name) not in self._forms
                and fold(name) not in self.ignore
                and not any(s < end and start < e for _, s, e in refs)
            ):
                refs.append((frozenset({f"other:{name}"}), start, end))
        every = refs or [(self._entities(form), start, end) for form, start, end in found]
        return sorted(refs, key=lambda r: r[1]), sorted(every, key=lambda r: r[1])


Level = Literal["unit", "scope", "message", "focus", "none"]


@dataclass(frozen=True)
class Bound:
    """A binding, the entities it leaves in play (empty when ``unknown``), and where the
    deciding reference was: in the unit itself, its scope, the message, or the focus."""

    binding: Binding
    candidates: frozenset[str]
    level: Level = "none"


Found = tuple[frozenset[str], int, int]
_Matcher = Callable[[str], list[tuple[str, int, int]]]
_WORD = re.compile(r"\w+")
_STARTS = re.compile(r"(?<![\w#])(?:\w+|[^\w\s])")
"""Where a form may start (the pattern's look-behind), with the word or sign there."""


@lru_cache(maxsize=1 << 14)
def _words(low: str) -> frozenset[str]:
    """The words and signs a folded text offers forms, once per text (every fact model of
    a run looks up the same dialogue): the strings :func:`_starts` finds, without their
    positions, which only a text that names a form needs."""
    return frozenset(_STARTS.findall(low))


@lru_cache(maxsize=1 << 12)
def _starts(low: str) -> tuple[tuple[str, int], ...]:
    """Each word or sign of a folded text where a form may start, with its position."""
    return tuple((m.group(0), m.start()) for m in _STARTS.finditer(low))


def _alternation(forms: frozenset[str]) -> re.Pattern[str]:
    """One pattern matching any of ``forms`` as a whole token (longest first): the
    definition :func:`_matcher` implements without compiling it."""
    if not forms:
        return re.compile(r"(?!x)x")
    ordered = sorted(forms, key=lambda f: (-len(f), f))
    return re.compile(r"(?<![\w#])(?:" + "|".join(re.escape(f) for f in ordered) + r")(?!\w)")


@lru_cache(maxsize=1 << 14)
def _shape_matches(shape: re.Pattern[str], text: str) -> tuple[tuple[str, int, int], ...]:
    """Every match of an id shape in a text, once per text and shape."""
    return tuple((m.group(0), m.start(), m.end()) for m in shape.finditer(text))


@lru_cache(maxsize=4096)
def _fold_map(raw: frozenset[str]) -> dict[str, str] | None:
    """Folded form → raw form for a lexicon's raw forms, shared by every run of a case
    that builds the same lexicon; ``None`` when two raw forms fold alike (then the order
    of the lexicon decides which one names the form, and the index folds its own)."""
    out = {fold(k).strip(): k for k in raw if k.strip()}
    return out if len(out) == sum(1 for k in raw if k.strip()) else None


@lru_cache(maxsize=4096)
def _folded(forms: frozenset[str]) -> frozenset[str]:
    return frozenset(fold(w).strip() for w in forms)


@lru_cache(maxsize=4096)
def _raw_matcher(raw: frozenset[str]) -> _Matcher:
    """:func:`_matcher` of a lexicon's raw forms, folded (the same lexicon recurs in every
    run of a case)."""
    return _matcher(frozenset(fold(k).strip() for k in raw if k.strip()))


@lru_cache(maxsize=4096)
def _matcher(forms: frozenset[str]) -> _Matcher:
    """``(form, start, end)`` of every match of :func:`_alternation` in a folded text, in
    order, without compiling it: a lexicon of a few hundred ids and names took about 20
    ms to compile as one pattern, once per fact model.

    A match starts where the pattern's look-behind allows (not after a word character or
    ``#``) and takes the longest form that starts there and ends at a word boundary. Forms
    are bucketed by their leading word (or, for one that starts with a sign, by that
    sign): the text's whole word at a start must equal a form's leading word, since the
    form's next character is no word character or the form's end."""
    if "" in forms:  # an empty form matches everywhere: leave it to the pattern itself
        pattern = _alternation(forms)
        return lambda low: [(m.group(0), m.start(), m.end()) for m in pattern.finditer(low)]
    buckets: dict[str, list[str]] = {}
    for form in forms:
        word = _WORD.match(form)
        buckets.setdefault(form[0] if word is None else word.group(0), []).append(form)
    for bucket in buckets.values():
        bucket.sort(key=lambda f: (-len(f), f))
    keys = frozenset(buckets)

    def match(low: str) -> list[tuple[str, int, int]]:
        if keys.isdisjoint(_words(low)):
            return []  # most texts name none of the forms
        found = _starts(low)
        out: list[tuple[str, int, int]] = []
        pos = 0
        size = len(low)
        for key, start in found:
            if start < pos or key not in keys:
                continue  # inside the previous match, or no form starts with this word
            for form in buckets[key]:
                end = start + len(form)
                if low.startswith(form, start) and (
                    end == size or not (low[end].isalnum() or low[end] == "_")
                ):
                    out.append((form, start, end))
                    pos = end
                    break
        return out

    return match


def _decide(entities: Iterable[frozenset[str]], target: str) -> Bound:
    names: set[str] = set()
    for group in entities:
        names |= group
    if not names:
        return Bound("unknown", frozenset())
    if names == {target}:
        return Bound("target", frozenset(names))
    if target not in names:
        return Bound("other", frozenset(names))
    return Bound("ambiguous", frozenset(names))


def nearest(
    refs: list[tuple[frozenset[str], int, int]],
    start: int,
    end: int | None = None,
    text: str = "",
) -> frozenset[str]:
    """The reference closest to a value at ``[start, end)``: the last one before it, unless
    one right after it, with only punctuation between, is nearer (an apposition: "another
    gift card, certificate_…")."""
    end = start if end is None else end
    inside = [r for r in refs if r[1] < end and start < r[2]]
    if inside:
        return inside[0][0]  # the value is itself a reference (a flight number)
    before = [r for r in refs if r[2] <= start]
    after = [r for r in refs if r[1] >= end]
    if before and after:
        gap_after, gap_before = text[end : after[0][1]], text[before[-1][2] : start]
        apposition = (after[0][1] - end) + 8 < (start - before[-1][2]) and not re.search(
            r"[a-z]", fold(gap_after)
        )
        # "… ($100) → cert $250 + …", "…, and a travel certificate, gift_card_…": a
        # reference right after the value, with a break (punctuation, an arrow, the next
        # conjunct) between the value and the one before it.
        attached = (
            re.fullmatch(r"\s?", gap_after) is not None and re.search(r"[^\w\s]", gap_before)
        ) or (
            re.fullmatch(r"[\s,:(-]{0,3}", gap_after) is not None
            and re.search(r"\b(?:and|or|plus)\b|;", fold(gap_before)) is not None
        )
        if apposition or attached:
            return after[0][0]
    if before:
        return before[-1][0]
    # With nothing before, a reference after the value names it only within the same
    # clause ("the 60% tactile keyboard … is item …"), not across "…, and then …".
    if after and not CLAUSE_BREAK.search(fold(text[end : after[0][1]])):
        return after[0][0]
    return frozenset()


class Focus:
    """The dialogue's entity in focus for one reference index, updated event by event.

    A text seen is looked up only when :attr:`current` is asked, and then from the latest
    back to the first that names something: the focus is the last text's that does, so
    the texts before it never need finding (most events of a run are never asked about).
    """

    def __init__(self, index: RefIndex) -> None:
        self.index = index
        self._current: frozenset[str] = frozenset()
        self._unread: list[tuple[RefIndex | Callable[[], RefIndex], str | Callable[[], str]]] = []

    def see(
        self,
        text: str | Callable[[], str],
        index: RefIndex | Callable[[], RefIndex] | None = None,
    ) -> None:
        """Move the focus to the last entity referred to in ``text`` (if any), found
        with ``index`` (default: the index in force now). Either may be a function that
        makes it, called only if the text is looked up (a tool call's arguments as text,
        the fact model in force at the text's step)."""
        self._unread.append((self.index if index is None else index, text))

    @property
    def current(self) -> frozenset[str]:
        """The entity in focus after every text seen so far."""
        unread = self._unread
        while unread:
            index, text = unread.pop()
            if not isinstance(index, RefIndex):
                index = index()
            refs = index.find(text if isinstance(text, str) else text())
            if refs:
                self._current = refs[-1][0]
                unread.clear()
        return self._current

    def resolve(self) -> frozenset[str]:
        """:attr:`current`, as a function a caller may call later, or never (texts seen
        since are looked up too: call it before the next :meth:`see`)."""
        return self.current

    def make_latest_index(self) -> None:
        """Make the index of the latest text not yet looked up, the first thing
        :attr:`current` makes: a caller that may never ask :attr:`current` makes what it
        would have made first, in the same order (an index made on demand may depend on
        when it is first made)."""
        if self._unread:
            index, text = self._unread[-1]
            if not isinstance(index, RefIndex):
                self._unread[-1] = (index(), text)


def bind(
    index: RefIndex,
    units: list[Unit],
    unit: Unit,
    start: int,
    target: str,
    focus: frozenset[str],
    end: int | None = None,
) -> Bound:
    """Bind the value at ``start`` in ``unit`` (one of ``units``, a message's units).

    Strong references (ids, names, "your keyboard") at any level of the message come before
    weak ones (a flight number, a product noun): a heading that names the reservation
    outranks a flight number in the line below it.
    """

    def gather(strong_only: bool) -> list[tuple[Level, frozenset[str]]]:
        found: list[tuple[Level, frozenset[str]]] = []
        own = index.find(unit.text, strong_only)
        closest = nearest(own, start, end, unit.text) if own else frozenset()
        if closest:
            found.append(("unit", closest))
        for scope in reversed(unit.scope):
            refs = index.find(scope, strong_only)
            if refs:
                found.append(("scope", frozenset().union(*(r[0] for r in refs))))
        for earlier in reversed(units[: unit.index]):
            refs = index.find(earlier.framed, strong_only)
            if refs:
                found.append(("message", refs[-1][0]))
        return found

    # Strong references decide; weak ones may still narrow a tie (an item id two orders
    # share, under a line naming one of the orders).
    levels = gather(True) + gather(False)
    if focus:
        levels.append(("focus", focus))
    if not levels:
        return _decide([], target)
    # The strongest level decides; a wider one may only narrow it (an item id shared by
    # two orders, under the heading of one of them).
    level, chosen = levels[0]
    for _, wider in levels[1:]:
        if len(chosen) == 1:
            break
        narrowed = chosen & wider
        if narrowed:
            chosen = narrowed
    decided = _decide([chosen], target)
    return Bound(decided.binding, decided.candidates, level)
