"""Pass 2 under the contract: a rule set per operator, and the generic rules for the rest.

A rule set turns the run after ``T_F`` into uses. Its one job is to build the operator's
*fact model* (:class:`~sscbench.reconstruct.detector.FactModel`): which words and ids refer
to the affected entity and its competitors, how ``v``, ``v′`` and values derived from them
show in text, and which entities carry a value. Detection itself — segmentation, binding,
stance — is shared (:func:`~sscbench.reconstruct.detector.detect`). Calls are classified on
their arguments alone (hedged text never cancels an action), hand-off summaries as text.

Operators without a registered rule set get :class:`GenericRules`: value-centric detection
of ``v``/``v′`` (every leaf of the contract's target paths) near the target entity.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache, partial
from typing import Any, TypeVar

from sscbench.caching import bounded
from sscbench.envs.environment import tool_kinds
from sscbench.fault_contracts.contract import FaultContract
from sscbench.fault_contracts.history import Delivered, History
from sscbench.json_paths import flatten
from sscbench.reconstruct.binding import Binding, Focus, RefIndex
from sscbench.reconstruct.detector import (
    FactModel,
    LazyFocus,
    Source,
    Use,
    ValueMention,
    Which,
    call_use,
    detect,
)
from sscbench.reconstruct.segment import Unit
from sscbench.reconstruct.values import (
    Mention,
    find_dates,
    find_money,
    find_phrase,
    fold,
    money_key,
    tokens,
    value_tokens,
)
from sscbench.records.events import (
    AgentMessage,
    AgentToolCall,
    SystemNotice,
    ToolObservation,
    UserMessage,
    VisibleEvent,
    by_agent,
)
from sscbench.registry import Registry

HANDOFF_TOOLS = ("transfer_to_human_agents",)
RECORD_PHRASE = re.compile(
    r"(?P<path>\w+(?:\.\w+(?: \w+)*)*) of "
    r"(?P<etype>reservation|order|user|product) (?P<id>\S+?) is (?P<value>.+?)\s*$"
)
""""<path> of <entity> <id> is <value>": a statement that names its own fact exactly (an
option name in the path may hold spaces: ``items.3.options.skin tone``)."""

K = TypeVar("K")
V = TypeVar("V")

ID_FIELDS = ("reservation_id", "order_id", "user_id", "product_id", "item_id", "id")


@dataclass
class RunView:
    """What the rules may consult: the run's visible history, the fault step, the contract."""

    history: History
    t_f: int
    contract: FaultContract
    notes: dict[str, object] = field(default_factory=dict)

    def records(self, before: int, tool: str | None = None) -> Iterator[tuple[int, Any]]:
        """Parsed successful observations delivered before step ``before``."""
        for d in self.history.successes(tool):
            if d.step >= before:
                return  # in step order: none after this one is earlier
            if d.parsed:
                yield d.step, d.data

    def latest(self, before: int, id_key: str, list_key: str) -> dict[str, dict[str, Any]]:
        """The latest delivered record of each entity before ``before``: records carrying a
        ``list_key`` list (``flights``, ``items``), keyed by their ``id_key``."""
        return {k: d.data for k, d in self.latest_delivered(before, id_key, list_key).items()}

    def latest_delivered(self, before: int, id_key: str, list_key: str) -> dict[str, Delivered]:
        """:meth:`latest`'s records as their deliveries."""
        out: dict[str, Delivered] = {}
        for d in self.history.successes():
            if d.step >= before:
                break
            data = d.data
            if d.parsed and isinstance(data, dict) and isinstance(data.get(list_key), list):
                entity = data.get(id_key)
                if isinstance(entity, str):
                    out[entity] = d
        return out


def record_phrase(unit: Unit) -> re.Match[str] | None:
    """The explicit "<path> of <entity> <id> is <value>" form, if the unit is one."""
    return _record_phrase(unit.text)


@lru_cache(maxsize=1 << 14)  # every rule asks it of the same units
def _record_phrase(text: str) -> re.Match[str] | None:
    return RECORD_PHRASE.search(text)


def scalar_forms(value: Any) -> list[str]:
    """Canonical search keys of a scalar record value, by its kind."""
    text = str(value)
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
        return [f"date:{text}"]
    if isinstance(value, int | float) and not isinstance(value, bool):
        return [f"num:{text}", f"money:{money_key(float(value))}"]
    return [f"tok:{' '.join(value_tokens(text))}"]


def find_scalar(unit_text: str, value: Any, year: int) -> list[Mention]:
    """Mentions of a scalar record value in text, in the form its kind takes."""
    try:
        return list(_find_scalar(unit_text, type(value).__name__, value, year))
    except TypeError:  # an unhashable value (a list leaf): not cached
        return _find_scalar_in(unit_text, value, year)


@lru_cache(maxsize=1 << 15)
def _find_scalar(unit_text: str, kind: str, value: Any, year: int) -> tuple[Mention, ...]:
    """:func:`find_scalar` once per text and value (the runs of a case say the same texts
    about the same values; ``kind`` keeps 1, 1.0 and True apart)."""
    return tuple(_find_scalar_in(unit_text, value, year))


def _find_scalar_in(unit_text: str, value: Any, year: int) -> list[Mention]:
    text = str(value)
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
        return [m for m in find_dates(unit_text, year) if m.form == "full" and m.value == text]
    out: list[Mention] = []
    if isinstance(value, int | float) and not isinstance(value, bool):
        key = money_key(float(value))
        out += [m for m in find_money(unit_text) if m.value == key]
        for t in tokens(unit_text):
            if t.text == text and not any(m.start <= t.start < m.end for m in out):
                out.append(Mention(text, t.start, t.end, "full"))
        return out
    phrase = value_tokens(text)
    for start, end in find_phrase(tokens(unit_text), phrase):
        out.append(Mention(" ".join(phrase), start, end, "full"))
    return out


def value_pairs(v_prime: Any, v: Any) -> tuple[tuple[Which, Any], ...]:
    """``(("v_prime", v′), ("v", v))``: the two values a mention may be, typed."""
    return (("v_prime", v_prime), ("v", v))


def short_value(value: Any) -> bool:
    """Values too common to count without a word tying them to the fact ("10", "L", "no")."""
    text = str(value).strip()
    return len(text) <= 2 or text.lower() in {"none", "yes", "no", "true", "false"}


SHARED_MODELS: dict[tuple[type, str, Hashable], FactModel] = {}
"""Fact models shared across runs, by rule set, contract and inputs (oldest dropped first)."""
SHARED_LIMIT = 1024


def _contract_key(view: RunView) -> str:
    """The run's contract as text, once per run: equal contracts share models."""
    key = view.notes.get("contract_json")
    if not isinstance(key, str):
        key = view.notes["contract_json"] = view.contract.model_dump_json()
    return key


_NAMES_INPUTS: dict[type, bool] = {}
""":func:`_names_inputs` per rule-set class (asked at every record arrival of every run)."""


def _names_inputs(rules: type[UseRules]) -> bool:
    """Does ``rules`` name the inputs of the model it builds? Only when its :meth:`inputs`
    is defined where its :meth:`~UseRules.model` is, or below: a subclass that rebuilds the
    model without restating the inputs (a plugin's rule set over the generic rules, say)
    gets a model per arrival, never a shared one, until it does."""
    known = _NAMES_INPUTS.get(rules)
    if known is None:
        mro = rules.__mro__

        def level(name: str) -> int:
            return next(i for i, k in enumerate(mro) if name in vars(k))

        own = mro[level("inputs")] is not UseRules
        known = _NAMES_INPUTS[rules] = own and level("inputs") <= level("model")
    return known


_LAZY_MESSAGES: set[object] = set()
"""The :meth:`UseRules.message` implementations that take the focus as a function."""
_LAZY_FOCUS: dict[type, bool] = {}
""":func:`_lazy_focus` per rule-set class."""

M = TypeVar("M", bound=Callable[..., list[Use]])


def takes_lazy_focus(message: M) -> M:
    """Mark a :meth:`UseRules.message` that takes the dialogue's focus as a function which
    finds it (and only passes it on, or calls it before returning): most messages name no
    value the focus would bind, and finding it looks up the dialogue's texts."""
    _LAZY_MESSAGES.add(message)
    return message


def _lazy_focus(rules: type[UseRules]) -> bool:
    """Whether ``rules``' :meth:`~UseRules.message` takes the focus as a function: a rule
    set (a plugin's, say) that overrides it unmarked gets the focus itself, as before."""
    known = _LAZY_FOCUS.get(rules)
    if known is None:
        known = _LAZY_FOCUS[rules] = rules.message in _LAZY_MESSAGES
    return known


class UseRules:
    """Operator-specific classification: subclasses build the fact model per step."""

    share_models = True
    """Whether :meth:`model_at` may share models of equal contract and :meth:`inputs`
    (the equivalence test turns it off to build every model afresh)."""

    def __init__(self) -> None:
        self._models: dict[tuple[int, int], FactModel] = {}

    def model(self, view: RunView, step: int) -> FactModel:
        """The fact model as the run stands just before ``step``."""
        raise NotImplementedError

    def inputs(self, view: RunView, step: int) -> Hashable | None:
        """What :meth:`model` at ``step`` is built from besides the contract, by content,
        when a rule set can name it more cheaply than building the model. Models of equal
        contract and inputs are one model, shared between the arrivals of a run (most
        records change no model) and between runs (the runs of a case read the same
        records). ``None``: a model per arrival, never shared.

        A rule set that answers builds its model from the contract and these inputs alone,
        with no ``step``, run or rule-set instance inside its ``find``
        (``tests/reconstruct/test_model_inputs.py`` compares every shared model with one
        built afresh on the fixture runs)."""
        return None

    def model_at(self, view: RunView, step: int) -> FactModel:
        """:meth:`model`, built once per number of observations delivered before ``step``
        (the model only changes when a record arrives), and once per process for each
        contract and :meth:`inputs` where the rule set names them."""
        # Before the fault only the dialogue's focus is tracked: resolve it against the
        # entities known when the fault arrives.
        step = max(step, view.t_f + 1)
        seen = view.history.delivered_before(step)
        key = (id(view), seen)
        model = self._models.get(key)
        if model is None:
            share = self.share_models and _names_inputs(type(self))
            inputs = self.inputs(view, step) if share else None
            if inputs is None:
                model = self.model(view, step)
            else:
                shared = (type(self), _contract_key(view), inputs)
                model = SHARED_MODELS.get(shared)
                if model is None:
                    model = SHARED_MODELS[shared] = self.model(view, step)
                    model.detected = {}
                    if len(SHARED_MODELS) > SHARED_LIMIT:
                        del SHARED_MODELS[next(iter(SHARED_MODELS))]
            self._models[key] = model
        return model

    @takes_lazy_focus
    def message(
        self,
        view: RunView,
        text: str,
        step: int,
        focus: LazyFocus = frozenset(),
        source: Source = "message",
    ) -> list[Use]:
        """Uses in an agent message (or hand-off summary) at ``step``; ``focus``, the
        dialogue's, may be a function that finds it (called, if at all, before this
        returns)."""
        return detect(self.model_at(view, step), text, step, source, focus)

    def call(self, view: RunView, call: AgentToolCall) -> list[Use]:
        """Uses in an agent tool call's arguments (default: none)."""
        return []

    def uses(self, view: RunView, events: Sequence[VisibleEvent]) -> list[Use]:
        """Every use after ``T_F``, tracking the dialogue's focus through all events."""
        out: list[Use] = []
        focus = Focus(RefIndex({}))
        lazy = _lazy_focus(type(self))
        seen = -1  # the step of the latest text the focus was shown
        for event in events:
            if isinstance(event, ToolObservation | SystemNotice) or (
                isinstance(event, AgentToolCall) and not by_agent(event)
            ):
                continue  # observations, and what the harness delivered: never uses
            # The model in force at the event's step, built only if the focus looks the
            # event's text up (most events' never are) or a use is looked for there.
            index = partial(_index_at, self, view, event.step)
            after = event.step > view.t_f
            if isinstance(event, AgentMessage):
                if after:
                    now = _focus_now(view, focus, lazy, seen, event.step)
                    out.extend(self.message(view, event.content, event.step, now))
                focus.see(event.content, index)
            elif isinstance(event, AgentToolCall):
                summary = event.arguments.get("summary")
                if after and event.name in HANDOFF_TOOLS and isinstance(summary, str):
                    now = _focus_now(view, focus, lazy, seen, event.step)
                    out.extend(self.message(view, summary, event.step, now, "handoff"))
                elif after:
                    out.extend(self.call(view, event))
                focus.see(partial(_argument_text, event.arguments), index)
            elif isinstance(event, UserMessage):
                focus.see(event.content, index)
            else:
                continue
            seen = event.step
        return out


def _focus_now(view: RunView, focus: Focus, lazy: bool, seen: int, step: int) -> LazyFocus:
    """The focus for a message at ``step``, or (``lazy``) the function that finds it.

    A model is made once per number of records delivered, at the first step it is asked
    for, and may depend on that step (the turn so far). The focus found first asks for
    the model of the latest text seen (at ``seen``) before the message's own: when both
    have as many records delivered, that model is made now, at ``seen``, as it would be.
    (A model of fewer records is made at the same step whenever the focus is found.)"""
    if not lazy:
        return focus.current
    if seen >= 0 and _delivered_by(view, seen) == _delivered_by(view, step):
        focus.make_latest_index()
    return focus.resolve


def _delivered_by(view: RunView, step: int) -> int:
    """The records delivered before the model at ``step`` (:meth:`UseRules.model_at`)."""
    return view.history.delivered_before(max(step, view.t_f + 1))


def _index_at(rules: UseRules, view: RunView, step: int) -> RefIndex:
    """The reference index of ``rules``' fact model at ``step``."""
    return rules.model_at(view, step).index


def _argument_text(arguments: dict[str, Any]) -> str:
    """A tool call's argument values as one text, for the dialogue's focus."""
    return " ".join(str(v) for _, v in flatten(arguments))


USE_RULES: Registry[Callable[[], UseRules]] = Registry("use-rule set", group="sscbench.use_rules")


class GenericRules(UseRules):
    """Value-centric detection for operators that register no rule set of their own.

    The target entity is referred to by its id; every leaf of the target paths is a value
    (``v`` and ``v′`` from the contract). A call uses the fact when its arguments carry
    ``v′`` (or ``v``) and name the target entity or no entity at all; re-reading the
    entity is retrieval.
    """

    def _leaves(self, view: RunView) -> list[tuple[str, Any, Any]]:
        c = view.contract
        if isinstance(c.injected_value, dict):
            v = dict(flatten(c.authoritative_value or {}))
            vp = dict(flatten(c.injected_value))
            return [(p, v.get(p), vp[p]) for p in vp if v.get(p) != vp[p]]
        return [(c.target.paths[0], c.authoritative_value, c.injected_value)]

    def _others(self, view: RunView, step: int) -> dict[str, None]:
        """Other ids of the target's kind in the records delivered before ``step``, in the
        order they first appear."""
        c = view.contract
        key = f"{c.target.entity_type}_id"
        target = c.target.entity_id
        # The records before a later step extend those before an earlier one: a run's
        # model asks at each arrival, so the ids found so far are kept and extended.
        note = f"others:{key}"
        seen = view.notes.get(note)
        if not isinstance(seen, _IdsSoFar) or seen.upto > step:
            seen = view.notes[note] = _IdsSoFar()
        for d in view.history.successes():
            if d.step >= step:
                break  # in step order
            if d.step >= seen.upto and d.parsed:
                for other in _ids_in(d.observation.content, d.data, key):
                    if other != target:
                        seen.ids[other] = None
        seen.upto = step
        return dict(seen.ids)

    def inputs(self, view: RunView, step: int) -> Hashable:
        """The competitors' ids: the rest of the model is the contract's (subclasses add
        only what the contract and the domain fix)."""
        return tuple(self._others(view, step))

    def model(self, view: RunView, step: int) -> FactModel:
        """The target entity's id as its reference; competitors: other ids of the same kind
        seen in delivered records."""
        c = view.contract
        target = c.target.entity_id
        lexicon: dict[str, set[str]] = {target: {target}}
        for other in self._others(view, step):
            lexicon[other] = {other}
        leaves = self._leaves(view)
        year = _year_of(leaves)

        writes = [name for name, kind in tool_kinds(c.domain).items() if kind == "write"]

        def find(unit: Unit) -> list[ValueMention]:
            found: list[ValueMention] = []
            explicit = record_phrase(unit)
            # A planned write ("I will call update_x with {...}"), inline or framing a JSON
            # block: its argument for the fact's field is the new value, not a belief.
            planned = explicit is None and any(name in unit.framed for name in writes)
            for path, v, vp in leaves:
                leaf = re.escape(path.rsplit(".", 1)[-1])
                field = unit.kind == "field" and re.match(rf"{leaf}\s*:", unit.text)
                if planned and (field or re.search(rf'"{leaf}"\s*:', unit.text)):
                    continue
                bound: Binding | None = None
                if explicit is not None:
                    if (explicit["id"], explicit["path"]) != (target, path):
                        continue
                    bound = "target"
                label = path.rsplit(".", 1)[-1].replace("_", " ")
                needs = short_value(vp)
                cue = not needs or fold(label) in fold(unit.framed)
                for which, value in value_pairs(vp, v):
                    if value is None or (which == "v" and value == vp):
                        continue
                    for m in find_scalar(unit.text, value, year):
                        if cue:
                            found.append(
                                ValueMention(
                                    m,
                                    which,
                                    label,
                                    bound=bound,
                                    needs_binding=which == "v",
                                )
                            )
            return found

        return FactModel(
            target=target,
            index=RefIndex(lexicon),
            find=find,
            holders=lambda _value: frozenset(),
            label=c.target.scope,
        )

    def call(self, view: RunView, call: AgentToolCall) -> list[Use]:
        """Arguments that carry a value of the fact (a read of the entity is retrieval)."""
        c = view.contract
        args = dict(flatten(call.arguments))
        names = {str(v) for v in args.values()}
        ids = {
            str(v)
            for p, v in args.items()
            if p.rsplit(".", 1)[-1] in ID_FIELDS or p.endswith("_id")
        }
        if c.target.entity_id in names and set(args) <= {f"{c.target.entity_type}_id"}:
            return []  # retrieval: the call only names the entity
        if ids and c.target.entity_id not in ids:
            return []
        kinds = view.notes.get("tool_kinds")
        if not isinstance(kinds, dict):
            kinds = view.notes["tool_kinds"] = tool_kinds(c.domain)
        leaf_names = {path.rsplit(".", 1)[-1] for path, _, _ in self._leaves(view)}
        out = []
        for path, v, vp in self._leaves(view):
            for arg, value in args.items():
                if kinds.get(call.name) == "write" and arg.rsplit(".", 1)[-1] in leaf_names:
                    continue  # the write sets this field: the argument is its new value
                if str(value) == str(vp) and vp != v:
                    out.append(
                        call_use(
                            call.step,
                            True,
                            f"{call.name} passes the injected {path} as {arg}",
                        )
                    )
                elif str(value) == str(v):
                    out.append(
                        call_use(
                            call.step,
                            False,
                            f"{call.name} passes the true {path} as {arg}",
                        )
                    )
        return out[:1]


@dataclass
class _IdsSoFar:
    """Ids found in a run's records delivered before step ``upto``, in first-seen order."""

    upto: int = 0
    ids: dict[str, None] = field(default_factory=dict)


BY_TEXT_LIMIT = 8192
"""Entries a per-text cache of a record walk keeps (oldest dropped first)."""


def by_text(cache: dict[K, V], key: K, make: Callable[[], V]) -> V:
    """``cache[key]``, made by ``make`` on a miss: what a walk over a delivered record found,
    kept for the process under the record's text (the data is parsed from the text, and the
    runs of a case read the same records), at most :data:`BY_TEXT_LIMIT` entries."""
    return bounded(cache, key, make, BY_TEXT_LIMIT)


IDS_BY_TEXT: dict[tuple[str, str], tuple[str, ...]] = {}
""":func:`_ids_in` by observation text and key."""


def _ids_in(content: str, data: Any, key: str) -> tuple[str, ...]:
    """The string ``key`` values of every object in a delivered record (``data``, parsed
    from ``content``), in order; found once per process for each text."""

    def walk() -> tuple[str, ...]:
        out: list[str] = []
        _key_values_into(data, key, out)
        return tuple(out)

    return by_text(IDS_BY_TEXT, (content, key), walk)


def _key_values_into(data: Any, key: str, out: list[str]) -> None:
    """Append the string ``key`` value of every dict in ``data``, each dict's before those of
    the dicts inside it (one plain walk: this runs on every delivered record of a run)."""
    if isinstance(data, dict):
        value = data.get(key)
        if isinstance(value, str):
            out.append(value)
        for v in data.values():
            if isinstance(v, dict | list):
                _key_values_into(v, key, out)
    elif isinstance(data, list):
        for v in data:
            if isinstance(v, dict | list):
                _key_values_into(v, key, out)


def _year_of(leaves: list[tuple[str, Any, Any]]) -> int:
    for _, v, vp in leaves:
        for value in (vp, v):
            if isinstance(value, str) and re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
                return int(value[:4])
    return 2024
