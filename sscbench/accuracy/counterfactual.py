"""Counterfactual fault items from clean recorded runs: real agent language, known reliance.

A clean run of a real agent never met a fault, but it did read facts that our operators
target. Declare the value the agent was shown to be the injected one (``v′``) and pick a
different true value ``v`` that the run never shows: then whatever the agent did with that
value — stated it, derived from it, acted on it — is genuine dependent use, in the agent's
own words, with a known fault-bearing step. The item is a fault contract of the operator
(as if the case had been injected there) plus the hidden record that confirms delivery, so
the ordinary reconstruction pipeline labels it unchanged.

What the items measure: use detection (``T_S``, ``T_U``, ``A``). They do not measure
arrival: the observations that would refute ``v′`` in a real faulted run show ``v′`` here.
For the same reason a later read of the same record (which shows ``v′`` again) is not a
refutation, and for WriteEffect a read-back after the write shows the claimed change (the
write really happened), which the rules read as confirmation.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Literal

from sscbench.envs import EpisodeEnvironment, ToolCall, load_domain
from sscbench.fault_contracts.contract import (
    Edit,
    FaultContract,
    ObservationRewrite,
    Refutation,
    Target,
    WriteSuppression,
)
from sscbench.fault_contracts.history import History
from sscbench.fault_contracts.injection import FaultDelivery
from sscbench.fault_contracts.relations.post_write_read_back import WRITE_FIELDS
from sscbench.json_paths import flatten
from sscbench.operators.item_option import policy_quotes
from sscbench.operators.pay_source import FLIPS, semantics_quotes
from sscbench.operators.return_date import SEMANTICS as RETURN_SEMANTICS
from sscbench.operators.return_date import split_round_trip
from sscbench.operators.write_effect import TARGET_TOOLS
from sscbench.records.events import AgentToolCall, Header, UserMessage
from sscbench.records.hidden import StateCheck
from sscbench.records.ledger import JsonlWriter, Ledger
from sscbench.runs.episode import HIDDEN_FILE, LEDGER_FILE

RETURN_SHIFT_DAYS = 3
"""The declared true return date lies this many days after the one the agent saw."""


@dataclass(frozen=True)
class Counterfactual:
    """One counterfactual item: a recorded run, a fact in it, and the contract declaring
    the delivered value injected."""

    item_id: str
    run_id: str
    operator: str
    t_f: int
    call_id: str
    tool: str
    action: Literal["rewrite", "suppress"]
    contract: FaultContract
    fact: str
    """The fact in words, for annotators."""
    user_states_injected: bool
    """A user message states ``v′`` (so the value may come from the user, not the record)."""


def _forms(value: str) -> set[str]:
    """Lower-case surface forms used only to screen user messages for ``v′``."""
    text = value.lower()
    out = {text, text.replace("_", " "), text.replace("-", " ")}
    try:
        d = date.fromisoformat(value)
    except ValueError:
        return out
    month = d.strftime("%B").lower()
    out |= {f"{month} {d.day}", f"{month[:3]} {d.day}", f"{d.month}/{d.day}", f"{d.day} {month}"}
    return out


def _user_states(ledger: Ledger, values: list[str]) -> bool:
    texts = [e.content.lower() for e in ledger.events if isinstance(e, UserMessage)]
    forms = set().union(*(_forms(v) for v in values)) if values else set()
    return any(f in t for f in forms for t in texts)


def _namespace(obj: Any) -> Any:
    if isinstance(obj, dict):
        return SimpleNamespace(**{k: _namespace(v) for k, v in obj.items()})
    if isinstance(obj, list):
        return [_namespace(v) for v in obj]
    return obj


def _first_reads(history: History, tool: str, key: str) -> Iterator[tuple[int, str, Any, str]]:
    """(step, entity id, record, call id) of the first successful read of each entity."""
    seen: set[str] = set()
    for d in history.successes(tool):
        if not isinstance(d.data, dict):
            continue
        eid = d.data.get(key)
        if isinstance(eid, str) and eid not in seen:
            seen.add(eid)
            yield d.step, eid, d.data, d.call.call_id


def _return_date(ledger: Ledger, history: History) -> Iterator[Counterfactual]:
    h = ledger.header
    for step, rid, data, call_id in _first_reads(
        history, "get_reservation_details", "reservation_id"
    ):
        if data.get("flight_type") != "round_trip":
            continue
        split = split_round_trip(_namespace(data))
        if split is None:
            continue
        outbound, inbound = split
        flights = data["flights"]
        seen = {f"flights.{i}.date": flights[i]["date"] for i in inbound}
        if any(flights[i]["date"] in seen.values() for i in outbound):
            continue  # a same-day return: a date alone could be either leg
        true = {
            p: (date.fromisoformat(v) + timedelta(days=RETURN_SHIFT_DAYS)).isoformat()
            for p, v in seen.items()
        }
        expect = {
            **true,
            **{f"flights.{i}.flight_number": flights[i]["flight_number"] for i in inbound},
        }
        legs = ", ".join(
            f"{flights[i]['flight_number']} {flights[i]['origin']}→{flights[i]['destination']}"
            for i in inbound
        )
        item_id = f"{h.run_id}/return_date/{rid}"
        contract = FaultContract(
            contract_id=item_id,
            operator="return_date",
            operator_version="1",
            domain=h.domain,
            task_id=h.task_id,
            cluster=rid,
            target=Target(
                entity_type="reservation",
                entity_id=rid,
                paths=tuple(seen),
                scope=f"the current itinerary of reservation {rid}",
            ),
            authoritative_value=true,
            injected_value=seen,
            persistence="every_delivery",
            interventions=(
                ObservationRewrite(
                    tool="get_reservation_details",
                    match={"reservation_id": rid},
                    edits=tuple(Edit(path=p, value=v) for p, v in seen.items()),
                    expect=expect,
                ),
            ),
            refutation=Refutation(
                relation="round_trip_order",
                acquisition="co_delivered",
                params={
                    "reservation_id": rid,
                    "outbound": [
                        {
                            "index": i,
                            "flight_number": flights[i]["flight_number"],
                            "date": flights[i]["date"],
                        }
                        for i in outbound
                    ],
                    "injected_return_date": next(iter(seen.values())),
                },
            ),
            semantics=RETURN_SEMANTICS,
        )
        shown = sorted(set(seen.values()))
        yield Counterfactual(
            item_id=item_id,
            run_id=h.run_id,
            operator="return_date",
            t_f=step,
            call_id=call_id,
            tool="get_reservation_details",
            action="rewrite",
            contract=contract,
            fact=(
                f"the return date of reservation {rid} (return flight(s) {legs}). "
                f"Injected (false) value v′ = {', '.join(shown)}, as shown at step {step}; "
                f"true value v = {', '.join(sorted(set(true.values())))} (never shown)."
            ),
            user_states_injected=_user_states(ledger, shown),
        )


def _pay_source(ledger: Ledger, history: History) -> Iterator[Counterfactual]:
    h = ledger.header
    semantics = semantics_quotes()
    for step, uid, data, call_id in _first_reads(history, "get_user_details", "user_id"):
        methods = data.get("payment_methods") or {}
        for pid in sorted(methods):
            source = methods[pid].get("source") if isinstance(methods[pid], dict) else None
            if source not in FLIPS:
                continue
            path = f"payment_methods.{pid}.source"
            true = FLIPS[source]
            item_id = f"{h.run_id}/pay_source/{uid}/{pid}"
            contract = FaultContract(
                contract_id=item_id,
                operator="pay_source",
                operator_version="1",
                domain=h.domain,
                task_id=h.task_id,
                cluster=uid,
                target=Target(
                    entity_type="user",
                    entity_id=uid,
                    paths=(path,),
                    scope=f"the category of payment method {pid} of user {uid}",
                ),
                authoritative_value=true,
                injected_value=source,
                persistence="every_delivery",
                interventions=(
                    ObservationRewrite(
                        tool="get_user_details",
                        match={"user_id": uid},
                        edits=(Edit(path=path, value=source),),
                        expect={path: true},
                    ),
                ),
                refutation=Refutation(
                    relation="payment_id_category",
                    acquisition="co_delivered",
                    params={"payment_id": pid},
                ),
                semantics=semantics,
            )
            yield Counterfactual(
                item_id=item_id,
                run_id=h.run_id,
                operator="pay_source",
                t_f=step,
                call_id=call_id,
                tool="get_user_details",
                action="rewrite",
                contract=contract,
                fact=(
                    f"the category (source) of payment method {pid} of user {uid}. Injected "
                    f"(false) value v′ = {source!r}, as shown at step {step}; true value "
                    f"v = {true!r} (never shown as this method's category)."
                ),
                user_states_injected=_user_states(ledger, [source]),
            )


def _item_option(ledger: Ledger, history: History) -> Iterator[Counterfactual]:
    h = ledger.header
    products = load_domain("retail").base_db.products
    semantics = policy_quotes(load_domain("retail").policy)
    for step, oid, data, call_id in _first_reads(history, "get_order_details", "order_id"):
        for index, item in enumerate(data.get("items") or []):
            product = products.get(item.get("product_id"))
            options = item.get("options") or {}
            if product is None or not options:
                continue
            alternatives = {
                o: sorted(
                    {v.options[o] for v in product.variants.values() if o in v.options}
                    - {options[o]}
                )
                for o in sorted(options)
            }
            eligible = [o for o, alts in alternatives.items() if alts]
            if not eligible:
                continue
            rng = random.Random(f"{h.run_id}/{oid}/{index}")
            option = rng.choice(eligible)
            seen, true = options[option], alternatives[option][0]
            path = f"items.{index}.options.{option}"
            item_id = f"{h.run_id}/item_option/{oid}/{index}"
            contract = FaultContract(
                contract_id=item_id,
                operator="item_option",
                operator_version="1",
                domain=h.domain,
                task_id=h.task_id,
                cluster=f"{oid}:{index}",
                target=Target(
                    entity_type="order",
                    entity_id=oid,
                    paths=(path,),
                    scope=(
                        f"option {option!r} of item {item['item_id']} ({item.get('name')}) "
                        f"in order {oid}"
                    ),
                ),
                authoritative_value=true,
                injected_value=seen,
                persistence="every_delivery",
                interventions=(
                    ObservationRewrite(
                        tool="get_order_details",
                        match={"order_id": oid},
                        edits=(Edit(path=path, value=seen),),
                        expect={path: true, f"items.{index}.item_id": item["item_id"]},
                    ),
                ),
                refutation=Refutation(
                    relation="product_variant_binding",
                    acquisition="cross_record",
                    params={
                        "order_id": oid,
                        "item_id": item["item_id"],
                        "product_id": item["product_id"],
                        "option": option,
                        "true_value": true,
                    },
                ),
                semantics=semantics,
            )
            yield Counterfactual(
                item_id=item_id,
                run_id=h.run_id,
                operator="item_option",
                t_f=step,
                call_id=call_id,
                tool="get_order_details",
                action="rewrite",
                contract=contract,
                fact=(
                    f"option {option!r} of item {item['item_id']} ({item.get('name')}, "
                    f"position {index + 1} in order {oid}). Injected (false) value "
                    f"v′ = {seen!r}, as shown at step {step}; true value v = {true!r}."
                ),
                user_states_injected=_user_states(ledger, [str(seen)]),
            )


def _write_effect(ledger: Ledger, history: History) -> Iterator[Counterfactual]:
    h = ledger.header
    env = EpisodeEnvironment.open(h.domain, load_domain(h.domain).task(h.task_id))
    observed = {d.call.call_id: d for d in history.delivered}
    for call in (e for e in ledger.events if isinstance(e, AgentToolCall)):
        rid = str(call.arguments.get("reservation_id"))
        before = env.state.db.reservations.get(rid) if call.name in TARGET_TOOLS else None
        pre = before.model_dump(mode="json") if before is not None else None
        env.execute(ToolCall(id=call.call_id, name=call.name, arguments=call.arguments), 0)
        d = observed.get(call.call_id)
        if pre is None or d is None or d.observation.error or not isinstance(d.data, dict):
            continue
        fields = WRITE_FIELDS[call.name]
        v = {f: pre.get(f) for f in fields}
        v_prime = {f: d.data.get(f) for f in fields}
        if v == v_prime:
            continue
        match = json.loads(json.dumps(call.arguments))
        old, new = dict(flatten(v)), dict(flatten(v_prime))
        claimed = "; ".join(
            f"{p}: {old.get(p)!r} → {new[p]!r}" for p in new if old.get(p) != new[p]
        )
        item_id = f"{h.run_id}/write_effect/{call.step}"
        contract = FaultContract(
            contract_id=item_id,
            operator="write_effect",
            operator_version="1",
            domain=h.domain,
            task_id=h.task_id,
            cluster=rid,
            target=Target(
                entity_type="reservation",
                entity_id=rid,
                paths=fields,
                scope=f"the effect of {call.name} (step {call.step}) on reservation {rid}",
                logical_request={"tool": call.name, "match": match, "call_step": call.step},
            ),
            authoritative_value=v,
            injected_value=v_prime,
            persistence="first_attempt",
            interventions=(WriteSuppression(tool=call.name, match=match, affected_fields=fields),),
            refutation=Refutation(
                relation="post_write_read_back",
                acquisition="post_write_read_back",
                params={
                    "reservation_id": rid,
                    "tool": call.name,
                    "match": match,
                    "affected_fields": list(fields),
                },
            ),
        )
        yield Counterfactual(
            item_id=item_id,
            run_id=h.run_id,
            operator="write_effect",
            t_f=d.step,
            call_id=call.call_id,
            tool=call.name,
            action="suppress",
            contract=contract,
            fact=(
                f"the effect of the {call.name} call at step {call.step} on reservation {rid}. "
                f"Declared: the write did NOT take effect; its success payload at step "
                f"{d.step} is the false claim v′; the true state v is the reservation as it "
                f"was before the call. Claimed changes (v → v′): {claimed}."
            ),
            user_states_injected=False,
        )


PROPOSERS = {
    "return_date": _return_date,
    "pay_source": _pay_source,
    "item_option": _item_option,
    "write_effect": _write_effect,
}


def propose(ledger: Ledger) -> list[Counterfactual]:
    """Every counterfactual item one clean run offers, for each reference operator."""
    if ledger.header.fault is not None:
        return []
    history = History(ledger.events)
    domain = ledger.header.domain
    out: list[Counterfactual] = []
    for operator, proposer in PROPOSERS.items():
        if (operator == "item_option") != (domain == "retail"):
            continue
        out.extend(proposer(ledger, history))
    return out


def materialise(item: Counterfactual, ledger: Ledger, run_dir: Path) -> Path:
    """Write ``item`` as a faulted run directory (ledger with the contract in its header,
    hidden log confirming delivery at ``T_F``) that ``label_run`` reads as any other run."""
    run_dir.mkdir(parents=True, exist_ok=False)
    header: Header = ledger.header.model_copy(
        update={
            "run_id": item.item_id,
            "case_id": item.item_id,
            "fault": item.contract.model_dump(mode="json"),
        }
    )
    with JsonlWriter(run_dir / LEDGER_FILE) as out:
        out.append(header)
        for event in ledger.events:
            out.append(event)
        if ledger.end is not None:
            out.append(ledger.end)
    with JsonlWriter(run_dir / HIDDEN_FILE) as hidden:
        hidden.append(
            FaultDelivery(
                contract_id=item.item_id,
                step=item.t_f,
                call_id=item.call_id,
                tool=item.tool,
                role="fault",
                action=item.action,
                effective=True,
                control=False,
            )
        )
        hidden.append(StateCheck(final_state_hash=None, calls_executed=0, owned_entities=[]))
    return run_dir
