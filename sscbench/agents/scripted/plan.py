"""Compile a τ² task's gold actions into a plan whose arguments are bound to facts.

The scripted reference agents carry out the gold plan, but they must take argument
values from what they have *observed*, so that an injected value can flow into their
actions. Compilation replays the gold actions once on a clean episode and binds each
scalar argument to the fact it was read from: same value, same field name, preferring
the entity the call is about and the closest matching path. At run time the agent fills
the bound arguments from its own knowledge base and keeps the rest literal.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from sscbench.agents.scripted.facts import (
    ENTITY_TYPES,
    Entity,
    FactKey,
    KnowledgeBase,
    read_call_for,
)
from sscbench.caching import shared_cache
from sscbench.envs import EpisodeEnvironment, ToolCall, load_domain, tool_kinds
from sscbench.envs.environment import user_tool_kinds
from sscbench.json_paths import flatten, tokens

_ID_ARGUMENTS = {id_field: etype for etype, (id_field, _, _) in ENTITY_TYPES.items()}


@dataclass(frozen=True)
class Binding:
    """Argument leaf ``path`` takes its value from ``fact``."""

    path: str
    fact: FactKey


@dataclass(frozen=True)
class VariantDerivation:
    """A new item id chosen as "the old item with these options changed".

    At run time the agent takes the old item's options as it believes them, applies
    ``delta``, and picks the product variant with those options — so a wrong believed
    option leads to a wrong new item (the typical ItemOption reliance).
    """

    path: str
    order: Entity
    item_index: int
    product: Entity
    options: tuple[str, ...]
    delta: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class PlannedAction:
    """One gold action with its literal arguments and fact bindings."""

    index: int
    name: str
    kind: str
    arguments: dict[str, Any]
    bindings: tuple[Binding, ...]
    subjects: tuple[Entity, ...]
    derivations: tuple[VariantDerivation, ...] = ()
    requestor: str = "assistant"
    """``user``: a step the customer takes on their own phone (telecom), which the agent
    asks for instead of calling."""


@dataclass(frozen=True)
class Plan:
    """A task's gold plan, ready for a scripted agent."""

    domain: str
    task_id: str
    actions: tuple[PlannedAction, ...]
    communicate: tuple[str, ...]


def _field(path: str) -> str:
    """Last non-index token, singular (``item_ids.0`` and ``items.0.item_id`` both give
    ``item_id``)."""
    for token in reversed(tokens(path)):
        if not token.isdigit():
            return token[:-1] if token.endswith("s") else token
    return ""


def _suffix(a: str, b: str) -> int:
    n = 0
    for x, y in zip(reversed(tokens(a)), reversed(tokens(b)), strict=False):
        if x != y:
            break
        n += 1
    return n


def subjects_of(arguments: dict[str, Any]) -> tuple[Entity, ...]:
    """Entities a call is about, from its id arguments (``reservation_id``, ``order_id``...)."""
    found = [
        (_ID_ARGUMENTS[name], value)
        for name, value in arguments.items()
        if name in _ID_ARGUMENTS and isinstance(value, str)
    ]
    return tuple(found)


def bind_argument(
    kb: KnowledgeBase, path: str, value: Any, subjects: tuple[Entity, ...]
) -> FactKey | None:
    """The observed fact an argument leaf most plausibly came from, or ``None``.

    Candidates share the value and the field name; when the call names its subject
    entities, only their facts qualify (a cabin chosen for reservation A is not "read"
    from reservation B because both say ``economy``). Ties go to the closest path, then
    the latest sighting.
    """
    if isinstance(value, bool) or value is None:
        return None
    best: tuple[tuple[int, int], FactKey] | None = None
    for key, sighting in kb.facts_with_value(value):
        entity, fact_path = key
        if entity[0] == "result":
            score = (0, sighting.step)
        elif _field(fact_path) == _field(path) and (not subjects or entity in subjects):
            score = (_suffix(fact_path, path), sighting.step)
        else:
            continue
        if best is None or score > best[0]:
            best = (score, key)
    return None if best is None else best[1]


ITEM_CHANGE_TOOLS = ("exchange_delivered_order_items", "modify_pending_order_items")


def _derivations(db: Any, arguments: dict[str, Any]) -> tuple[VariantDerivation, ...]:
    """How each new item of an exchange/modification follows from the old item's options."""
    order = db.orders.get(arguments.get("order_id"))
    old_ids, new_ids = arguments.get("item_ids"), arguments.get("new_item_ids")
    if order is None or not isinstance(old_ids, list) or not isinstance(new_ids, list):
        return ()
    used: set[int] = set()
    out: list[VariantDerivation] = []
    for k, (old_id, new_id) in enumerate(zip(old_ids, new_ids, strict=False)):
        index = next(
            (i for i, it in enumerate(order.items) if it.item_id == old_id and i not in used), None
        )
        if index is None:
            continue
        used.add(index)
        item = order.items[index]
        product = db.products.get(item.product_id)
        if product is None or new_id not in product.variants:
            continue
        new_options = product.variants[new_id].options
        delta = {o: v for o, v in new_options.items() if item.options.get(o) != v}
        out.append(
            VariantDerivation(
                path=f"new_item_ids.{k}",
                order=("order", order.order_id),
                item_index=index,
                product=("product", item.product_id),
                options=tuple(sorted(item.options)),
                delta=tuple(sorted(delta.items())),
            )
        )
    return tuple(out)


@shared_cache
def compile_plan(domain_name: str, task_id: str) -> Plan:
    """Replay the task's gold actions on a clean episode and bind their arguments.

    Before each write, the authoritative records of its subjects are read into the
    compile-time knowledge only (not into the plan), so that arguments a real agent would
    take from those records — a segment date, a cabin — are bound to them.
    """
    domain = load_domain(domain_name)
    task = domain.task(task_id)
    kinds = tool_kinds(domain_name)
    device = user_tool_kinds(domain_name)
    env = EpisodeEnvironment.open(domain_name, task)
    kb = KnowledgeBase()
    actions: list[PlannedAction] = []
    criteria = task.evaluation_criteria
    gold = criteria.actions if criteria is not None and criteria.actions else []
    step = 0
    for index, action in enumerate(gold):
        arguments = copy.deepcopy(action.arguments)
        if action.requestor == "user":
            actions.append(
                PlannedAction(
                    index=index,
                    name=action.name,
                    kind=device.get(action.name, "unknown"),
                    arguments=arguments,
                    bindings=(),
                    subjects=(),
                    requestor="user",
                )
            )
            call = ToolCall(id=f"plan-{index}", name=action.name, arguments=arguments)
            env.execute(call, step, requestor="user")
            step += 1
            continue
        subjects = subjects_of(arguments)
        kind = kinds.get(action.name, "unknown")
        if kind == "write":
            for entity in subjects:
                name, args = read_call_for(entity)
                obs = env.execute(ToolCall(id=f"plan-read-{step}", name=name, arguments=args), step)
                kb.observe(name, args, obs.content, step)
                step += 1
        derivations = (
            _derivations(env.state.db, arguments) if action.name in ITEM_CHANGE_TOOLS else ()
        )
        derived = {d.path for d in derivations}
        bindings = []
        for path, value in flatten(arguments):
            if path in _ID_ARGUMENTS or path in derived:
                continue  # the subject's own id is what the call is about, not a fact used
            fact = bind_argument(kb, path, value, subjects)
            if fact is not None:
                bindings.append(Binding(path=path, fact=fact))
        actions.append(
            PlannedAction(
                index=index,
                name=action.name,
                kind=kind,
                arguments=arguments,
                bindings=tuple(bindings),
                subjects=subjects,
                derivations=derivations,
            )
        )
        obs = env.execute(ToolCall(id=f"plan-{index}", name=action.name, arguments=arguments), step)
        kb.observe(action.name, arguments, obs.content, step)
        step += 1
    communicate = tuple(criteria.communicate_info or ()) if criteria is not None else ()
    return Plan(
        domain=domain_name, task_id=task_id, actions=tuple(actions), communicate=communicate
    )
