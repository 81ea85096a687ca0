"""Scripted reference agents: the gold plan, carried out with different evidence habits.

All variants execute the task's gold actions in order, ask the user to verify identity
first and to confirm each write, fill bound arguments from the facts they trust, and
mention the facts they act on. They differ only in how they seek and weigh evidence:

* ``scripted:gold`` — only the gold calls; trusts the latest sighting of each fact.
* ``scripted:careful`` — reads the authoritative records an action depends on right
  before it (in telecom also the line's usage record, which it does not weigh against the
  line record: its one habit there is the look-up), reads each written entity back (and
  retries once when the record does not show the confirmed change), prefers authoritative
  sightings, refuses values that agent-visible semantics show to be wrong, and says so.
* ``scripted:hasty`` — acts on the first sighting of each fact, never re-reads, and
  believes write payloads (reports success from them).
* ``scripted:mixed`` — each careful habit independently with probability ``p`` (seeded).
* ``scripted:receptive`` — reads nothing the gold plan does not (no look-ups, no
  read-back) and trusts the latest sighting like gold, but checks consistency like careful:
  shown a contradiction before it acts, it acts on the truth; never shown one, it adopts.
  Its response to a delivered refutation is known (docs/arrival-interventions.md).
  ``scripted:hasty`` is the opposite reference: shown a refutation, it ignores it.
* ``scripted:eager`` — confirms with the user first and checks later: it recaps an order's
  items (their options) to the user as soon as it has read the order; before each write it
  reads the records it acts on but not the product catalogue, tells the user the facts it
  is about to rely on (an item's options, the category of every payment method on file)
  and asks them to confirm; only then reads the products. After the write it reports the
  result from the write's own payload, *then* reads the record back (and corrects itself
  when the record disagrees). Its uses therefore often come before the refutation — the
  "after" arrival stratum that careful agents (check first) and hasty ones (never check)
  do not produce.

In telecom, every variant but gold and receptive asks the customer for the phone's network
status before a device fix that turns a setting around, and acts on the setting it shows;
careful checks the status bar before acting, eager after telling the customer, hasty never
(:meth:`ScriptedAgent._diagnose`).

Every variant takes ``phrasing``: ``plain`` (default) words each message in one fixed
literal form; ``varied`` words it the way LLM agents do (:mod:`.phrasing`). The phrasing
changes only the text: what each message asserts, and so the ground truth, is the same.

Everything they know comes from the model-visible history. What they used, where, and
whether they treated it as operative is kept as private ground truth
(:mod:`sscbench.agents.scripted.truth`).
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, field
from typing import Any

from sscbench.agents.base import AgentTurn, EpisodeContext
from sscbench.agents.scripted.device import (
    FIXES,
    NETWORK_STATUS,
    STATUS_BAR,
    Reading,
    latest_reading,
    phone_of,
)
from sscbench.agents.scripted.facts import Entity, FactKey, KnowledgeBase, Sighting, read_call_for
from sscbench.agents.scripted.phrasing import (
    DEFAULT_PHRASING,
    IDENTITY_QUESTION,
    Closing,
    Confirmation,
    Conflict,
    DeviceFinding,
    DeviceRequest,
    Fact,
    IdentityRequest,
    Message,
    MissingVariant,
    Phraser,
    ReadBackFailure,
    Statement,
    WriteDone,
)
from sscbench.agents.scripted.plan import Plan, PlannedAction, VariantDerivation, compile_plan
from sscbench.agents.scripted.status import DOUBT, handled_status
from sscbench.agents.scripted.trust import (
    EvidenceHabits,
    Resolution,
    chance,
    follow_guidance,
    resolve,
)
from sscbench.agents.scripted.truth import FactConflict, FactUse
from sscbench.envs.calls import ToolCall
from sscbench.envs.environment import tool_kinds
from sscbench.json_paths import copy_json, get_path, set_path
from sscbench.records.events import (
    AgentToolCall,
    ParticipantSpec,
    SystemNotice,
    ToolObservation,
    VisibleEvent,
)

__all__ = ["HABITS", "IDENTITY_QUESTION", "ScriptedAgent", "mixed_habits"]

SALIENT_FIELDS = {
    "reservation": ("status", "cabin", "total_baggages", "nonfree_baggages"),
    "order": ("status",),
    "line": ("data_used_gb",),  # telecom: the usage it tells the customer about
}
USAGE_READ = "get_data_usage"
"""Telecom's usage record of a line (customer and line ids), read by careful lookups."""
SALIENT_LEAF = re.compile(
    r"(flights\.\d+\.(flight_number|date)|passengers\.\d+\.(first_name|last_name))"
)
PAYMENT_ARGUMENTS = ("payment_id", "payment_method_id")
ITEM_OPTION = re.compile(r"items\.\d+\.options\..+")
PAYMENT_SOURCE = re.compile(r"payment_methods\.[^.]+\.source")

HABITS: dict[str, EvidenceHabits] = {
    "gold": EvidenceHabits(),
    "careful": EvidenceHabits(
        pre_use_lookup=1.0,
        read_back=1.0,
        prefer_authoritative=1.0,
        check_consistency=1.0,
        device_check=True,
    ),
    "hasty": EvidenceHabits(first_sighting=True, device_check=True),
    "eager": EvidenceHabits(read_back=1.0, confirm_first=True, device_check=True),
    # Never looks anything up or reads back on its own, but weighs what it is shown: the
    # reference whose response to a delivered refutation is known (it takes the latest
    # sighting, so a delivered read-back overrides a write's payload, and refuses a value
    # that the product record it was shown contradicts).
    "receptive": EvidenceHabits(check_consistency=1.0),
}


def mixed_habits(p: float) -> EvidenceHabits:
    """Each careful habit with probability ``p``."""
    return EvidenceHabits(
        pre_use_lookup=p,
        read_back=p,
        prefer_authoritative=p,
        check_consistency=p,
        device_check=True,
    )


Use = tuple[FactKey, Sighting, bool]
"""(fact, sighting used, operative)."""


@dataclass(frozen=True)
class _Say:
    content: Message
    uses: tuple[Use, ...] = ()
    conflicts: tuple[tuple[FactKey, Resolution], ...] = ()


@dataclass(frozen=True)
class _Call:
    name: str
    arguments: dict[str, Any]
    uses: tuple[Use, ...] = ()


@dataclass
class _Filled:
    arguments: dict[str, Any]
    arg_uses: list[Use] = field(default_factory=list)
    mentions: list[Use] = field(default_factory=list)
    conflicts: list[tuple[FactKey, Resolution]] = field(default_factory=list)
    notes: list[MissingVariant] = field(default_factory=list)


def _fact(key: FactKey, value: Any, operative: bool = True) -> Fact:
    (etype, eid), path = key
    return Fact(etype, eid, path, value, operative)


def _conflict(key: FactKey, res: Resolution) -> Conflict:
    assert res.rejected is not None and res.reason is not None
    chosen = None if res.chosen is None else _fact(key, res.chosen.value)
    return Conflict(_fact(key, res.rejected.value, False), res.reason, chosen)


def _usage_read(action: PlannedAction) -> dict[str, str] | None:
    """The usage-record read of a telecom write's line (``None`` outside telecom)."""
    ids = dict(action.subjects)
    if "line" not in ids or "customer" not in ids:
        return None
    return {"customer_id": ids["customer"], "line_id": ids["line"]}


def _seen(reading: Reading) -> Sighting:
    """A relayed device reading as a sighting (never authoritative: the customer's words)."""
    return Sighting(reading.value, reading.step, reading.tool, False)


def natural_key(path: str) -> list[int | str]:
    """Order ``flights.10`` after ``flights.2``."""
    return [int(t) if t.isdigit() else t for t in path.split(".")]


def _salient_names(entity_type: str) -> Callable[[dict[str, Any]], tuple[str, ...]]:
    """The salient fields a record of ``entity_type`` shows, in the order they are stated:
    its salient top-level fields, then its flights' and passengers' leaves."""

    def names(leaves: dict[str, Any]) -> tuple[str, ...]:
        top = [n for n in SALIENT_FIELDS.get(entity_type, ()) if n in leaves]
        return (*top, *sorted((p for p in leaves if SALIENT_LEAF.fullmatch(p)), key=natural_key))

    return names


def _same_call(last: tuple[str, dict[str, Any]] | None, name: str, args: dict[str, Any]) -> bool:
    """Whether ``last`` (the previous call, whose arguments are never changed after it is
    issued) is the call ``name(args)``: the same name and the same arguments as canonical
    JSON. Only a look-up can repeat the call before it, so the JSON of every call's
    arguments is written only when the names match."""
    if last is None or last[0] != name:
        return False
    return json.dumps(last[1], sort_keys=True) == json.dumps(args, sort_keys=True)


class ScriptedAgent:
    """A deterministic reference agent (see module docstring for the variants)."""

    def __init__(
        self,
        variant: str,
        habits: EvidenceHabits,
        p: float | None = None,
        phrasing: str = DEFAULT_PHRASING,
    ) -> None:
        self.phraser = Phraser(phrasing)  # raises ConfigError for an unknown phrasing
        params: dict[str, Any] = {} if p is None else {"p": p}
        if phrasing != DEFAULT_PHRASING:
            params["phrasing"] = phrasing
        self.spec = ParticipantSpec(name=f"scripted:{variant}", params=params)
        self.habits = habits
        self._habits = habits
        """The variant's own habits; ``habits`` is what this episode's guidance makes them."""
        self.truth: list[FactUse | FactConflict] = []
        self._rng: random.Random  # both seeded by start(), per run
        self._device_rng: random.Random
        self._kb = KnowledgeBase()
        self._calls: dict[str, AgentToolCall] = {}
        self._seen = 0
        self._script: Generator[_Say | _Call, None, None] | None = None
        self._call_counter = 0
        self._kinds: dict[str, str] = {}
        self._last_payload: dict[Entity, int] = {}
        self._failed: set[int] = set()
        self._history: Sequence[VisibleEvent] = ()
        self._step = 0

    # -- episode protocol ---------------------------------------------------------------
    def start(self, ctx: EpisodeContext) -> None:
        """Compile the task's plan and reset all per-episode state."""
        plan = compile_plan(ctx.domain, ctx.task.id)
        self._kinds = tool_kinds(ctx.domain)
        self.habits = follow_guidance(self._habits, ctx.guidance)
        self._rng = random.Random(f"{self.spec.name}:{ctx.seed}")
        # The device checks draw from their own generator: the record habits' draws (and so
        # every run without a device fix) stay what they were before the checks existed.
        self._device_rng = random.Random(f"{self.spec.name}:{ctx.seed}:device")
        self._kb = KnowledgeBase()
        self._calls = {}
        self._seen = 0
        self._call_counter = 0
        self._last_payload = {}
        self._failed = set()
        self.truth = []
        self.phraser.start(self.spec.name, ctx.seed, f"{ctx.domain}/{ctx.task.id}")
        self._script = self._run(plan)

    def next_turn(self, history: Sequence[VisibleEvent]) -> AgentTurn:
        """Absorb new observations, then emit the next scripted message or call."""
        self._absorb(history)
        if self._script is None:
            raise RuntimeError("ScriptedAgent.next_turn called before start()")
        step = len(history)
        self._history, self._step = history, step
        try:
            item = next(self._script)
        except StopIteration:
            return AgentTurn(text="Goodbye.")
        if isinstance(item, _Say):
            self._record(item.uses, step, "mention")
            for key, res in item.conflicts:
                assert res.rejected is not None
                (etype, eid), path = key
                self.truth.append(
                    FactConflict(
                        step=step,
                        entity_type=etype,
                        entity_id=eid,
                        path=path,
                        chosen=None if res.chosen is None else res.chosen.value,
                        chosen_step=None if res.chosen is None else res.chosen.step,
                        rejected=res.rejected.value,
                        rejected_step=res.rejected.step,
                        reason=res.reason or "",
                    )
                )
            records = (
                {e: seen[-1][2] for e, seen in self._kb.records.items() if seen}
                if self.phraser.style != "plain"
                else {}
            )
            return AgentTurn(text=self.phraser.render(item.content, records))
        self._record(item.uses, step, "argument")
        call_id = f"call_{self._call_counter}"
        self._call_counter += 1
        return AgentTurn(
            tool_calls=(ToolCall(id=call_id, name=item.name, arguments=item.arguments),)
        )

    # -- knowledge ------------------------------------------------------------------------
    def _absorb(self, history: Sequence[VisibleEvent]) -> None:
        for event in history[self._seen :]:
            if isinstance(event, AgentToolCall):
                self._calls[event.call_id] = event
            elif isinstance(event, ToolObservation) and not event.error:
                call = self._calls[event.call_id]
                for entity in self._kb.observe(
                    call.name, call.arguments, event.content, event.step
                ):
                    if self._kinds.get(call.name) == "write":
                        self._last_payload[entity] = event.step
            elif isinstance(event, SystemNotice) and not event.error:  # a delivered read
                self._kb.observe(event.tool, event.arguments, event.observation, event.step)
        self._seen = len(history)

    def _salient(self, entity: Entity, record: dict[str, Any]) -> tuple[str, ...]:
        """The salient fields ``record`` of ``entity`` shows (kept per record text)."""
        return self._kb.derived(record, f"salient:{entity[0]}", _salient_names(entity[0]))

    def _resolve(self, key: FactKey) -> Resolution:
        return resolve(self._kb, key, self.habits, self._rng, self._kinds)

    def _record(self, uses: tuple[Use, ...], step: int, use: str) -> None:
        for key, sighting, operative in uses:
            (etype, eid), path = key
            self.truth.append(
                FactUse(
                    step=step,
                    entity_type=etype,
                    entity_id=eid,
                    path=path,
                    value=sighting.value,
                    source_step=None if sighting.step < 0 else sighting.step,
                    use="argument" if use == "argument" and operative else "mention",
                    operative=operative,
                )
            )

    def _take(self, filled: _Filled, key: FactKey, res: Resolution, as_argument: bool) -> Any:
        """Note a resolved fact's use; return the value to act on (None: keep the literal)."""
        if res.rejected is not None and res.reason is not None:
            filled.conflicts.append((key, res))
            filled.mentions.append((key, res.rejected, False))
        if res.chosen is None:
            return None
        (filled.arg_uses if as_argument else filled.mentions).append((key, res.chosen, True))
        return res.chosen.value

    def _fill(self, action: PlannedAction) -> _Filled:
        filled = _Filled(arguments=copy_json(action.arguments))
        for binding in action.bindings:
            res = self._resolve(binding.fact)
            value = self._take(filled, binding.fact, res, True)
            if value is not None:
                set_path(filled.arguments, binding.path, value)
            elif res.rejected is not None:
                # Every sighting refused: act on the plan's own value, and say where it came from.
                literal = Sighting(get_path(filled.arguments, binding.path), -1, "plan", False)
                filled.arg_uses.append((binding.fact, literal, True))
        for derivation in action.derivations:
            item_id = self._derive(filled, derivation)
            if item_id is not None:
                set_path(filled.arguments, derivation.path, item_id)
        for name in PAYMENT_ARGUMENTS:
            pid = filled.arguments.get(name)
            if isinstance(pid, str):
                self._mention_payment_category(filled, pid)
        return filled

    def _derive(self, filled: _Filled, d: VariantDerivation) -> str | None:
        """The new item: the believed old options with ``delta`` applied, as a variant id."""
        records = self._kb.records.get(d.product)
        if not records:
            return None
        variants = records[-1][2].get("variants") or {}
        delta = dict(d.delta)
        kept: dict[str, Any] = {}
        first_use = len(filled.arg_uses)
        for option in d.options:
            if option in delta:
                continue  # the requested change overrides the old value: not a use of it
            key = (d.order, f"items.{d.item_index}.options.{option}")
            value = self._take(filled, key, self._resolve(key), True)
            if value is None:
                return None
            kept[option] = value
        target = {**kept, **delta}
        for item_id in sorted(variants):
            variant = variants[item_id]
            if isinstance(variant, dict) and variant.get("options") == target:
                return str(item_id)
        # No variant has those options: say so (relying on the believed options, which the
        # note states) and fall back to the plan's item, which then uses none of them.
        filled.mentions.extend(filled.arg_uses[first_use:])
        del filled.arg_uses[first_use:]
        filled.notes.append(self._missing_variant(d, target))
        return None

    def _missing_variant(self, d: VariantDerivation, target: dict[str, Any]) -> MissingVariant:
        records = self._kb.records.get(d.order) or []
        items = records[-1][2].get("items") if records else None
        if isinstance(items, list) and d.item_index < len(items):
            item = items[d.item_index]
            return MissingVariant(
                d.order[1], d.item_index, item.get("item_id"), item.get("name"), target
            )
        return MissingVariant(d.order[1], d.item_index, options=target, listed=False)

    def _mention_payment_category(self, filled: _Filled, pid: str) -> None:
        source = f"payment_methods.{pid}.source"
        for key in [k for k in self._kb.facts("user") if k[1] == source]:
            self._take(filled, key, self._resolve(key), False)

    # -- the script -----------------------------------------------------------------------
    def _handled(self, action: PlannedAction) -> tuple[FactKey, Sighting] | None:
        """The status sighting that says the write's order was already handled, if any."""
        order_id = action.arguments.get("order_id")
        if not isinstance(order_id, str) or ("order", order_id) in self._last_payload:
            return None  # a status after the agent's own write is its own doing
        seen = self._kb.sightings.get((("order", order_id), "status")) or []
        if not seen:
            return None
        # No draw from the habits' generator: runs that never meet a handled status keep theirs.
        believed = seen[-1]
        if self.habits.first_sighting:
            writes = [x for x in seen if self._kinds.get(x.tool) == "write"]
            believed = writes[-1] if writes else seen[0]
        return handled_status(self._kb, action.name, action.arguments, believed)

    def _lookups(self, action: PlannedAction) -> list[Entity]:
        entities = {b.fact[0] for b in action.bindings if b.fact[0][0] != "result"}
        entities |= set(action.subjects)
        entities |= {d.product for d in action.derivations}
        return sorted(entities)

    def _run(self, plan: Plan) -> Generator[_Say | _Call, None, None]:
        yield _Say(IdentityRequest())
        last_call: tuple[str, dict[str, Any]] | None = None
        written: list[Entity] = []
        writes: list[PlannedAction] = []
        payloads: list[dict[Entity, int | None]] = []
        refused: list[Entity] = []
        for action in plan.actions:
            if action.requestor == "user":  # the customer's own step, on their phone
                if action.name in FIXES and self.habits.device_check:
                    yield from self._diagnose(action)
                else:
                    yield _Say(DeviceRequest(action.name, action.arguments))
                last_call = None
                continue
            if action.kind == "write" and self.habits.confirm_first:
                yield from self._confirm_first(action)
                last_call = None
            elif action.kind == "write" and chance(self._rng, self.habits.pre_use_lookup):
                for entity in self._lookups(action):
                    name, args = read_call_for(entity)
                    if not _same_call(last_call, name, args):
                        yield _Call(name, args)
                        last_call = (name, args)
                usage = _usage_read(action)
                if usage is not None:  # a line's usage has its own record: read it too
                    yield _Call(USAGE_READ, usage)
                    last_call = (USAGE_READ, usage)
            filled = self._fill(action)
            doubt = self._handled(action) if action.kind == "write" else None
            if doubt is not None:
                key, seen = doubt
                if self.habits.first_sighting:  # believes it: the request was already handled
                    refused.extend(e for e in action.subjects if e not in refused)
                    continue
                if self.habits.confirm_first:  # tells the user, goes ahead once confirmed
                    yield _Say(Statement((_fact(key, seen.value),), ask=True), ((key, seen, True),))
                elif chance(self._rng, self.habits.check_consistency):
                    self._take(filled, key, Resolution(None, seen, DOUBT), False)
            if action.kind == "write":
                yield self._confirmation(action, filled)
            yield _Call(action.name, filled.arguments, uses=tuple(filled.arg_uses))
            last_call = (action.name, filled.arguments)
            if action.kind != "write":
                if self.habits.confirm_first and action.name == "get_order_details":
                    recap = self._recap_order(filled.arguments.get("order_id"))
                    if recap is not None:
                        yield recap
                continue
            written.extend(e for e in action.subjects if e not in written)
            writes.append(action)
            # Resumed after the write's observation was absorbed: its payload step.
            payloads.append({e: self._last_payload.get(e) for e in action.subjects})
            if self.habits.confirm_first:
                report = self._report_payload(payloads[-1])
                if report is not None:
                    yield report
            if chance(self._rng, self.habits.read_back):
                yield from self._read_back(action, filled, len(writes) - 1)
                last_call = None
        yield self._closing(
            plan, written + [e for e in refused if e not in written], writes, payloads
        )

    def _diagnose(self, action: PlannedAction) -> Generator[_Say | _Call, None, None]:
        """Before a device fix: ask for the network status and read the setting from the
        customer's answer; eager tells the customer the reading first and checks the status
        bar after, careful checks it before acting (believing the status bar when they
        disagree), hasty acts on the first reading. The fix is asked for only when the
        believed reading shows the problem it solves (:mod:`.device`)."""
        setting = FIXES[action.name]
        asked = self._step
        yield _Say(DeviceRequest(NETWORK_STATUS))
        first = latest_reading(self._history, setting, NETWORK_STATUS, asked)
        if first is None:  # the answer does not show the setting: ask for the fix as planned
            yield _Say(DeviceRequest(action.name, action.arguments))
            return
        key: FactKey = (("device", phone_of(self._history)), setting.path)
        if self.habits.confirm_first:
            yield _Say(
                Statement((_fact(key, first.value),), ask=True), ((key, _seen(first), True),)
            )
            check = chance(self._device_rng, self.habits.read_back)
        else:
            check = chance(self._device_rng, self.habits.pre_use_lookup)
        believed, res = first, None
        if check:
            asked = self._step
            yield _Say(DeviceRequest(STATUS_BAR))
            bar = latest_reading(self._history, setting, STATUS_BAR, asked)
            if bar is not None and bar.value != first.value:
                reason = f"the status bar shows {setting.path.replace('_', ' ')} {bar.value}"
                believed, res = bar, Resolution(_seen(bar), _seen(first), reason)
        uses: list[Use] = [(key, _seen(believed), True)]
        conflicts: tuple[tuple[FactKey, Resolution], ...] = ()
        if res is not None:
            assert res.rejected is not None
            uses.append((key, res.rejected, False))
            conflicts = ((key, res),)
        fix = action.name if believed.value == setting.problem else None
        finding = DeviceFinding(
            _fact(key, believed.value), fix, None if res is None else _conflict(key, res)
        )
        yield _Say(finding, tuple(uses), conflicts)

    def _confirm_first(self, action: PlannedAction) -> Generator[_Say | _Call, None, None]:
        """Read the records a write acts on, except the products; tell the user the facts
        it is about to rely on and ask them to confirm; then read the products."""
        entities = self._lookups(action)
        for entity in (e for e in entities if e[0] != "product"):
            yield _Call(*read_call_for(entity))
        keys: list[FactKey] = [
            (d.order, f"items.{d.item_index}.options.{option}")
            for d in action.derivations
            for option in d.options
        ]
        keys += sorted(
            (entity, path)
            for entity, path in self._kb.facts("user")
            if PAYMENT_SOURCE.fullmatch(path)
        )
        uses: list[Use] = []
        for key in keys:
            chosen = self._resolve(key).chosen
            if chosen is not None:
                uses.append((key, chosen, True))
        if uses:
            facts = tuple(_fact(k, s.value) for k, s, _ in uses)
            yield _Say(Statement(facts, ask=True), uses=tuple(uses))
        for entity in (e for e in entities if e[0] == "product"):
            yield _Call(*read_call_for(entity))

    def _recap_order(self, order_id: Any) -> _Say | None:
        """Right after reading an order, tell the user what its items are (their options)
        before anything could check them, and ask them to confirm it is the right order —
        the eager habit of recapping a record instead of checking it."""
        if not isinstance(order_id, str):
            return None
        entity: Entity = ("order", order_id)
        paths = sorted(
            (p for e, p in self._kb.facts("order") if e == entity and ITEM_OPTION.fullmatch(p)),
            key=natural_key,
        )
        uses: list[Use] = []
        for path in paths:
            chosen = self._resolve((entity, path)).chosen
            if chosen is not None:
                uses.append(((entity, path), chosen, True))
        if not uses:
            return None
        facts = tuple(_fact(k, s.value) for k, s, _ in uses)
        return _Say(Statement(facts, ask=True), uses=tuple(uses))

    def _report_payload(self, payload_steps: dict[Entity, int | None]) -> _Say | None:
        """The written entities' salient facts as the write's own reply showed them."""
        uses: list[Use] = []
        for entity, step in payload_steps.items():
            record = next(
                (d for at, _, d in self._kb.records.get(entity) or [] if at == step), None
            )
            if step is None or record is None:
                continue
            names = self._salient(entity, record)
            for name in names:
                sighting = next(
                    (s for s in self._kb.sightings.get((entity, name), []) if s.step == step), None
                )
                if sighting is not None:
                    uses.append(((entity, name), sighting, True))
        if not uses:
            return None
        facts = tuple(_fact(k, s.value) for k, s, _ in uses)
        return _Say(Statement(facts), uses=tuple(uses))

    def _confirmation(self, action: PlannedAction, filled: _Filled) -> _Say:
        content = Confirmation(
            tool=action.name,
            arguments=filled.arguments,
            facts=tuple(_fact(k, s.value) for k, s, op in filled.mentions + filled.arg_uses if op),
            conflicts=tuple(_conflict(k, r) for k, r in filled.conflicts if r.rejected is not None),
            missing_variants=tuple(filled.notes),
        )
        return _Say(
            content,
            uses=tuple(u for u in filled.mentions + filled.arg_uses),
            conflicts=tuple(filled.conflicts),
        )

    def _read_back(
        self, action: PlannedAction, filled: _Filled, write: int
    ) -> Generator[_Say | _Call, None, None]:
        """Read each subject back; if it lacks the confirmed change, say so and retry once
        (write number ``write`` is noted as failed when the retry does not show either)."""
        for attempt in range(2):
            for entity in action.subjects:
                name, args = read_call_for(entity)
                yield _Call(name, args)
            missing = self._unconfirmed(action)
            if not missing:
                return
            facts = tuple(_fact(k, s.value, False) for k, s in missing)
            uses = tuple((k, s, False) for k, s in missing)
            if attempt == 0:
                yield _Say(ReadBackFailure(facts), uses=uses)
                yield _Call(action.name, filled.arguments, uses=tuple(filled.arg_uses))
            else:
                self._failed.add(write)
                yield _Say(ReadBackFailure(facts, final=True), uses=uses)

    def _unconfirmed(self, action: PlannedAction) -> list[tuple[FactKey, Sighting]]:
        """Facts whose latest write payload disagrees with the latest authoritative read."""
        out: list[tuple[FactKey, Sighting]] = []
        for entity in action.subjects:
            payload_step = self._last_payload.get(entity)
            if payload_step is None:
                continue
            for ent, path in self._kb.facts(entity[0]):
                if ent != entity or "." in path:
                    continue
                seen = self._kb.sightings[(ent, path)]
                payload = next((s for s in seen if s.step == payload_step), None)
                reads = [s for s in seen if s.authoritative and s.step > payload_step]
                if payload is not None and reads and reads[-1].value != payload.value:
                    out.append(((ent, path), payload))
        return out

    def _closing(
        self,
        plan: Plan,
        written: list[Entity],
        writes: list[PlannedAction],
        payloads: list[dict[Entity, int | None]],
    ) -> _Say:
        facts: list[Fact] = []
        uses: list[Use] = []
        for entity in written:
            records = self._kb.records.get(entity) or []
            names = self._salient(entity, records[-1][2]) if records else ()
            for name in names:
                key: FactKey = (entity, name)
                res = self._resolve(key)
                if res.chosen is not None:
                    facts.append(_fact(key, res.chosen.value))
                    uses.append((key, res.chosen, True))

        # A write is claimed done only if no stated fact about its entities contradicts its
        # payload: a claim the summary contradicts would say something the agent's recorded
        # uses do not.
        def contradicted(i: int, entity: Entity) -> bool:
            step = payloads[i].get(entity)
            payload = next(
                (data for at, _, data in self._kb.records.get(entity) or [] if at == step), None
            )
            if payload is None:
                return False
            shown = self._kb.leaves(payload)
            return any(
                key[0] == entity and sighting.step != step and shown.get(key[1]) != sighting.value
                for key, sighting, _ in uses
            )

        done = tuple(
            WriteDone(
                a.name,
                a.subjects,
                failed=i in self._failed or any(contradicted(i, e) for e in a.subjects),
            )
            for i, a in enumerate(writes)
        )
        content = Closing(tuple(facts), tuple(plan.communicate), done)
        return _Say(content, uses=tuple(uses))
