"""Generic validity checks every proposed contract must pass (with a recorded reason).

* A read-value fault: the faulted observation parses, validates against τ²'s return model
  for the tool, and differs from the true observation in exactly the target paths
  (in none, for a target-value control).
* A write-effect fault: suppressing the request in the gold replay leaves the state hash
  unchanged and delivers a payload byte-identical to the real success.
* A defect fault: in the gold replay the defective tool's request answers byte-identically
  to the real success, and leaves the state different from the real write's — in the
  affected fields and nowhere else; or, where the defect is a missing guard, the conforming
  tool refuses the gold write, the defective one accepts it and changes the affected fields.
* A stale read: the cached record validates against τ²'s return model and shows ``v′``
  at the target path where the clean read shows ``v``.
* ``v′ ≠ v`` unless the contract is a target-value control.

Task relevance is operator-specific and checked in each operator's ``propose``.
"""

from __future__ import annotations

import json
import typing
from functools import cache
from typing import Any

from pydantic import BaseModel, ValidationError

from sscbench.envs import EpisodeEnvironment, ToolCall, load_domain
from sscbench.envs.environment import user_tool_kinds
from sscbench.fault_contracts.contract import (
    FaultContract,
    ObservationRewrite,
    ReadingRewrite,
    StaleRead,
    ToolEdit,
    WriteSuppression,
)
from sscbench.fault_contracts.device_state import reversed_reading
from sscbench.fault_contracts.history import arguments_match
from sscbench.fault_contracts.injection import ContractIntervention
from sscbench.fault_contracts.refutation import RELATIONS
from sscbench.json_paths import MISSING, flatten, get_path, lookup, set_path


@cache
def _return_model(domain: str, tool: str) -> Any:
    toolkit_class = load_domain(domain).toolkit_class
    return typing.get_type_hints(getattr(toolkit_class, tool)).get("return")


def _check_rewrite(contract: FaultContract, spec: ObservationRewrite) -> str | None:
    domain = load_domain(contract.domain)
    # A telecom task starts from its own initial state; airline and retail tasks from the base.
    task = domain.task(contract.task_id) if domain.dual_control else None
    env = EpisodeEnvironment.open(contract.domain, task)
    true = env.execute(ToolCall(id="validity", name=spec.tool, arguments=dict(spec.match)), 0)
    if true.error:
        return f"the target read {spec.tool}({spec.match}) fails in the clean state: {true.content}"
    data = json.loads(true.content)
    missing = object()
    for path, expected in spec.expect.items():
        try:
            shown = get_path(data, path)
        except (KeyError, IndexError, TypeError, ValueError):
            shown = missing
        if shown != expected:
            return (
                f"expect[{path!r}] is {expected!r} but the clean {spec.tool} output shows "
                f"{'nothing' if shown is missing else repr(shown)}: the fault would never fire"
            )
    faulted = json.loads(true.content)
    for edit in spec.edits:
        set_path(faulted, edit.path, edit.value)
    model = _return_model(contract.domain, spec.tool)
    if isinstance(model, type) and issubclass(model, BaseModel):
        try:
            model.model_validate(faulted)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            return (
                f"faulted {spec.tool} output breaks τ²'s {model.__name__} schema at {where}: "
                f"{first['msg']}"
            )
    before = dict(flatten(data))
    after = dict(flatten(faulted))
    changed = {p for p in before.keys() | after.keys() if before.get(p) != after.get(p)}
    expected = {e.path for e in spec.edits}
    if changed != expected:
        return (
            f"faulted output differs from the true one at {sorted(changed)}, "
            f"expected {sorted(expected)}"
        )

    return None


def _check_suppression(contract: FaultContract, spec: WriteSuppression) -> str | None:
    request = contract.target.logical_request or {}
    gold_index = request.get("gold_index")
    task = load_domain(contract.domain).task(contract.task_id)
    actions = list(task.evaluation_criteria.actions or [])
    if not isinstance(gold_index, int) or gold_index >= len(actions):
        return "the logical request does not name a gold action"
    real_env = EpisodeEnvironment.open(contract.domain, task)
    fault_env = EpisodeEnvironment.open(contract.domain, task, ContractIntervention(contract))
    for i, action in enumerate(actions[: gold_index + 1]):
        call = ToolCall(id=f"g{i}", name=action.name, arguments=action.arguments)
        before = fault_env.state_hash()
        real = real_env.execute(call, i)
        faked = fault_env.execute(call, i)
        if i == gold_index:
            if not arguments_match(call.arguments, spec.match):
                return "the gold write does not match the contract's logical request"
            if real.error:
                return f"the gold write fails in τ²: {real.content}"
            if (faked.content, faked.error) != (real.content, real.error):
                return "the suppressed write's payload differs from a real success"
            if fault_env.state_hash() != before:
                return "suppressing the write changed the state hash"
    return None


def _check_tool_edit(contract: FaultContract, spec: ToolEdit) -> str | None:
    gold_index = (contract.target.logical_request or {}).get("gold_index")
    task = load_domain(contract.domain).task(contract.task_id)
    actions = list(task.evaluation_criteria.actions or [])
    if not isinstance(gold_index, int) or gold_index >= len(actions):
        return "the logical request does not name a gold action"
    call = ToolCall(id="g", name=actions[gold_index].name, arguments=actions[gold_index].arguments)
    if call.name != spec.tool or not arguments_match(call.arguments, spec.match):
        return "the gold write does not match the contract's logical request"
    envs = [
        EpisodeEnvironment.open(contract.domain, task),
        EpisodeEnvironment.open(contract.domain, task, ContractIntervention(contract)),
    ]
    for env in envs:
        for i, action in enumerate(actions[:gold_index]):
            env.execute(ToolCall(id=f"g{i}", name=action.name, arguments=action.arguments), i)
    real, faked = (env.execute(call, gold_index) for env in envs)
    if spec.reply == "edited":
        if not real.error or faked.error:
            return "the conforming tool does not refuse the gold write, or the defective one does"
    elif real.error or (faked.content, faked.error) != (real.content, real.error):
        return "the defective write's reply differs from a real success"
    real_db, faked_db = (env.state.snapshot() for env in envs)
    changed = set()
    for name in real_db.keys() | faked_db.keys():
        left, right = real_db.get(name, {}), faked_db.get(name, {})
        for key in left.keys() | right.keys():
            if left.get(key) != right.get(key):
                changed |= {(name, key, path) for path in _diff(left.get(key), right.get(key))}
    if not changed:
        return "the defect leaves the state as the real write does"
    if spec.reply == "edited":  # the whole effect is the fault; it must reach the fields
        if not any(
            k == contract.target.entity_id
            and any(p == f or p.startswith(f"{f}.") for f in spec.affected_fields)
            for _, k, p in changed
        ):
            return "the defective write does not change the affected fields"
        return None
    stray = sorted(
        f"{n}/{k}/{p}"
        for n, k, p in changed
        if k != contract.target.entity_id
        or not any(p == f or p.startswith(f"{f}.") for f in spec.affected_fields)
    )
    if stray:
        return f"the defect changes more than the affected fields: {stray[:3]}"
    return None


def _check_stale_read(contract: FaultContract, spec: StaleRead) -> str | None:
    env = EpisodeEnvironment.open(contract.domain)
    fresh = env.execute(ToolCall(id="validity", name=spec.tool, arguments=dict(spec.match)), 0)
    if fresh.error:
        return f"the target read {spec.tool}({spec.match}) fails in the clean state"
    cached = json.loads(spec.content)
    model = _return_model(contract.domain, spec.tool)
    if isinstance(model, type) and issubclass(model, BaseModel):
        try:
            model.model_validate(cached)
        except ValidationError:
            return f"the cached record does not validate as τ²'s {model.__name__}"
    path = contract.target.paths[0]
    shown = (lookup(json.loads(fresh.content), path), lookup(cached, path))
    if MISSING in shown:
        return f"a record has no {path}"
    if shown != (contract.authoritative_value, contract.injected_value):
        return (
            f"the fresh and cached records show {path}={shown[0]!r} and {shown[1]!r}, "
            f"not v={contract.authoritative_value!r} and v′={contract.injected_value!r}"
        )
    return None


def _check_reading(contract: FaultContract, spec: ReadingRewrite) -> str | None:
    """The device tool, run by the customer in the task's initial state, shows the true
    line exactly once, and the injected line differs from it."""
    task = load_domain(contract.domain).task(contract.task_id)
    env = EpisodeEnvironment.open(contract.domain, task)
    if env.user_toolkit is None or spec.tool not in user_tool_kinds(contract.domain):
        return f"{spec.tool} is not a device tool of {contract.domain}"
    shown = env.execute(ToolCall(id="validity", name=spec.tool, arguments={}), 0, requestor="user")
    if shown.error:
        return f"the device reading {spec.tool} fails in the task's initial state"
    lines = shown.content.splitlines()
    if lines.count(spec.shows) != 1:
        return f"{spec.tool} does not show {spec.shows!r} in the task's initial state"
    if spec.reads == spec.shows or spec.reads in lines:
        return f"the injected line {spec.reads!r} is already part of the true reading"
    if spec.setting is not None:
        state = env.state
        coherent = reversed_reading(
            state.domain.user_toolkit_class,
            getattr(state, "user_db", None),
            spec.tool,
            spec.setting,
            shown.content,
        )
        if coherent is None or spec.reads not in coherent.splitlines():
            return (
                f"reversing the device's {spec.setting} does not give {spec.reads!r}: the "
                "rewrite would not be coherent"
            )
    return None


def _diff(a: Any, b: Any) -> set[str]:
    left, right = dict(flatten(a)), dict(flatten(b))
    return {p for p in left.keys() | right.keys() if left.get(p) != right.get(p)}


def check_validity(contract: FaultContract) -> tuple[str, str] | None:
    """``(check, reason)`` of the first failed generic check, or ``None`` when valid."""
    if contract.refutation.relation not in RELATIONS:
        return "relation", f"refutation relation {contract.refutation.relation!r} is not registered"
    if contract.injected_value == contract.authoritative_value:
        return "distinct_value", "v′ equals v: nothing would be injected"
    for spec in contract.interventions:
        if isinstance(spec, ObservationRewrite) and spec.role == "fault":
            reason = _check_rewrite(contract, spec)
            if reason:
                return "observation_rewrite", reason
        elif isinstance(spec, WriteSuppression):
            reason = _check_suppression(contract, spec)
            if reason:
                return "write_suppression", reason
        elif isinstance(spec, ToolEdit):
            reason = _check_tool_edit(contract, spec)
            if reason:
                return "tool_edit", reason
        elif isinstance(spec, StaleRead):
            reason = _check_stale_read(contract, spec)
            if reason:
                return "stale_read", reason
        elif isinstance(spec, ReadingRewrite):
            reason = _check_reading(contract, spec)
            if reason:
                return "reading_rewrite", reason
    return None
