"""The defect classes as rules over observed calls ``(pre, post, args, result)``.

Pure functions of a contract and observations, with no adapter or probe logic, so a fault
operator can reuse them to certify that its injected defect *is* the class it claims
(run the call, build an :class:`Observation`, ask these rules). Decisions that the source
paper leaves open are fixed here and documented in ``docs/tool-contracts.md``:

* a precondition counts as tested only on a call where it is the *only* false one;
* a failing effect clause is Ignored Argument only when it reads an effective argument
  that the variant test also found ignored; otherwise Phantom Effect (every testable
  effect fails, biconditional success signal) or Partial Effect (at least one holds);
* a frame violation takes the class of an effect that failed on the same call, and has
  no class of its own otherwise;
* an invariant is only checked where it held before the call, after a legal call.
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass
from functools import cache
from typing import Any

from sscbench.tool_contracts.model import Clause, Contract, DefectClass
from sscbench.tool_contracts.predicates import changed, diff, evaluate


@dataclass(frozen=True)
class Observation:
    """One probed call: the states around it, its arguments and what it returned."""

    probe: str
    kind: str
    args: dict[str, Any]
    pre: dict[str, Any]
    post: dict[str, Any]
    result: Any
    text: str
    error: bool
    setup: tuple[tuple[str, str], ...] = ()

    @property
    def mutated(self) -> bool:
        """The call changed state."""
        return self.pre != self.post

    def roles(self) -> dict[str, Any]:
        """The names a predicate sees."""
        return {
            "pre": self.pre,
            "post": self.post,
            "args": self.args,
            "result": self.result,
            "error": self.error,
        }

    def diff_lines(self, limit: int = 12) -> tuple[str, ...]:
        """The state diff as short ``path: before -> after`` lines."""
        lines = [
            f"{path}: {_short(before)} -> {_short(after)}"
            for path, before, after in diff(self.pre, self.post)
        ]
        if len(lines) > limit:
            lines = [*lines[:limit], f"... {len(lines) - limit} more"]
        return tuple(lines)


def _short(value: Any, limit: int = 80) -> str:
    text = json.dumps(value, sort_keys=True, default=str)
    return text if len(text) <= limit else text[: limit - 3] + "..."


class PredicateError(Exception):
    """A predicate raised on an observation (the clause is UNTESTABLE there)."""


def holds(clause: Clause, obs: Observation, *, on_pre: bool = False) -> bool:
    """Evaluate a clause on an observation (``on_pre``: with ``post`` bound to the pre-state)."""
    roles = obs.roles()
    if on_pre:
        roles["post"] = obs.pre
    try:
        return bool(evaluate(clause.predicate, **roles))
    except Exception as exc:
        raise PredicateError(f"{clause.id}: {type(exc).__name__}: {exc}") from None


@cache
def reads_args(predicate: str) -> frozenset[str]:
    """The argument names a predicate reads (``args['x']`` or ``args.get('x')``)."""
    names = set()
    for node in ast.walk(ast.parse(predicate, mode="eval")):
        if (
            isinstance(node, ast.Subscript)
            and isinstance(node.value, ast.Name)
            and node.value.id == "args"
            and isinstance(node.slice, ast.Constant)
        ):
            names.add(str(node.slice.value))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner = node.func.value
            if isinstance(owner, ast.Name) and owner.id == "args" and node.args:
                first = node.args[0]
                if isinstance(first, ast.Constant):
                    names.add(str(first.value))
    return frozenset(names)


def false_preconditions(contract: Contract, obs: Observation) -> list[str]:
    """Ids of the preconditions that do not hold on the call's pre-state and arguments."""
    return [c.id for c in contract.preconditions if not holds(c, obs)]


def legal(contract: Contract, obs: Observation) -> bool:
    """Every precondition holds."""
    return not false_preconditions(contract, obs)


def precondition_unenforced(obs: Observation) -> bool:
    """A call violating a precondition must raise and leave the state alone."""
    return not obs.error or obs.mutated


def effect_class(
    contract: Contract,
    clause: Clause,
    obs: Observation,
    testable_failing: tuple[set[str], set[str]],
    ignored_args: set[str],
) -> DefectClass | None:
    """The class of a failing effect clause on one successful legal call.

    Phantom Effect first: success reported, every testable effect absent and the state
    untouched. Then Ignored Argument: the clause reads an effective argument that the
    variant rule found ignored, or whose value flips the clause between its variant
    calls (``ignored_args`` holds both). Otherwise Partial Effect if any effect held.
    """
    failing, testable = testable_failing
    if failing >= testable and not obs.mutated and contract.success_signal.biconditional:
        return "Phantom Effect"
    effective = {name for name, a in contract.args.items() if a.effective}
    if reads_args(clause.predicate) & effective & ignored_args:
        return "Ignored Argument"
    if failing < testable:
        return "Partial Effect"
    return None


def effects_on(contract: Contract, obs: Observation) -> tuple[set[str], set[str]]:
    """(failing, testable) effect ids on one successful legal call; deferred ones excluded."""
    testable, failing = set(), set()
    for clause in contract.effects:
        if clause.deferred:
            continue
        try:
            ok = holds(clause, obs)
        except PredicateError:
            continue
        testable.add(clause.id)
        if not ok:
            failing.add(clause.id)
    return failing, testable


def argument_ignored(observations: list[Observation]) -> DefectClass | bool | None:
    """Ignored Argument's variant rule: successful calls differing only in one effective
    argument leave identical post-states (``None`` with fewer than two such calls). When
    none of the calls changed anything the argument is not the problem: Phantom Effect."""
    if len(observations) < 2:
        return None
    if not any(o.mutated for o in observations):
        return "Phantom Effect"
    return len({json.dumps(o.post, sort_keys=True) for o in observations}) == 1


def clause_flips(clause: Clause, observations: list[Observation]) -> bool:
    """The clause holds on some variant calls of an argument and fails on others."""
    seen = set()
    for o in observations:
        try:
            seen.add(holds(clause, o))
        except PredicateError:
            continue
    return len(seen) == 2


def invariant_broken(clause: Clause, obs: Observation) -> bool:
    """An invariant that held before a legal successful call and fails after it."""
    return holds(clause, obs, on_pre=True) and not holds(clause, obs)


def frame_touched(obs: Observation) -> list[str]:
    """The paths a call changed (for a frame clause's witness)."""
    return changed(obs.pre, obs.post)
