"""What the grader audit drives: a live session, its state signature and a tripwire.

The audit treats a grader as a program with a four-operation interface (fresh
environment, state signature, call the grader, name the grader; see
:mod:`sscbench.audit.target`). A :class:`Session` is the fresh environment of one task: the
agent's actions go through :meth:`Session.execute` / :meth:`Session.say` and are kept in
order, and the few operations a grader may perform on the state (read a signature, reset,
replay) are routed through :meth:`Session.probe`, where a :class:`Tripwire` can make the
k-th of them raise. That is how INV-4 makes a grader fail midway without knowing its code.
"""

from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sscbench.envs.calls import Observation, ToolCall


class InjectedFault(Exception):
    """Raised by an armed :class:`Tripwire`; a grader must let it propagate (INV-4)."""


@dataclass
class Tripwire:
    """Counts the grader's state operations and raises at the ``fire_at``-th (1-based).

    ``fired`` tells a swallowed exception apart from a probe point that was never reached,
    so "the grader hid the failure" can never read as "not applicable".
    """

    fire_at: int | None = None
    count: int = 0
    fired: bool = False
    points: list[str] = field(default_factory=list)

    def hit(self, point: str) -> None:
        """Record one operation; raise :class:`InjectedFault` if this is the armed one."""
        self.count += 1
        self.points.append(point)
        if self.fire_at is not None and self.count == self.fire_at:
            self.fired = True
            raise InjectedFault(f"injected failure at grader operation {self.count} ({point})")


@dataclass(frozen=True)
class Signature:
    """A comparable signature of a state: one digest per component (collection)."""

    components: tuple[tuple[str, str], ...]

    @classmethod
    def of(cls, components: dict[str, str]) -> Signature:
        """Build from a component → digest mapping (order-independent)."""
        return cls(tuple(sorted(components.items())))

    @property
    def digest(self) -> str:
        """One digest of the whole state."""
        text = "\x00".join(f"{k}={v}" for k, v in self.components)
        return hashlib.sha256(text.encode()).hexdigest()

    def without(self, component: str) -> tuple[tuple[str, str], ...]:
        """The components except ``component`` (for a grader that ignores one)."""
        return tuple(c for c in self.components if c[0] != component)


@dataclass(frozen=True)
class Verdict:
    """A grader's answer for one episode: solved, and its two components."""

    solved: bool
    state_ok: bool
    outputs_ok: bool

    def label(self) -> str:
        """Short text for reports and probe comparisons."""
        return f"solved={int(self.solved)} state={int(self.state_ok)} out={int(self.outputs_ok)}"


@dataclass(frozen=True)
class Action:
    """One recorded step of the agent: a tool call with its observation, or a message."""

    call: ToolCall | None = None
    observation: Observation | None = None
    text: str | None = None


class Session(ABC):
    """The live environment of one task, as an agent left it.

    Subclasses hold the actual state. ``actions`` is the agent's trajectory; only the agent
    (through :meth:`execute` and :meth:`say`) or a defective grader appends to it.
    """

    def __init__(self, task_id: str) -> None:
        self.task_id = task_id
        self.actions: list[Action] = []
        self.tripwire: Tripwire | None = None

    # -- agent side ---------------------------------------------------------------------
    def execute(self, call: ToolCall) -> Observation:
        """Run an agent tool call (through the fault plan, if any) and record it."""
        observation = self._run(call, faults=True)
        self.actions.append(Action(call=call, observation=observation))
        return observation

    def say(self, text: str) -> None:
        """Record a message the agent sent to the user."""
        self.actions.append(Action(text=text))

    @property
    def texts(self) -> list[str]:
        """The agent's messages, in order."""
        return [a.text for a in self.actions if a.text is not None]

    @property
    def calls(self) -> list[ToolCall]:
        """The agent's tool calls, in order."""
        return [a.call for a in self.actions if a.call is not None]

    # -- grader side: every operation is a probe point ----------------------------------
    def probe(self, point: str) -> None:
        """Let an armed tripwire fire here (a no-op outside INV-4)."""
        if self.tripwire is not None:
            self.tripwire.hit(point)

    def signature(self) -> Signature:
        """The signature of the live state (a probe point)."""
        self.probe("signature")
        return self._signature()

    def peek(self) -> Signature:
        """The signature read by the audit itself: never a probe point."""
        return self._signature()

    def reset(self) -> Any:
        """Replace the live state by a fresh one; return a handle that :meth:`restore` takes."""
        self.probe("reset")
        return self._swap_fresh()

    def restore(self, handle: Any) -> None:
        """Put back the state a :meth:`reset` returned."""
        self._put_back(handle)

    def replay(self, calls: Sequence[ToolCall], *, faults: bool, record: bool = False) -> None:
        """Run calls on the live state from the grader's side (a probe point each)."""
        for call in calls:
            self.probe("replay")
            observation = self._run(call, faults=faults)
            if record:
                self.actions.append(Action(call=call, observation=observation))

    # -- state backend ------------------------------------------------------------------
    @abstractmethod
    def _run(self, call: ToolCall, *, faults: bool) -> Observation: ...

    @abstractmethod
    def _signature(self) -> Signature: ...

    @abstractmethod
    def _swap_fresh(self) -> Any: ...

    @abstractmethod
    def _put_back(self, handle: Any) -> None: ...
