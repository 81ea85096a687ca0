"""Label one run from its ledger (model-visible), contract (header) and hidden log.

``T_F`` is read off the ledger — the first delivered observation that asserts ``v′`` (for a
write fault, the first success payload of the logical request) — and must be confirmed by
the hidden intervention log, which may only *confirm* that the mutation happened. ``T_E``
comes from the contract's refutation relation on the delivered history. Uses come from the
operator's rule set applied to agent messages and calls after ``T_F``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal, Protocol

from sscbench.errors import ConfigError
from sscbench.fault_contracts.artifacts import issues
from sscbench.fault_contracts.contract import (
    ArtifactTTL,
    FaultContract,
    ObservationRewrite,
    ReadingRewrite,
    StaleRead,
    ToolEdit,
    WriteSuppression,
)
from sscbench.fault_contracts.hidden_log import read_fault_deliveries
from sscbench.fault_contracts.history import History, SharedParses, arguments_match
from sscbench.fault_contracts.io import ledger_contract
from sscbench.fault_contracts.refutation import refutation_arrival
from sscbench.fault_contracts.relations.device_check import relayed_parts
from sscbench.json_paths import lookup
from sscbench.reconstruct.contract_labels import contract_label
from sscbench.reconstruct.detector import Use
from sscbench.reconstruct.labels import EventTime, RunLabels
from sscbench.reconstruct.rules.base import USE_RULES, GenericRules, RunView, UseRules
from sscbench.records.events import AgentMessage, AgentToolCall, UserMessage, by_agent
from sscbench.records.ledger import Ledger, read_ledger
from sscbench.runs.episode import HIDDEN_FILE, LEDGER_FILE
from sscbench.user_files import find_files

PARSES = SharedParses()
"""Observation texts parsed for the runs labelled in this process (the runs of a case
read the same records: each is parsed once while it is among the latest texts)."""


def fault_step(contract: FaultContract, history: History) -> int | None:
    """The first delivered fault-bearing observation, judged from the ledger alone."""
    for spec in contract.interventions:
        if isinstance(spec, ArtifactTTL):  # the first artifact issued
            return next((i.step for i in issues(spec, history)), None)
        if isinstance(spec, WriteSuppression | ToolEdit):
            for d in history.successes(spec.tool):
                if arguments_match(d.call.arguments, spec.match):
                    return d.step
            return None
    for spec in contract.interventions:
        if isinstance(spec, StaleRead):  # the first read that shows the cached record's v′
            path = contract.target.paths[0]
            for d in history.successes(spec.tool):
                if arguments_match(d.call.arguments, spec.match) and (
                    lookup(d.data, path) == contract.injected_value
                ):
                    return d.step
            return None
        if isinstance(spec, ReadingRewrite):  # the first customer message relaying the line
            for part in relayed_parts(history, contract.domain):
                if part.tool in (spec.tool, None) and spec.reads in part.text.splitlines():
                    return part.step
            return None
        if isinstance(spec, ObservationRewrite) and spec.role == "fault":
            for d in history.successes(spec.tool):
                if arguments_match(d.call.arguments, spec.match) and all(
                    lookup(d.data, e.path) == e.value for e in spec.edits
                ):
                    return d.step
    return None


def _first(uses: list[Use], pred: Any, label: str) -> EventTime:
    """The first step with a use matching ``pred``; undecidable when an undecidable use comes
    before it at an earlier step (at the same step, the step itself is known)."""
    for step in sorted({u.step for u in uses}):
        here = [u for u in uses if u.step == step]
        match = next((u for u in here if u.kind != "undecidable" and pred(u)), None)
        if match is not None:
            return EventTime(status="found", step=step, reason=match.reason, evidence=(step,))
        unsure = next((u for u in here if u.kind == "undecidable"), None)
        if unsure is not None:
            return EventTime(
                status="undecidable",
                step=step,
                reason=f"before any decided {label}: {unsure.reason}",
            )
    return EventTime(
        status="none" if label == "dependent use" else "never", reason=f"no {label} after the fault"
    )


def _clean(ledger: Ledger) -> RunLabels:
    h = ledger.header
    not_applicable = EventTime(status="none", reason="clean run (no fault)")
    return RunLabels(
        run_id=h.run_id,
        case_id=None,
        operator=None,
        control=False,
        agent=h.agent.name,
        configuration=h.configuration or h.agent.name,
        seed=h.seed,
        finished=ledger.finished,
        termination=ledger.end.termination if ledger.end else None,
        success=ledger.end.success if ledger.end else None,
        triggered=False,
        triggered_reason="clean run",
        t_f=not_applicable,
        t_e=not_applicable,
        t_s=not_applicable,
        t_u=not_applicable,
        adopted=None,
        adopted_reason="clean run",
        z_s=None,
        y_end=None,
    )


class EventClassifier(Protocol):
    """Pass 2 by something other than the operator's rules (e.g. an LLM)."""

    def uses(
        self, view: RunView, event: AgentMessage | AgentToolCall, candidates: list[str]
    ) -> list[Use]:
        """Classified uses in one agent event; ``candidates`` are the spans pass 1 found."""
        ...


class SecondPass(Protocol):
    """Revises a triggered run's uses once its labels are decided (e.g. an adjudicator
    that re-reads the uses of a low-confidence label)."""

    def revise(
        self, view: RunView, ledger: Ledger, uses: list[Use], label: RunLabels
    ) -> tuple[list[Use], dict[str, Any]]:
        """The run's uses after the second pass, and the record of what decided them."""
        ...


def rules_for(operator: str) -> UseRules:
    """The operator's registered rule set, or the generic value-centric rules."""
    factory = USE_RULES.get(operator) if operator in USE_RULES else GenericRules
    return factory()


def find_uses(
    ledger: Ledger, view: RunView, classifier: EventClassifier | None = None
) -> list[Use]:
    """Pass 1 and pass 2 over the run after ``T_F`` (pass 2 by ``classifier`` if given)."""
    found = rules_for(view.contract.operator).uses(view, ledger.events)
    if classifier is None:
        return found
    spans: dict[int, list[str]] = {}
    for use in found:
        spans.setdefault(use.step, []).append(use.evidence or use.reason)
    uses: list[Use] = []
    for event in ledger.events:
        if event.step > view.t_f and isinstance(event, AgentMessage | AgentToolCall):
            if not by_agent(event):
                continue  # a call the harness made to deliver a refutation
            uses.extend(classifier.uses(view, event, spans.get(event.step, [])))
    return uses


def _run_fields(ledger: Ledger, contract: FaultContract) -> dict[str, Any]:
    """What a label says about the run itself, before any event is reconstructed."""
    h = ledger.header
    return {
        "run_id": h.run_id,
        "case_id": h.case_id,
        "operator": contract.operator,
        "control": contract.control,
        "agent": h.agent.name,
        "configuration": h.configuration or h.agent.name,
        "seed": h.seed,
        "finished": ledger.finished,
        "termination": ledger.end.termination if ledger.end else None,
        "success": ledger.end.success if ledger.end else None,
    }


def triggered_state(run_dir: Path, t_f_step: int | None) -> tuple[bool | None, str]:
    """Whether the fault reached the model, and why: the ledger must show the fault-bearing
    observation *and* the intervention log must confirm its delivery at that step (the log
    can confirm, never establish, a delivery)."""
    deliveries = read_fault_deliveries(run_dir / HIDDEN_FILE)
    if deliveries is None:
        return None, "no hidden log to confirm the intervention"
    if t_f_step is None:
        return False, "the fault-bearing observation was never delivered"
    if any(
        d.step == t_f_step and d.role == "fault" and (d.effective or d.control) for d in deliveries
    ):
        return True, f"fault delivered at step {t_f_step}, confirmed by the intervention log"
    return None, f"ledger shows v′ at step {t_f_step} but the intervention log does not confirm it"


def _arrival(contract: FaultContract, history: History) -> EventTime:
    arrival = refutation_arrival(contract, history)
    return EventTime(
        status=arrival.status, step=arrival.step, reason=arrival.reason, evidence=arrival.evidence
    )


def _user_channel(ledger: Ledger, t_e: EventTime) -> Literal["user"] | None:
    """``user`` when the refutation at ``T_E`` is a customer message (a relayed device
    reading), else ``None`` (a tool observation, or no refutation)."""
    if t_e.status != "found" or t_e.step is None:
        return None
    at = next((e for e in ledger.events if e.step == t_e.step), None)
    return "user" if isinstance(at, UserMessage) else None


def adoption(uses: list[Use], t_u: EventTime) -> tuple[bool | None, str]:
    """``A`` and why: one erroneous reliance establishes adoption even when an undecidable
    use before it leaves ``T_U`` itself undecidable; without one, an undecidable ``T_U``
    leaves ``A`` undecidable."""
    reliance = next((u for u in uses if u.kind == "dependent_use" and u.erroneous), None)
    if reliance is not None:
        return True, reliance.reason
    if t_u.status == "undecidable":
        return None, t_u.reason
    return False, "no erroneous reliance"


def label_run(
    run_dir: Path,
    classifier: EventClassifier | None = None,
    second_pass: SecondPass | None = None,
) -> RunLabels:
    """Reconstruct the events of the run in ``run_dir`` (pass 2 by the operator's rules,
    or by ``classifier`` when given; ``second_pass`` as in :func:`label_ledger`)."""
    return label_ledger(run_dir, read_ledger(run_dir / LEDGER_FILE), classifier, second_pass)


def label_ledger(
    run_dir: Path,
    ledger: Ledger,
    classifier: EventClassifier | None = None,
    second_pass: SecondPass | None = None,
) -> RunLabels:
    """:func:`label_run` on the run's already parsed ledger (a command that needs the
    ledger for more than labelling parses it once). ``second_pass`` may revise the uses
    of a triggered run after its labels were first decided (the adjudicator,
    :mod:`sscbench.reconstruct.adjudicate`)."""
    contract = ledger_contract(ledger)
    if contract is None:
        return _clean(ledger)
    history = History(ledger.events, PARSES)
    base = _run_fields(ledger, contract)
    t_f_step = fault_step(contract, history)
    triggered, why = triggered_state(run_dir, t_f_step)
    t_e = _arrival(contract, history)
    base["refutation_channel"] = _user_channel(ledger, t_e)
    if not triggered or t_f_step is None:
        pending = EventTime(status="undecidable" if triggered is None else "none", reason=why)
        t_f = (
            EventTime(status="never", reason=why)
            if t_f_step is None
            else EventTime(status="found", step=t_f_step, reason=why)
        )
        return RunLabels(
            **base,
            triggered=triggered,
            triggered_reason=why,
            t_f=t_f,
            t_e=t_e,
            t_s=pending,
            t_u=pending,
            adopted=None,
            adopted_reason="not triggered",
            z_s=None,
            y_end=None,
            contract_label=_contract_label(contract, history, [], base["success"]),
        )
    view = RunView(history=history, t_f=t_f_step, contract=contract)
    uses = find_uses(ledger, view, classifier)
    label = _decided(base, why, t_f_step, t_e, uses, contract, history)
    if second_pass is None:
        return label
    revised, adjudication = second_pass.revise(view, ledger, uses, label)
    return _decided(base, why, t_f_step, t_e, revised, contract, history, adjudication)


def _decided(
    base: dict[str, Any],
    why: str,
    t_f_step: int,
    t_e: EventTime,
    uses: list[Use],
    contract: FaultContract,
    history: History,
    adjudication: dict[str, Any] | None = None,
) -> RunLabels:
    """The labels of a triggered run, from its uses."""
    # A quote of v′ to question, check or flag it is a dependent use (it sets T_S) but
    # never erroneous reliance (it never sets T_U or A).
    t_s = _first(uses, lambda u: u.kind in ("dependent_use", "verification"), "dependent use")
    t_u = _first(uses, lambda u: u.kind == "dependent_use" and u.erroneous, "erroneous reliance")
    adopted, adopted_reason = adoption(uses, t_u)
    return RunLabels(
        **base,
        triggered=True,
        triggered_reason=why,
        t_f=EventTime(status="found", step=t_f_step, reason=why, evidence=(t_f_step,)),
        t_e=t_e,
        t_s=t_s,
        t_u=t_u,
        adopted=adopted,
        adopted_reason=adopted_reason,
        z_s=arrival_class(t_e, t_s),
        y_end=terminal_stance(uses, t_u) if adopted else None,
        uses=tuple(
            {
                "step": u.step,
                "kind": u.kind,
                "erroneous": u.erroneous,
                "source": u.source,
                "reason": u.reason,
                "evidence": u.evidence,
            }
            for u in uses
        ),
        contract_label=_contract_label(contract, history, uses, base["success"]),
        adjudication=adjudication,
    )


def _contract_label(
    contract: FaultContract, history: History, uses: list[Use], success: bool | None
) -> dict[str, Any] | None:
    label = contract_label(contract, history, uses, success)
    return None if label is None else label.model_dump(mode="json")


def arrival_class(t_e: EventTime, t_s: EventTime) -> Any:
    """``Z_S``: before / after / absent on decidable ``T_S``; ``none`` without a use."""
    if t_s.status == "none":
        return "none"
    if t_s.status != "found" or t_s.step is None:
        return "undecidable"
    if t_e.status == "never":
        return "absent"
    if t_e.status != "found" or t_e.step is None:
        return "undecidable"
    return "before" if t_e.step < t_s.step else "after"


def terminal_stance(uses: list[Use], t_u: EventTime) -> Any:
    """``Y_end``: the last explicit stance on ``v′`` at or after ``T_U``; a last message that
    both endorses and retracts is undecidable, and so is a stance followed by a mention that
    could be about another entity (two laptops, two trips): that later mention may be the
    agent's last word on the fact."""
    first = next((u.step for u in uses if u.kind == "dependent_use" and u.erroneous), None)
    start = t_u.step if t_u.step is not None else first
    stances = [
        (u.step, u.stance) for u in uses if start is not None and u.step >= start and u.stance
    ]

    if not stances:
        return "undecidable"
    last = stances[-1][0]
    if any(u.kind == "undecidable" and u.step > last for u in uses):
        return "undecidable"
    final = {stance for step, stance in stances if step == last}
    return final.pop() if len(final) == 1 else "undecidable"


def run_dirs(root: Path) -> list[Path]:
    """Every run directory under ``root`` (those holding a ledger, attempts set aside as
    ``.incomplete-N`` left out), sorted by path: the order labels are written in."""
    return [ledger_path.parent for ledger_path in find_files(root, LEDGER_FILE)]


def label_dir(
    root: Path, classifier: EventClassifier | None = None, second_pass: SecondPass | None = None
) -> list[RunLabels]:
    """Label every run directory under ``root`` (those holding a ledger), sorted by path."""
    return [label_run(run_dir, classifier, second_pass) for run_dir in run_dirs(root)]


def label_dir_or_skip(
    root: Path, classifier: EventClassifier | None = None, second_pass: SecondPass | None = None
) -> tuple[list[RunLabels], list[str]]:
    """Like :func:`label_dir`, but a run whose contract cannot be applied is skipped and
    listed as a one-line problem: one such run must not keep the others from being
    labelled. An unreadable ledger still stops everything (it is not a run's property but
    a damaged file, named by :class:`LedgerError`)."""
    labels: list[RunLabels] = []
    problems: list[str] = []
    for run_dir in run_dirs(root):
        try:
            labels.append(label_run(run_dir, classifier, second_pass))
        except ConfigError as exc:
            problems.append(str(exc))
    return labels, problems
