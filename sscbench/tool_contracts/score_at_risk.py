"""Score-at-risk: which task verdicts read the state a defect touches, and does any change.

Three measures, never pooled: *exposure* (a task's grader reads a field the defect
touches: ``exact_field``, ``collection_only``, ``whole_state_hash``, or ``unresolved`` when
a read cannot be resolved and is forced in), *reach* (the task's gold path calls the tool
under the defect's trigger), and *verdict change* (the paired comparison of the shipped
tool and a repaired copy on gold and constructed paths). Graders: SSCBench's live-state
grader (a whole-state hash) and τ²'s own evaluator (database hash for airline/retail;
environment assertions for telecom, resolved to fields by reading their source).
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from collections.abc import Callable, Iterator
from functools import cache
from importlib import import_module
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from sscbench.envs.tau2_runtime import prepare_tau2
from sscbench.tool_contracts.adapter import Adapter, make_adapter
from sscbench.tool_contracts.model import ClauseResult, Contract
from sscbench.tool_contracts.mutants import Patch, catalog, patched_adapter
from sscbench.tool_contracts.rules import Observation, PredicateError, holds

Basis = Literal["exact_field", "collection_only", "whole_state_hash", "unresolved"]


class _Rec(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ExposureRow(_Rec):
    """One exposed task of one finding under one grader, with its basis."""

    finding: str
    grader: str
    task: str
    basis: Basis
    reads: tuple[str, ...]


class PathRow(_Rec):
    """One path run with the shipped and the repaired tool."""

    finding: str
    task: str
    path: Literal["gold", "constructed"]
    reached: bool
    states_differ: bool
    verdict_shipped: bool | None = None
    verdict_repaired: bool | None = None


class FindingRisk(_Rec):
    """Score-at-risk of one finding: exposure per grader and basis, reach, change."""

    finding: str
    fields: tuple[str, ...]
    tasks: int
    exposure: dict[str, dict[str, int]]
    gold_call_tasks: int
    reached_tasks: int
    rows: tuple[ExposureRow, ...]
    paths: tuple[PathRow, ...]


@cache
def _tasks(domain: str) -> tuple[Any, ...]:
    prepare_tau2()
    return tuple(import_module(f"tau2.domains.{domain}.environment").get_tasks())


def _attrs(fn: Callable[..., Any], hops: int = 3) -> set[str]:
    """Attribute names a function reads, following ``self.x(...)`` helpers up to ``hops``."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    names = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    owner = getattr(fn, "__self__", None) or inspect.getmodule(fn)
    if hops and owner is not None:
        for name in list(names):
            helper = getattr(owner, name, None)
            if callable(helper) and hasattr(helper, "__code__"):
                names |= _attrs(helper, hops - 1)
    return names


@cache
def _field_paths(domain: str) -> dict[str, tuple[str, ...]]:
    """attribute name → the state paths that carry it (``collection.*.attribute``)."""
    prepare_tau2()
    db_class = {"airline": "FlightDB", "retail": "RetailDB", "telecom": "TelecomDB"}[domain]
    db = getattr(import_module(f"tau2.domains.{domain}.data_model"), db_class)
    out: dict[str, list[str]] = {}
    for coll, info in db.model_fields.items():
        args = getattr(info.annotation, "__args__", ())
        model = args[-1] if args else None
        for name in getattr(model, "model_fields", {}):
            out.setdefault(name, []).append(f"{coll}.*.{name}")
    return {k: tuple(v) for k, v in out.items()}


@cache
def _assertion_reads(domain: str, func: str, env_type: str) -> tuple[str, ...] | None:
    """Fields an environment assertion reads (``None``: unresolved)."""
    prepare_tau2()
    mod = import_module(f"tau2.domains.{domain}.environment")
    if env_type == "assistant":
        tools = import_module(f"tau2.domains.{domain}.tools")
        cls = next((v for k, v in vars(tools).items() if k.endswith("Tools")), None)
        fn = getattr(cls, func, None)
        if fn is None:
            return None
        names = _attrs(fn)
        names |= {h for n in list(names) if callable(getattr(cls, n, None))
                  for h in _attrs(getattr(cls, n))}  # fmt: skip
    else:
        env_cls = next((v for k, v in sorted(vars(mod).items()) if k.endswith("Environment")
                        and k != "Environment" and hasattr(v, "sync_tools")), None)  # fmt: skip
        if env_cls is None:
            return None
        names = _attrs(env_cls.sync_tools)
    paths = sorted({p for n in names for p in _field_paths(domain).get(n, ())})
    return tuple(paths) or None


def grader_reads(domain: str, task: Any) -> dict[str, list[str] | None]:
    """grader → the state paths it reads for ``task`` (``["*"]``: a whole-state hash;
    ``None``: a read that could not be resolved)."""
    out: dict[str, list[str] | None] = {}
    if domain in ("airline", "retail"):
        out["sscbench.live_state"] = ["*"]
    basis = {str(b).split(".")[-1] for b in task.evaluation_criteria.reward_basis or []}
    reads: list[str] | None = []
    if "DB" in basis:
        reads = ["*"]
    if "ENV_ASSERTION" in basis:
        for a in task.evaluation_criteria.env_assertions or []:
            got = _assertion_reads(domain, a.func_name, a.env_type)
            if got is None:
                reads = None
                break
            reads = sorted(set(reads or []) | set(got))
    out["tau2.evaluator"] = reads
    return out


def _basis(fields: tuple[str, ...], reads: list[str] | None) -> Basis | None:
    if reads is None:
        return "unresolved"
    if "*" in reads:
        return "whole_state_hash"

    def near(a: str, b: str) -> bool:
        return a == b or a.startswith(b + ".") or b.startswith(a + ".")

    if any(near(f, r) for f in fields for r in reads):
        return "exact_field"
    if {f.split(".")[0] for f in fields} & {r.split(".")[0] for r in reads}:
        return "collection_only"
    return None


def _gold_calls(task: Any, domain: str) -> Iterator[tuple[str, dict[str, Any]]]:
    state = task.initial_state
    for a in (state.initialization_actions or []) if state is not None else []:
        if a.env_type == "assistant":
            yield a.func_name, dict(a.arguments)
    for a in task.evaluation_criteria.actions or []:
        if getattr(a, "requestor", "assistant") == "assistant":
            yield a.name, dict(a.arguments)


def _replay(
    adapter: Adapter,
    contract: Contract,
    clause: ClauseResult,
    task: Any,
    construct: tuple[str, str] | None,
) -> tuple[bool, bool, dict[str, Any]]:
    """Replay a gold path; returns (gold calls the tool, trigger reached, final state)."""
    from sscbench.tool_contracts.predicates import evaluate

    adapter.create()
    called = reached = False
    spec = {c.id: c for c in contract.clauses()}.get(clause.clause)
    for name, args in _gold_calls(task, contract.domain):
        if name == contract.tool:
            called = True
            if construct is not None:
                adapter.call(construct[0], dict(evaluate(construct[1], args=args)))
            pre = adapter.snapshot()
            out = adapter.call(name, args)
            obs = Observation(probe="gold", kind="gold", args=args, pre=pre,
                              post=adapter.snapshot(), result=out.value(), text=out.text,
                              error=out.error)  # fmt: skip
            if spec is not None:
                try:
                    ok = holds(spec, obs)
                except PredicateError:
                    ok = True
                reached |= not ok and (clause.kind != "pre" or not out.error or obs.mutated)
        else:
            adapter.call(name, args)
    return called, reached, adapter.snapshot()


def _tau2_assertions(adapter: Adapter, task: Any) -> bool | None:
    """τ²'s assistant-side environment assertions on the adapter's state (telecom)."""
    toolkit = getattr(adapter, "toolkit", None)
    checks = [a for a in task.evaluation_criteria.env_assertions or []
              if a.env_type == "assistant"]  # fmt: skip
    if toolkit is None or not checks:
        return None
    return all(bool(getattr(toolkit, a.func_name)(**a.arguments)) == a.assert_value
               for a in checks)  # fmt: skip


def defect_fields(contract: Contract, clause: ClauseResult) -> tuple[str, ...]:
    """F(d): what the tool should have written (the clause's fields) or, for an unenforced
    precondition, what it wrote although it should have been blocked (its effects')."""
    if clause.fields:
        return clause.fields
    if clause.kind == "pre":
        return tuple(sorted({f for e in contract.effects for f in e.fields}))
    return ()


def risk(
    contract: Contract,
    clause: ClauseResult,
    patch: Patch | None,
    construct: tuple[str, str] | None = None,
) -> FindingRisk:
    """Score-at-risk of one VIOLATES clause."""
    finding = f"{contract.domain}/{contract.tool}/{clause.clause}"
    fields = defect_fields(contract, clause)
    tasks = _tasks(contract.domain)
    rows: list[ExposureRow] = []
    for task in tasks:
        for grader, reads in grader_reads(contract.domain, task).items():
            basis = _basis(fields, reads)
            if basis is not None:
                rows.append(ExposureRow(finding=finding, grader=grader, task=str(task.id),
                                        basis=basis, reads=tuple(reads or ("?",))))  # fmt: skip
    exposure: dict[str, dict[str, int]] = {}
    for row in rows:
        per = exposure.setdefault(row.grader, {})
        per[row.basis] = per.get(row.basis, 0) + 1
    paths: list[PathRow] = []
    called_n = reached_n = 0
    shipped = make_adapter(contract.domain)
    repaired = patched_adapter(patch) if patch is not None else None
    for task in tasks:
        called, reached, final = _replay(shipped, contract, clause, task, None)
        called_n += called
        reached_n += reached
        if not called or repaired is None:
            continue
        kinds = [("gold", None)] + ([("constructed", construct)] if construct else [])
        for kind, extra in kinds:
            if extra is not None:
                _, reached, final = _replay(shipped, contract, clause, task, extra)
            v_shipped = _tau2_assertions(shipped, task)
            _, _, fixed = _replay(repaired, contract, clause, task, extra)
            paths.append(PathRow(finding=finding, task=str(task.id), path=kind,  # type: ignore[arg-type]
                                 reached=reached, states_differ=final != fixed,
                                 verdict_shipped=v_shipped,
                                 verdict_repaired=_tau2_assertions(repaired, task)))  # fmt: skip
    return FindingRisk(finding=finding, fields=fields, tasks=len(tasks),
                       exposure=exposure, gold_call_tasks=called_n, reached_tasks=reached_n,
                       rows=tuple(rows), paths=tuple(paths))  # fmt: skip


CONSTRUCTIONS: dict[str, tuple[str, str]] = {
    "telecom/refuel_data/pre.line_active": (
        "suspend_line",
        "{'customer_id': args['customer_id'], 'line_id': args['line_id'], "
        "'reason': 'constructed path'}",
    ),
}
"""Constructed paths: a call inserted right before the gold call of the defective tool
so that the trigger holds (the paper's construction for the suspended-line refuel)."""


def patch_for(finding: str) -> Patch | None:
    """The shipped repair of a finding, if there is one."""
    return next((p for p in catalog().patches if p.finding == finding), None)
