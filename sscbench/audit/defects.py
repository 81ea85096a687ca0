"""The defect catalogue: seven grader defect classes, 23 variants, injectable on any target.

Each variant wraps a target's own grader and differs from it in one dimension, following
the seven classes of the oracle-integrity study ("When Agent Evaluation Becomes
Unreliable", Chen 2026): a state rewrite never restored; restored only on the success
path; a restore that forgets recorded actions; a verdict made order-dependent by a
module-level cache; always-pass; a state component ignored; outputs matched without
normalisation. The rewrite classes rebuild the reference the way a replaying grader does
— reset the live environment and run the reference solution on it — because that is
where such graders go wrong.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sscbench.audit.session import Session, Signature, Verdict
from sscbench.audit.target import AuditGrader

DEFECT_CLASSES: dict[str, str] = {
    "never_restored": "state rewrite never restored",
    "success_path_restore": "restored only on the success path",
    "restore_forgets_actions": "restore forgets recorded actions",
    "module_cache": "verdict order-dependent through a module-level cache",
    "always_pass": "always-pass",
    "ignores_component": "ignores a state component",
    "unnormalised_outputs": "output matched without normalisation",
}

_MODULE_CACHES: list[dict[Any, Any]] = []


def _module_cache() -> dict[Any, Any]:
    cache: dict[Any, Any] = {}
    _MODULE_CACHES.append(cache)
    return cache


_REFERENCE_BY_DOMAIN = _module_cache()
_VERDICT_BY_TASK = _module_cache()
_OUTPUTS_BY_TASK = _module_cache()


def clear_module_caches() -> None:
    """What a new process would start with: every module-level cache empty."""
    for cache in _MODULE_CACHES:
        cache.clear()


class Defective(AuditGrader):
    """A target's grader with one defect; the pieces it does not change are the base's."""

    variant = ""
    defect_class = ""

    def __init__(self, base: AuditGrader) -> None:
        super().__init__(base.target)
        self.base = base
        self.name = f"{base.name}+{self.variant}"

    def graded_state(self, session: Session) -> Signature:
        return self.base.graded_state(session)

    def reference(self, session: Session) -> Signature:
        return self.base.reference(session)

    def outputs_ok(self, session: Session) -> bool:
        return self.base.outputs_ok(session)

    def from_pieces(self, session: Session, state_ok: bool | None = None) -> Verdict:
        """A verdict from the pieces (``state_ok`` overrides the state comparison)."""
        if state_ok is None:
            state_ok = self.graded_state(session) == self.reference(session)
        outputs_ok = self.outputs_ok(session)
        return Verdict(solved=state_ok and outputs_ok, state_ok=state_ok, outputs_ok=outputs_ok)

    def rewrite(self, session: Session, *, record: bool = False) -> Any:
        """Reset the live environment and run the reference solution on it."""
        handle = session.reset()
        session.replay(self.target.gold_calls(session.task_id), faults=False, record=record)
        return handle


# -- 1. a state rewrite never restored ----------------------------------------------------
class RewriteAfter(Defective):
    variant, defect_class = "reset-replay-after-verdict", "never_restored"

    def grade(self, session: Session) -> Verdict:
        verdict = self.base.grade(session)
        self.rewrite(session)
        return verdict


class RewriteBefore(Defective):
    variant, defect_class = "reset-replay-before-verdict", "never_restored"

    def grade(self, session: Session) -> Verdict:
        self.rewrite(session)
        return self.base.grade(session)


class ResetOnly(Defective):
    variant, defect_class = "reset-without-replay", "never_restored"

    def grade(self, session: Session) -> Verdict:
        verdict = self.base.grade(session)
        session.reset()
        return verdict


# -- 2. restored only on the success path ------------------------------------------------
class NoFinally(Defective):
    variant, defect_class = "restore-not-in-finally", "success_path_restore"

    def grade(self, session: Session) -> Verdict:
        handle = self.rewrite(session)
        session.restore(handle)  # skipped when the replay raises
        return self.base.grade(session)


class RestoreIfSolved(Defective):
    variant, defect_class = "restore-only-if-solved", "success_path_restore"

    def grade(self, session: Session) -> Verdict:
        verdict = self.base.grade(session)
        handle = self.rewrite(session)
        if verdict.solved:
            session.restore(handle)
        return verdict


class RestoreIfStateOk(Defective):
    variant, defect_class = "restore-only-if-state-matched", "success_path_restore"

    def grade(self, session: Session) -> Verdict:
        verdict = self.base.grade(session)
        handle = self.rewrite(session)
        if verdict.state_ok:
            session.restore(handle)
        return verdict


# -- 3. a restore that forgets recorded actions ------------------------------------------
class RestoreToFresh(Defective):
    variant, defect_class = "restore-to-fresh-state", "restore_forgets_actions"

    def grade(self, session: Session) -> Verdict:
        verdict = self.base.grade(session)
        self.rewrite(session)
        session.reset()
        return verdict


class RestoreDropsLast(Defective):
    variant, defect_class = "restore-drops-last-call", "restore_forgets_actions"

    def grade(self, session: Session) -> Verdict:
        verdict = self.base.grade(session)
        self.rewrite(session)
        session.reset()
        session.replay(session.calls[:-1], faults=False)
        return verdict


class RestoreWithoutFaults(Defective):
    variant, defect_class = "restore-replays-without-fault-plan", "restore_forgets_actions"

    def grade(self, session: Session) -> Verdict:
        verdict = self.base.grade(session)
        self.rewrite(session)
        session.reset()
        session.replay(session.calls, faults=False)
        return verdict


class RestoreAppends(Defective):
    variant, defect_class = "replay-recorded-as-agent-actions", "restore_forgets_actions"

    def grade(self, session: Session) -> Verdict:
        verdict = self.base.grade(session)
        handle = self.rewrite(session, record=True)
        session.restore(handle)
        return verdict


# -- 4. order-dependent through a module-level cache -------------------------------------
class ReferencePerDomain(Defective):
    variant, defect_class = "reference-cached-per-domain", "module_cache"

    def grade(self, session: Session) -> Verdict:
        key = (self.target.name, self.target.domain)
        if key not in _REFERENCE_BY_DOMAIN:
            _REFERENCE_BY_DOMAIN[key] = self.base.reference(session)
        state_ok = self.graded_state(session) == _REFERENCE_BY_DOMAIN[key]
        return self.from_pieces(session, state_ok)


class VerdictPerTask(Defective):
    variant, defect_class = "verdict-cached-per-task", "module_cache"

    def grade(self, session: Session) -> Verdict:
        key = (self.target.name, self.target.domain, session.task_id)
        if key not in _VERDICT_BY_TASK:
            _VERDICT_BY_TASK[key] = self.base.grade(session)
        verdict: Verdict = _VERDICT_BY_TASK[key]
        return verdict


class OutputsPerTask(Defective):
    variant, defect_class = "outputs-cached-per-task", "module_cache"

    def outputs_ok(self, session: Session) -> bool:
        key = (self.target.name, self.target.domain, session.task_id)
        if key not in _OUTPUTS_BY_TASK:
            _OUTPUTS_BY_TASK[key] = self.base.outputs_ok(session)
        return bool(_OUTPUTS_BY_TASK[key])

    def grade(self, session: Session) -> Verdict:
        return self.from_pieces(session)


# -- 5. always-pass ----------------------------------------------------------------------
class AlwaysPass(Defective):
    variant, defect_class = "always-solved", "always_pass"

    def grade(self, session: Session) -> Verdict:
        return Verdict(solved=True, state_ok=True, outputs_ok=True)


class StateAlwaysOk(Defective):
    variant, defect_class = "state-check-always-true", "always_pass"

    def grade(self, session: Session) -> Verdict:
        return self.from_pieces(session, state_ok=True)


class AnyCallPasses(Defective):
    variant, defect_class = "solved-once-any-tool-was-called", "always_pass"

    def grade(self, session: Session) -> Verdict:
        if session.calls:
            return Verdict(solved=True, state_ok=True, outputs_ok=True)
        return self.base.grade(session)


class SwallowsException(Defective):
    variant, defect_class = "solved-when-grading-raises", "always_pass"

    def grade(self, session: Session) -> Verdict:
        try:
            return self.base.grade(session)
        except Exception:  # the defect: its own failure reads as success
            return Verdict(solved=True, state_ok=True, outputs_ok=True)


# -- 6. a state component ignored --------------------------------------------------------
class _IgnoresComponents(Defective):
    defect_class = "ignores_component"

    def kept(self, components: list[str]) -> list[str]:
        raise NotImplementedError

    def grade(self, session: Session) -> Verdict:
        got, ref = self.graded_state(session), self.reference(session)
        keep = set(self.kept([name for name, _ in ref.components]))
        state_ok = [c for c in got.components if c[0] in keep] == [
            c for c in ref.components if c[0] in keep
        ]
        return self.from_pieces(session, state_ok)


class IgnoresFirst(_IgnoresComponents):
    variant = "ignores-first-component"

    def kept(self, components: list[str]) -> list[str]:
        return components[1:]


class IgnoresSecond(_IgnoresComponents):
    variant = "ignores-second-component"

    def kept(self, components: list[str]) -> list[str]:
        return components[:1] + components[2:]


class OnlyFirst(_IgnoresComponents):
    variant = "compares-first-component-only"

    def kept(self, components: list[str]) -> list[str]:
        return components[:1]


# -- 7. outputs matched without normalisation --------------------------------------------
class _RawOutputs(Defective):
    defect_class = "unnormalised_outputs"

    def normalise(self, text: str) -> str:
        raise NotImplementedError

    def outputs_ok(self, session: Session) -> bool:
        texts = [self.normalise(t) for t in session.texts]
        required = [self.normalise(o) for o in self.target.required_outputs(session.task_id)]
        return all(any(o in t for t in texts) for o in required)

    def grade(self, session: Session) -> Verdict:
        verdict = self.base.grade(session)
        outputs_ok = self.outputs_ok(session)
        solved = verdict.state_ok and outputs_ok
        return Verdict(solved=solved, state_ok=verdict.state_ok, outputs_ok=outputs_ok)


class CaseSensitive(_RawOutputs):
    variant = "case-sensitive-outputs"

    def normalise(self, text: str) -> str:
        return text.replace(",", "")


class KeepsCommas(_RawOutputs):
    variant = "thousands-separators-kept"

    def normalise(self, text: str) -> str:
        return text.lower()


class RawSubstring(_RawOutputs):
    variant = "raw-substring"

    def normalise(self, text: str) -> str:
        return text


VARIANTS: tuple[type[Defective], ...] = (
    RewriteAfter,
    RewriteBefore,
    ResetOnly,
    NoFinally,
    RestoreIfSolved,
    RestoreIfStateOk,
    RestoreToFresh,
    RestoreDropsLast,
    RestoreWithoutFaults,
    RestoreAppends,
    ReferencePerDomain,
    VerdictPerTask,
    OutputsPerTask,
    AlwaysPass,
    StateAlwaysOk,
    AnyCallPasses,
    SwallowsException,
    IgnoresFirst,
    IgnoresSecond,
    OnlyFirst,
    CaseSensitive,
    KeepsCommas,
    RawSubstring,
)


@dataclass(frozen=True)
class VariantInfo:
    """A variant's id and class, for reports."""

    variant: str
    defect_class: str


def variant_infos() -> list[VariantInfo]:
    """Every variant in catalogue order."""
    return [VariantInfo(v.variant, v.defect_class) for v in VARIANTS]


def injector(
    variant: type[Defective], base: Callable[[], AuditGrader]
) -> Callable[[], AuditGrader]:
    """A grader factory that injects ``variant`` into each new base grader."""
    return lambda: variant(base())
