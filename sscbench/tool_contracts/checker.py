"""The dynamic checker: run a contract's probes through an adapter and score every clause.

Each probe runs on a fresh environment (create → setup calls → snapshot → call →
snapshot), with argument values taken from the pre-state by the probe's expression. The
clause verdicts follow :mod:`sscbench.tool_contracts.rules`; a clause no probe could
score is UNTESTABLE with a reason code and stays in every denominator.
"""

from __future__ import annotations

import json
from typing import Any

from sscbench.tool_contracts.adapter import Adapter
from sscbench.tool_contracts.model import (
    Clause,
    ClauseResult,
    Contract,
    DefectClass,
    Probe,
    ToolResult,
    Witness,
)
from sscbench.tool_contracts.predicates import NoProbeValue, evaluate
from sscbench.tool_contracts.rules import (
    Observation,
    PredicateError,
    argument_ignored,
    clause_flips,
    effect_class,
    effects_on,
    false_preconditions,
    holds,
    invariant_broken,
    precondition_unenforced,
    reads_args,
)


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value, sort_keys=True, default=str))


def _adjusted(probe: Probe, pre: dict[str, Any], args: dict[str, Any]) -> dict[str, Any]:
    if probe.adjust is None:
        return args
    return {**args, **evaluate(probe.adjust, pre=pre, args=args)}


def _probe_args(contract: Contract, probe: Probe, pre: dict[str, Any]) -> list[dict[str, Any]]:
    """The argument sets a probe calls the tool with (several for ``vary``)."""
    if probe.kind not in ("vary", "falsy"):
        return [_adjusted(probe, pre, dict(evaluate(probe.args or "{}", pre=pre)))]
    happy = next(p for p in contract.probes if p.kind == "happy")
    base = _adjusted(happy, pre, dict(evaluate(happy.args or "{}", pre=pre)))
    if probe.kind == "falsy":
        for name, arg in contract.args.items():
            if arg.falsy is not None:
                base[name] = evaluate(arg.falsy, pre=pre, args=base)
        return [_adjusted(probe, pre, base)]
    return [
        _adjusted(probe, pre, {**base, str(probe.arg): evaluate(v, pre=pre, args=base)})
        for v in probe.values
    ]


def observe(adapter: Adapter, contract: Contract, probe: Probe) -> list[Observation] | str:
    """Run one probe; a reason code instead when the pre-state offers no probe value."""
    adapter.create()
    try:
        for tool, expr in probe.setup:
            out = adapter.call(tool, _jsonable(evaluate(expr, pre=adapter.snapshot())))
            if out.error:
                return "setup_failed"
        pre = adapter.snapshot()
        arg_sets = _probe_args(contract, probe, pre)
    except NoProbeValue:
        return "no_probe_value"
    observations = []
    for index, args in enumerate(arg_sets):
        if index:  # a fresh episode, not reset(): only the reset rule exercises reset
            adapter.create()
            for tool, expr in probe.setup:
                adapter.call(tool, _jsonable(evaluate(expr, pre=adapter.snapshot())))
        args = _jsonable(args)
        out = adapter.call(contract.tool, json.loads(json.dumps(args)))
        observations.append(
            Observation(
                probe=probe.id if len(arg_sets) == 1 else f"{probe.id}#{index}",
                kind=probe.kind,
                args=args,
                pre=pre,
                post=adapter.snapshot(),
                result=out.value(),
                text=out.text,
                error=out.error,
                setup=probe.setup,
            )
        )
    return observations


def _witness(obs: Observation) -> Witness:
    text = obs.text if len(obs.text) <= 400 else obs.text[:397] + "..."
    return Witness(
        probe=obs.probe,
        setup=obs.setup,
        args=json.dumps(obs.args, sort_keys=True),
        result=text,
        error=obs.error,
        diff=obs.diff_lines(),
    )


class _Scorer:
    """Clause results for one contract from its observations."""

    def __init__(self, contract: Contract, observations: list[Observation]) -> None:
        self.c = contract
        self.obs = observations
        self.results: list[ClauseResult] = []
        self.legal_ok: list[Observation] = []
        for o in observations:
            try:
                if not o.error and not false_preconditions(contract, o):
                    self.legal_ok.append(o)
            except PredicateError:
                continue

    def add(self, clause: Clause | None, cid: str, verdict: str, **kw: Any) -> None:
        kind = cid.split(".", 1)[0]
        tier = clause.tier if clause is not None else kw.pop("tier", "author")
        fields = clause.fields if clause is not None else ()
        self.results.append(
            ClauseResult(
                domain=self.c.domain, tool=self.c.tool, clause=cid, kind=kind,  # type: ignore[arg-type]
                tier=tier, verdict=verdict, fields=fields, **kw,  # type: ignore[arg-type]
            )
        )  # fmt: skip

    def preconditions(self) -> None:
        for clause in self.c.preconditions:
            tested = []
            for o in self.obs:
                try:
                    if false_preconditions(self.c, o) == [clause.id]:
                        tested.append(o)
                except PredicateError:
                    continue
            bad = [o for o in tested if precondition_unenforced(o)]
            if not tested:
                self.add(clause, clause.id, "UNTESTABLE", reason="no_violating_probe")
            elif bad:
                self.add(clause, clause.id, "VIOLATES", defect_class="Unenforced Precondition",
                         witness=_witness(bad[0]))  # fmt: skip
            else:
                self.add(clause, clause.id, "CONFORMS")

    def variants(self, name: str) -> list[Observation]:
        """Successful legal calls of the vary probes of argument ``name``."""
        ids = {p.id for p in self.c.probes if p.kind == "vary" and p.arg == name}
        return [o for o in self.legal_ok if o.kind == "vary" and o.probe.split("#")[0] in ids]

    def arguments(self) -> set[str]:
        """Argument verdicts; returns the arguments found ignored (for effect classes)."""
        ignored = set()
        for name, arg in sorted(self.c.args.items()):
            if not arg.effective:
                continue
            group = self.variants(name)
            verdict = argument_ignored(group)
            cid = f"arg.{name}"
            if verdict is None:
                self.add(None, cid, "UNTESTABLE", reason="no_variant_pair", tier="agent_visible")
            elif verdict is False:
                self.add(None, cid, "CONFORMS", tier="agent_visible")
            else:
                cls = "Ignored Argument" if verdict is True else verdict
                if verdict is True:
                    ignored.add(name)
                self.add(None, cid, "VIOLATES", defect_class=cls,
                         witness=_witness(group[-1]), tier="agent_visible")  # fmt: skip
            if any(clause_flips(c, group) for c in self.c.effects if name in reads_args(
                    c.predicate) and not c.deferred):  # fmt: skip
                ignored.add(name)
        return ignored

    def effects(self, ignored: set[str]) -> dict[str, DefectClass | None]:
        """Effect verdicts; returns each probe's class of a failing effect (for frames)."""
        per_probe: dict[str, DefectClass | None] = {}
        for clause in self.c.effects:
            if clause.deferred:
                self.add(clause, clause.id, "UNTESTABLE", reason="no_observable_state")
                continue
            scored, failed = 0, None
            for o in self.legal_ok:
                try:
                    ok = holds(clause, o)
                except PredicateError:
                    continue
                scored += 1
                if not ok and failed is None:
                    failed = o
            if not scored:
                reason = "no_legal_success" if not self.legal_ok else "predicate_type_error"
                self.add(clause, clause.id, "UNTESTABLE", reason=reason)
                continue
            if failed is None:
                self.add(clause, clause.id, "CONFORMS")
                continue
            cls = effect_class(self.c, clause, failed, effects_on(self.c, failed), ignored)
            per_probe.setdefault(failed.probe, cls)
            self.add(clause, clause.id, "VIOLATES", defect_class=cls, witness=_witness(failed))
        return per_probe

    def frames(self, per_probe: dict[str, DefectClass | None]) -> None:
        happy = [o for o in self.legal_ok if o.kind == "happy"]
        for clause in self.c.frame:
            bad = [o for o in happy if not holds(clause, o)]
            if not happy:
                self.add(clause, clause.id, "UNTESTABLE", reason="no_legal_success")
            elif bad:
                self.add(clause, clause.id, "VIOLATES", defect_class=per_probe.get(bad[0].probe),
                         witness=_witness(bad[0]))  # fmt: skip
            else:
                self.add(clause, clause.id, "CONFORMS")

    def invariants(self) -> None:
        for clause in self.c.invariants:
            scored, bad = 0, None
            for o in self.legal_ok:
                try:
                    if not holds(clause, o, on_pre=True):
                        continue
                    scored += 1
                    if bad is None and invariant_broken(clause, o):
                        bad = o
                except PredicateError:
                    continue
            if not scored:
                self.add(clause, clause.id, "UNTESTABLE", reason="no_legal_success")
            elif bad is not None:
                self.add(clause, clause.id, "VIOLATES", defect_class="Invariant Break",
                         witness=_witness(bad))  # fmt: skip
            else:
                self.add(clause, clause.id, "CONFORMS")


def check_reset(adapter: Adapter, contract: Contract) -> tuple[str, str | None]:
    """Reset rule: after a happy call and ``reset()``, the state equals the initial one."""
    happy = next(p for p in contract.probes if p.kind == "happy")
    adapter.create()
    initial = adapter.snapshot()
    try:
        args = _jsonable(evaluate(happy.args or "{}", pre=initial))
    except NoProbeValue:
        return "UNTESTABLE", "no_probe_value"
    adapter.call(contract.tool, args)
    adapter.reset()
    return ("CONFORMS", None) if adapter.snapshot() == initial else ("VIOLATES", None)


def check_tool(adapter: Adapter, contract: Contract) -> ToolResult:
    """Run every probe of ``contract`` and score every clause, argument and the reset."""
    observations: list[Observation] = []
    for probe in contract.probes:
        got = observe(adapter, contract, probe)
        if isinstance(got, list):
            observations.extend(got)
    scorer = _Scorer(contract, observations)
    scorer.preconditions()
    ignored = scorer.arguments()
    per_probe = scorer.effects(ignored)
    scorer.frames(per_probe)
    scorer.invariants()
    verdict, _ = check_reset(adapter, contract)
    scorer.add(None, "reset.initial_state", verdict, tier="author",
               defect_class="Reset Leak" if verdict == "VIOLATES" else None)  # fmt: skip
    adapter.check_base()
    results = tuple(scorer.results)
    verdicts = {r.verdict for r in results}
    tool_verdict = (
        "VIOLATES" if "VIOLATES" in verdicts
        else "CONFORMS" if "CONFORMS" in verdicts else "UNTESTABLE"
    )  # fmt: skip
    return ToolResult(
        domain=contract.domain, tool=contract.tool, verdict=tool_verdict,  # type: ignore[arg-type]
        clauses=results, probes_run=len(observations),
    )  # fmt: skip
