"""Re-derive a stored witness: same prefix, legal calls, same observations, T_E < T_S < ∞."""

from __future__ import annotations

from sscbench.fault_contracts.contract import FaultContract
from sscbench.fault_contracts.history import History
from sscbench.fault_contracts.refutation import refutation_arrival
from sscbench.witnesses.context import NoContext, build_context, write_through
from sscbench.witnesses.legality import is_legal
from sscbench.witnesses.record import Witness
from sscbench.witnesses.search import continue_with, use_text


def verify_witness(contract: FaultContract, witness: Witness) -> list[str]:
    """Problems found replaying ``witness`` for ``contract`` (empty when it holds)."""
    problems: list[str] = []
    if witness.contract_id != contract.contract_id:
        problems.append(f"witness is for {witness.contract_id}, not {contract.contract_id}")
    if witness.contract_sha256 != contract.content_hash():
        problems.append("contract hash differs from the one the witness was found for")
    try:
        ctx = build_context(contract)
    except NoContext as exc:
        return [*problems, f"no injection context: {exc}"]
    if (witness.prefix_hash, witness.prefix_steps, witness.t_f) != (
        ctx.prefix_hash,
        len(ctx.events),
        ctx.t_f,
    ):
        problems.append("the injection context does not rebuild to the stored prefix")
    calls = tuple((c.name, c.arguments) for c in witness.continuation)
    events, made = continue_with(ctx, calls)
    through = write_through(contract)
    for i, call in enumerate(witness.continuation):
        visible = events[: len(ctx.events) + 2 * i]
        confirmed = i == 0 and through == (call.name, call.arguments)
        reason = (
            None if confirmed else is_legal(contract.domain, call.name, call.arguments, visible)
        )
        if reason is not None:
            problems.append(f"continuation call {i} is not legal: {reason}")
        if made[i].observation_sha256 != call.observation_sha256:
            problems.append(
                f"continuation call {i} ({call.name}) delivered a different observation"
            )
    if witness.use_text != use_text(contract):
        problems.append("the proposed use differs from the contract's")
    t_s = len(events) - 1
    arrival = refutation_arrival(contract, History(events))
    if t_s != witness.t_s:
        problems.append(f"T_S re-derives to {t_s}, stored {witness.t_s}")
    if arrival.status != "found" or arrival.step is None:
        problems.append(f"no refutation on replay ({arrival.status}: {arrival.reason})")
    elif arrival.step != witness.t_e or not arrival.step < t_s:
        problems.append(f"T_E re-derives to {arrival.step} (stored {witness.t_e}), T_S {t_s}")
    return problems
