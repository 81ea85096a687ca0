"""The checker's four operations on a τ² domain: create, snapshot, call, reset.

Airline and retail go through SSCBench's own episode environment (copy-on-write over the
shared base, τ²'s own serialisation of results, write suppression at the choke point), so
a probe costs a fraction of a millisecond to open. Telecom, which SSCBench does not run
episodes on, gets a plain deep copy of its small database. Both can run a *mutant*
toolkit class and suppress writes (the Phantom Effect mutant), and both keep the shared
base intact: :meth:`Adapter.check_base` proves it after a batch of probes.
"""

from __future__ import annotations

import copy
import json
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from typing import Any, Protocol

from sscbench.envs import (
    CallContext,
    EpisodeEnvironment,
    Observation,
    ToolCall,
    WriteDecision,
    load_domain,
)
from sscbench.envs.tau2_runtime import prepare_tau2
from sscbench.errors import HarnessError


@dataclass(frozen=True)
class Outcome:
    """A call's result as the agent would see it (τ²'s JSON text) and whether it raised."""

    text: str
    error: bool

    def value(self) -> Any:
        """The result parsed back to JSON data (the raw text when it is not JSON)."""
        try:
            return json.loads(self.text)
        except ValueError:
            return self.text


class Adapter(Protocol):
    """What the checker needs of a domain."""

    domain: str

    def create(self) -> None: ...

    def snapshot(self) -> dict[str, Any]: ...

    def call(self, tool: str, args: dict[str, Any]) -> Outcome: ...

    def reset(self) -> None: ...

    def check_base(self) -> None: ...


class _Suppress:
    """Suppress every write of the named tools (success payload kept): the Phantom mutant."""

    def __init__(self, tools: frozenset[str]) -> None:
        self.tools = tools

    def decide_write(self, call: ToolCall, ctx: CallContext) -> WriteDecision:
        return WriteDecision.SUPPRESS if call.name in self.tools else WriteDecision.PROCEED

    def rewrite(self, call: ToolCall, observation: Observation, ctx: CallContext) -> None:
        return None


@cache
def _base_json(domain: str) -> dict[str, Any]:
    dumped: dict[str, Any] = load_domain(domain).base_db.model_dump(mode="json")
    return dumped


class EpisodeAdapter:
    """Airline or retail through :class:`~sscbench.envs.EpisodeEnvironment`."""

    def __init__(
        self,
        domain: str,
        toolkit_class: type[Any] | None = None,
        suppress: frozenset[str] = frozenset(),
        owns: tuple[str, ...] = (),
    ) -> None:
        self.domain = domain
        self.toolkit_class = toolkit_class
        self.suppress = suppress
        self.owns = owns
        self.env: EpisodeEnvironment | None = None
        self.calls = 0

    def create(self) -> None:
        """A fresh episode (the mutant toolkit, if any, bound to its state)."""
        env = EpisodeEnvironment.open(
            self.domain, intervention=_Suppress(self.suppress) if self.suppress else None
        )
        if self.toolkit_class is not None:
            env.toolkit = self.toolkit_class(env.state.db)
        for name in self.owns:  # an edited tool may write beyond the shipped footprint
            for key in list(env.state.collection(name)):
                env.state.own((name, key))
        self.env = env
        self.calls = 0

    def _episode(self) -> EpisodeEnvironment:
        if self.env is None:
            raise HarnessError("adapter used before create()")
        return self.env

    def snapshot(self) -> dict[str, Any]:
        """The episode's state as JSON: the cached base plus what the episode owns."""
        state = self._episode().state
        base = _base_json(self.domain)
        snap = {name: dict(base[name]) for name in state.domain.collections}
        touched = {(n, k) for n in snap for k in set(snap[n]) ^ set(state.collection(n))}
        for name, key in sorted(touched | state.owned):
            entity = state.collection(name).get(key)
            if entity is None:
                snap[name].pop(key, None)
            else:
                snap[name][key] = entity.model_dump(mode="json")
        return snap

    def call(self, tool: str, args: dict[str, Any]) -> Outcome:
        """Run one tool call through the choke point."""
        env = self._episode()
        obs = env.execute(ToolCall(id=f"probe-{self.calls}", name=tool, arguments=args), 0)
        self.calls += 1
        return Outcome(text=obs.content, error=obs.error)

    def reset(self) -> None:
        """Start over from the base state."""
        self.create()

    def check_base(self) -> None:
        """Raise when a call wrote to the shared base (a write outside its footprint)."""
        if load_domain(self.domain).base_db.model_dump(mode="json") != _base_json(self.domain):
            raise HarnessError(f"a {self.domain} probe changed the shared base database")


@cache
def _telecom_base() -> Any:
    prepare_tau2()
    from tau2.domains.telecom.data_model import TelecomDB
    from tau2.domains.telecom.utils import TELECOM_DB_PATH

    return TelecomDB.load(TELECOM_DB_PATH)


class _Uuids:
    """Deterministic ``uuid4`` for telecom's new bill ids, so reruns are byte-identical."""

    def __init__(self) -> None:
        self.n = 0

    def uuid4(self) -> uuid.UUID:
        self.n += 1
        return uuid.UUID(int=self.n)


@contextmanager
def _deterministic_ids(counter: _Uuids) -> Iterator[None]:
    import tau2.domains.telecom.tools as tools

    saved = tools.uuid
    tools.uuid = counter
    try:
        yield
    finally:
        tools.uuid = saved


class TelecomAdapter:
    """Telecom on a deep copy of its database (about 10 kB of JSON)."""

    domain = "telecom"

    def __init__(
        self, toolkit_class: type[Any] | None = None, suppress: frozenset[str] = frozenset()
    ) -> None:
        prepare_tau2()
        from tau2.domains.telecom.tools import TelecomTools
        from tau2.environment.environment import Environment

        self.toolkit_class = toolkit_class or TelecomTools
        self.suppress = suppress
        self._to_json = Environment.to_json_str
        self.toolkit: Any = None
        self.ids = _Uuids()

    def create(self) -> None:
        """A fresh toolkit on a private copy of the database."""
        self.toolkit = self.toolkit_class(copy.deepcopy(_telecom_base()))
        self.ids = _Uuids()

    def snapshot(self) -> dict[str, Any]:
        """The database as JSON."""
        dumped: dict[str, Any] = self.toolkit.db.model_dump(mode="json")
        return dumped

    def call(self, tool: str, args: dict[str, Any]) -> Outcome:
        """Run one tool call as τ² would (an exception becomes an error result)."""
        db = self.toolkit.db
        saved = copy.deepcopy(db) if tool in self.suppress else None
        try:
            with _deterministic_ids(self.ids):
                result = getattr(self.toolkit, tool)(**args)
            error = False
        except Exception as exc:  # τ² turns every tool exception into an error observation
            result, error = f"Error: {exc}", True
        text = self._to_json(result)
        if saved is not None:
            for name in type(db).model_fields:
                setattr(db, name, getattr(saved, name))
        return Outcome(text=text, error=error)

    def reset(self) -> None:
        """Start over from the base state."""
        self.create()

    def check_base(self) -> None:
        """The base is never handed to a toolkit, so it cannot change."""


def make_adapter(
    domain: str,
    toolkit_class: type[Any] | None = None,
    suppress: frozenset[str] = frozenset(),
    owns: tuple[str, ...] = (),
) -> Adapter:
    """The adapter for ``domain`` (``owns``: collections an edited tool may write)."""
    if domain == "telecom":
        return TelecomAdapter(toolkit_class, suppress)
    return EpisodeAdapter(domain, toolkit_class, suppress, owns)


def toolkit_class(domain: str) -> type[Any]:
    """τ²'s toolkit class of ``domain`` (the class mutants subclass)."""
    if domain == "telecom":
        prepare_tau2()
        from tau2.domains.telecom.tools import TelecomTools

        return TelecomTools  # type: ignore[no-any-return]
    return load_domain(domain).toolkit_class
