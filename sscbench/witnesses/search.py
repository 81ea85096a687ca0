"""Witness search: a bounded, deterministic breadth-first search over legal continuations.

From the injection context ``h_c`` (ending at the fault-bearing observation ``T_F``), try
continuations ρ of read calls with visible arguments, shortest first, in a fixed order.
After each ρ the proposed first dependent use — an agent message asserting ``v′`` about the
affected fact — is appended at step ``T_S``; ρ is a witness when the contract's refutation
relation puts ``T_E < T_S``. A clean run is never a witness: the fault is delivered in
``h_c`` by construction (the context builder requires an effective delivery).
"""

from __future__ import annotations

import hashlib
import json

from sscbench.agents.base import EpisodeContext
from sscbench.agents.scripted.phrasing import DeviceRequest, render_plain
from sscbench.envs import EpisodeEnvironment, ToolCall, load_domain, tool_kinds
from sscbench.fault_contracts.contract import FaultContract, ReadingRewrite
from sscbench.fault_contracts.history import History
from sscbench.fault_contracts.refutation import refutation_arrival
from sscbench.records.events import (
    AgentMessage,
    AgentToolCall,
    ToolObservation,
    UserMessage,
    VisibleEvent,
)
from sscbench.users.scripted import ScriptedUser
from sscbench.witnesses.context import (
    InjectionContext,
    NoContext,
    build_context,
    confirmation_text,
    write_through,
)
from sscbench.witnesses.legality import device_checks, legal_calls
from sscbench.witnesses.record import (
    DEFAULT_LIMITS,
    SearchLimits,
    SearchStats,
    Witness,
    WitnessCall,
)


def use_text(contract: FaultContract) -> str:
    """The proposed first dependent use: the agent states ``v′`` about the affected fact."""
    value = contract.injected_value
    stated = (
        "; ".join(f"{k} = {json.dumps(v)}" for k, v in value.items())
        if isinstance(value, dict)
        else json.dumps(value)
    )
    return f"According to our records, for {contract.target.scope}: {stated}."


def continue_with(
    ctx: InjectionContext, calls: tuple[tuple[str, dict[str, str]], ...]
) -> tuple[tuple[VisibleEvent, ...], tuple[WitnessCall, ...]]:
    """Run read calls after the prefix on a fork of the faulted episode; return the events.

    A write (only :func:`write_through`'s) runs on a freshly rebuilt episode instead of a
    read-only fork, after the confirmation exchange every write gets."""
    kinds = tool_kinds(ctx.contract.domain)
    if any(kinds.get(name) == "write" for name, _ in calls):
        env = build_context(ctx.contract).env
    else:
        env, _ = ctx.fork()
    events = list(ctx.events)
    turn = events[-1].turn + 1
    made = []
    device = device_checks(ctx.contract.domain)
    for i, (name, arguments) in enumerate(calls):
        call_id = f"witness_{i}"
        if name in device:  # asked of the customer, who runs it and relays the answer
            content = _ask_device(ctx, env, events, name, turn)
            turn += 2
            made.append(
                WitnessCall(
                    name=name,
                    arguments=arguments,
                    observation_sha256=hashlib.sha256(content.encode()).hexdigest(),
                )
            )
            continue
        if kinds.get(name) == "write":
            events.append(
                AgentMessage(
                    step=len(events), turn=turn, content=confirmation_text(name, arguments)
                )
            )
            env.observe(events[-1])
            events.append(
                UserMessage(step=len(events), turn=turn + 1, content=_user_reply(ctx, events))
            )
            env.observe(events[-1])
            turn += 2
        events.append(
            AgentToolCall(
                step=len(events), turn=turn, call_id=call_id, name=name, arguments=arguments
            )
        )
        env.observe(events[-1])  # the virtual clock, for contracts that run on one
        turn += 1
        obs = env.execute(ToolCall(id=call_id, name=name, arguments=dict(arguments)), len(events))
        events.append(
            ToolObservation(
                step=len(events), turn=turn, call_id=call_id, content=obs.content, error=obs.error
            )
        )
        env.observe(events[-1])
        turn += 1
        made.append(
            WitnessCall(
                name=name,
                arguments=arguments,
                observation_sha256=hashlib.sha256(obs.content.encode()).hexdigest(),
            )
        )
    events.append(AgentMessage(step=len(events), turn=turn, content=use_text(ctx.contract)))
    return tuple(events), tuple(made)


def _ask_device(
    ctx: InjectionContext,
    env: EpisodeEnvironment,
    events: list[VisibleEvent],
    name: str,
    turn: int,
) -> str:
    """The agent asks the customer to run a device check; the scripted customer runs it
    (through the choke point, as the user's call) and relays the answer. Returns what the
    device answered."""
    events.append(
        AgentMessage(step=len(events), turn=turn, content=render_plain(DeviceRequest(name, {})))
    )
    env.observe(events[-1])
    domain = load_domain(ctx.contract.domain)
    user = ScriptedUser()
    user.start(EpisodeContext(domain.name, domain.task(ctx.contract.task_id), 0, domain.policy))
    answers: list[str] = []
    while (reply := user.next_user_turn(tuple(events))).tool_calls:
        for device_call in reply.tool_calls:
            obs = env.execute(device_call, len(events), requestor="user")
            user.device_result(device_call, obs.content, obs.error)
            answers.append(obs.content)
    events.append(UserMessage(step=len(events), turn=turn + 1, content=reply.text or ""))
    env.observe(events[-1])
    return "\n".join(answers)


def _asks_device(contract: FaultContract) -> bool:
    """A fault on a device reading: continuations may ask the customer for device checks."""
    return any(isinstance(s, ReadingRewrite) for s in contract.interventions)


def _user_reply(ctx: InjectionContext, events: list[VisibleEvent]) -> str:
    domain = load_domain(ctx.contract.domain)
    user = ScriptedUser()
    user.start(EpisodeContext(domain.name, domain.task(ctx.contract.task_id), 0, domain.policy))
    return user.next_message(tuple(events))


def search_witness(
    contract: FaultContract, limits: SearchLimits = DEFAULT_LIMITS
) -> Witness | SearchStats:
    """A witness for the contract, or the statistics of a search that found none."""
    try:
        ctx = build_context(contract)
    except NoContext as exc:
        return SearchStats(
            nodes=0,
            depth=0,
            max_depth=limits.max_depth,
            max_branching=limits.max_branching,
            stopped="no_context",
            reason=str(exc),
        )
    frontier: list[tuple[tuple[str, dict[str, str]], ...]] = [()]
    nodes = 0
    last_reason = "no refutation reachable"
    for depth in range(limits.max_depth + 1):
        next_frontier: list[tuple[tuple[str, dict[str, str]], ...]] = []
        for calls in frontier:
            nodes += 1
            events, made = continue_with(ctx, calls)
            t_s = len(events) - 1
            arrival = refutation_arrival(contract, History(events))
            if arrival.status == "found" and arrival.step is not None and arrival.step < t_s:
                return Witness(
                    contract_id=contract.contract_id,
                    contract_sha256=contract.content_hash(),
                    prefix_id=ctx.prefix_id,
                    prefix_hash=ctx.prefix_hash,
                    prefix_steps=len(ctx.events),
                    t_f=ctx.t_f,
                    continuation=made,
                    use_text=use_text(contract),
                    t_e=arrival.step,
                    refuting_steps=arrival.evidence,
                    t_s=t_s,
                    search=SearchStats(
                        nodes=nodes,
                        depth=depth,
                        max_depth=limits.max_depth,
                        max_branching=limits.max_branching,
                        stopped="found",
                        reason=arrival.reason,
                    ),
                )
            last_reason = arrival.reason
            if nodes >= limits.max_nodes:
                return SearchStats(
                    nodes=nodes,
                    depth=depth,
                    max_depth=limits.max_depth,
                    max_branching=limits.max_branching,
                    stopped="node_budget",
                    reason=last_reason,
                )
            if depth < limits.max_depth:
                visible = events[:-1]
                through = write_through(contract)
                if not calls and through is not None:
                    next_frontier.append((through,))
                if _asks_device(contract):
                    next_frontier += [(*calls, (n, {})) for n in device_checks(contract.domain)]
                for call in legal_calls(contract.domain, visible, limits.max_branching):
                    next_frontier.append((*calls, call))
        frontier = next_frontier
        if not frontier:
            break
    return SearchStats(
        nodes=nodes,
        depth=limits.max_depth,
        max_depth=limits.max_depth,
        max_branching=limits.max_branching,
        stopped="exhausted",
        reason=f"no legal continuation up to depth {limits.max_depth}: {last_reason}",
    )
