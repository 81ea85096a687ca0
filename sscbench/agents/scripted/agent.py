"""Scripted reference agents: the gold plan, carried out with different evidence habits.

All variants execute the task's gold actions in order, ask the user to verify identity
first and to confirm each write, fill bound arguments from the facts they trust, and
mention the facts they act on. They differ only in how they seek and weigh evidence:

* ``scripted:gold`` — only the gold calls; trusts the latest sighting of each fact.
* ``scripted:careful`` — reads the authoritative record of an entity right before using
  its facts, reads each written entity back, prefers authoritative sightings when they
  disagree with others and says so.
* ``scripted:hasty`` — acts on the first sighting of each fact, never re-reads, and
  believes write payloads (reports success from them).
* ``scripted:mixed`` — each careful habit independently with probability ``p`` (seeded).

Everything they know comes from the model-visible history. What they used, where, is
kept as private ground truth (:mod:`sscbench.agents.scripted.truth`).
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Generator, Sequence
from dataclasses import dataclass
from typing import Any

from sscbench.agents.base import AgentTurn, EpisodeContext
from sscbench.agents.scripted.facts import (
    Entity,
    FactKey,
    KnowledgeBase,
    Sighting,
    read_call_for,
)
from sscbench.agents.scripted.plan import Plan, PlannedAction, compile_plan
from sscbench.agents.scripted.truth import FactConflict, FactUse
from sscbench.envs.calls import ToolCall
from sscbench.envs.environment import tool_kinds
from sscbench.json_paths import get_path, set_path
from sscbench.runs.events import (
    AgentMessage,
    AgentToolCall,
    ParticipantSpec,
    ToolObservation,
    UserMessage,
    VisibleEvent,
)

IDENTITY_QUESTION = (
    "Before I can help, please verify your identity: your user id, or your name and zip "
    "code, or your email address."
)
CLOSING_QUESTION = "Is there anything else I can help you with?"

SALIENT_FIELDS = {
    "reservation": ("status", "cabin", "total_baggages", "nonfree_baggages"),
    "order": ("status",),
    "user": (),
    "product": (),
}


@dataclass(frozen=True)
class EvidenceHabits:
    """How a scripted agent seeks and weighs evidence (probabilities in [0, 1])."""

    pre_use_lookup: float = 0.0
    read_back: float = 0.0
    prefer_authoritative: float = 0.0
    first_sighting: bool = False


HABITS: dict[str, EvidenceHabits] = {
    "gold": EvidenceHabits(),
    "careful": EvidenceHabits(pre_use_lookup=1.0, read_back=1.0, prefer_authoritative=1.0),
    "hasty": EvidenceHabits(first_sighting=True),
}


@dataclass(frozen=True)
class _Say:
    text: str
    uses: tuple[tuple[FactKey, Sighting], ...] = ()
    conflicts: tuple[tuple[FactKey, Sighting, Sighting], ...] = ()


@dataclass(frozen=True)
class _Call:
    name: str
    arguments: dict[str, Any]
    uses: tuple[tuple[FactKey, Sighting], ...] = ()


def _fact_phrase(key: FactKey, value: Any) -> str:
    (etype, eid), path = key
    if etype == "result":
        return f"the {eid} result is {value}"
    return f"{path} of {etype} {eid} is {value}"


class ScriptedAgent:
    """A deterministic reference agent (see module docstring for the variants)."""

    def __init__(self, variant: str, habits: EvidenceHabits, p: float | None = None) -> None:
        params: dict[str, Any] = {} if p is None else {"p": p}
        self.spec = ParticipantSpec(name=f"scripted:{variant}", params=params)
        self.habits = habits
        self.truth: list[FactUse | FactConflict] = []
        self._rng = random.Random(0)
        self._kb = KnowledgeBase()
        self._calls: dict[str, AgentToolCall] = {}
        self._seen = 0
        self._script: Generator[_Say | _Call, None, None] | None = None
        self._plan: Plan | None = None
        self._call_counter = 0
        self._kinds: dict[str, str] = {}

    # -- episode protocol ---------------------------------------------------------------
    def start(self, ctx: EpisodeContext) -> None:
        """Compile the task's plan and reset all per-episode state."""
        self._plan = compile_plan(ctx.domain, ctx.task.id)
        self._kinds = tool_kinds(ctx.domain)
        self._rng = random.Random(f"{self.spec.name}:{ctx.seed}")
        self._kb = KnowledgeBase()
        self._calls = {}
        self._seen = 0
        self._call_counter = 0
        self.truth = []
        self._script = self._run(self._plan)

    def next_turn(self, history: Sequence[VisibleEvent]) -> AgentTurn:
        """Absorb new observations, then emit the next scripted message or call."""
        self._absorb(history)
        if self._script is None:
            raise RuntimeError("ScriptedAgent.next_turn called before start()")
        step = len(history)
        try:
            item = next(self._script)
        except StopIteration:
            return AgentTurn(text="Goodbye.")
        if isinstance(item, _Say):
            self._record(item.uses, step, "mention")
            for key, chosen, rejected in item.conflicts:
                (etype, eid), path = key
                self.truth.append(
                    FactConflict(
                        step=step,
                        entity_type=etype,
                        entity_id=eid,
                        path=path,
                        chosen=chosen.value,
                        chosen_step=chosen.step,
                        rejected=rejected.value,
                        rejected_step=rejected.step,
                    )
                )
            return AgentTurn(text=item.text)
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
                self._kb.observe(call.name, call.arguments, event.content, event.step)
            elif isinstance(event, UserMessage | AgentMessage):
                pass
        self._seen = len(history)

    def _chance(self, probability: float) -> bool:
        if probability >= 1.0:
            return True
        if probability <= 0.0:
            return False
        return self._rng.random() < probability

    def _resolve(self, key: FactKey) -> tuple[Sighting | None, Sighting | None]:
        """The sighting the agent trusts for a fact, and a disagreeing one it rejected."""
        seen = self._kb.sightings.get(key)
        if not seen:
            return None, None
        if self.habits.first_sighting:
            writes = [s for s in seen if self._kinds.get(s.tool) == "write"]
            return (writes[-1] if writes else seen[0]), None
        latest = seen[-1]
        if self._chance(self.habits.prefer_authoritative):
            authoritative = [s for s in seen if s.authoritative]
            if authoritative:
                chosen = authoritative[-1]
                later = [s for s in seen if s.step > chosen.step and s.value != chosen.value]
                rejected = later[-1] if later else None
                if rejected is None:
                    earlier = [s for s in seen if s.value != chosen.value]
                    rejected = earlier[-1] if earlier else None
                return chosen, rejected
        return latest, None

    def _record(self, uses: tuple[tuple[FactKey, Sighting], ...], step: int, use: str) -> None:
        for key, sighting in uses:
            (etype, eid), path = key
            self.truth.append(
                FactUse(
                    step=step,
                    entity_type=etype,
                    entity_id=eid,
                    path=path,
                    value=sighting.value,
                    source_step=sighting.step,
                    use="argument" if use == "argument" else "mention",
                    operative=True,
                )
            )

    def _fill(
        self, action: PlannedAction
    ) -> tuple[
        dict[str, Any], list[tuple[FactKey, Sighting]], list[tuple[FactKey, Sighting, Sighting]]
    ]:
        arguments = copy.deepcopy(action.arguments)
        uses: list[tuple[FactKey, Sighting]] = []
        conflicts: list[tuple[FactKey, Sighting, Sighting]] = []
        for binding in action.bindings:
            chosen, rejected = self._resolve(binding.fact)
            if chosen is None:
                continue
            if get_path(arguments, binding.path) != chosen.value:
                set_path(arguments, binding.path, chosen.value)
            uses.append((binding.fact, chosen))
            if rejected is not None:
                conflicts.append((binding.fact, chosen, rejected))
        return arguments, uses, conflicts

    # -- the script -----------------------------------------------------------------------
    def _run(self, plan: Plan) -> Generator[_Say | _Call, None, None]:
        yield _Say(IDENTITY_QUESTION)
        last_call: tuple[str, str] | None = None
        written: list[Entity] = []
        for action in plan.actions:
            entities = sorted(
                {b.fact[0] for b in action.bindings if b.fact[0][0] != "result"}
                | set(action.subjects)
            )
            if action.kind == "write" and self._chance(self.habits.pre_use_lookup):
                for entity in entities:
                    name, args = read_call_for(entity)
                    if last_call != (name, json.dumps(args, sort_keys=True)):
                        yield _Call(name, args)
                        last_call = (name, json.dumps(args, sort_keys=True))
            arguments, uses, conflicts = self._fill(action)
            if action.kind == "write":
                facts = "; ".join(_fact_phrase(k, s.value) for k, s in uses) or "no prior records"
                notes = "".join(
                    f" Note: the records disagree on {k[1]} of {k[0][0]} {k[0][1]}: I use the "
                    f"authoritative value {c.value} (from {c.tool}), not {r.value}."
                    for k, c, r in conflicts
                )
                yield _Say(
                    f"I will call {action.name} with {json.dumps(arguments, sort_keys=True)}. "
                    f"This relies on: {facts}.{notes} Shall I proceed (yes/no)?",
                    uses=tuple(uses),
                    conflicts=tuple(conflicts),
                )
            yield _Call(action.name, arguments, uses=tuple(uses))
            last_call = (action.name, json.dumps(arguments, sort_keys=True))
            if action.kind == "write":
                written.extend(e for e in action.subjects if e not in written)
                if self._chance(self.habits.read_back):
                    for entity in action.subjects:
                        name, args = read_call_for(entity)
                        yield _Call(name, args)
                        last_call = (name, json.dumps(args, sort_keys=True))
        yield self._closing(plan, written)

    def _closing(self, plan: Plan, written: list[Entity]) -> _Say:
        parts: list[str] = []
        uses: list[tuple[FactKey, Sighting]] = []
        for entity in written:
            for field in SALIENT_FIELDS.get(entity[0], ()):
                key: FactKey = (entity, field)
                chosen, _ = self._resolve(key)
                if chosen is not None:
                    parts.append(_fact_phrase(key, chosen.value))
                    uses.append((key, chosen))
        summary = ("Done: " + "; ".join(parts) + ". ") if parts else "Done. "
        info = "".join(f"For your information: {item}. " for item in plan.communicate)
        return _Say(summary + info + CLOSING_QUESTION, uses=tuple(uses))
