"""One SSCBench run per Inspect sample: the episode in a thread, reached through a bridge.

An Inspect sample runs on Inspect's event loop; an SSCBench episode is the ordinary loop
(:func:`~sscbench.runs.episode.run_episode`) in a worker thread, its agent the ``external``
agent whose front end is the sample itself. The sample's tools and solver submit actions
to the episode's :class:`~sscbench.agents.external.bridge.Bridge` and await the replies, so
every call goes through the one fault choke point and lands in the run's ledger exactly as
an in-process agent's would; the scorer reconstructs the finished run.

Handles live in a process-wide table keyed by a token kept in the sample's Inspect
``store()``, so tools built once (``react(tools=sscbench_tools())``) find their sample's run.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Literal

from sscbench.agents.base import EpisodeContext, User
from sscbench.agents.external.agent import ClientLog, ExternalAgent, ExternalParams
from sscbench.agents.external.bridge import Action, Bridge, ConversationOver, Reply
from sscbench.envs import load_domain
from sscbench.errors import ConfigError
from sscbench.fault_contracts.contract import FaultContract
from sscbench.fault_contracts.injection import ContractIntervention
from sscbench.records.events import ExternalClient, ParticipantSpec, RunEnd, VisibleEvent
from sscbench.runs.episode import EpisodeSpec, run_episode
from sscbench.runs.layout import run_id_for, set_aside

STORE_KEY = "sscbench_run"
"""The sample ``store()`` entry holding the token of the sample's run."""

PATIENCE = 24 * 3600.0
"""The episode's idle timeout: Inspect's own limits (time, working, message, token) decide
how long an agent may take, so SSCBench's is only a backstop."""


class InspectFrontEnd:
    """The front end of a run whose client is the Inspect sample: attached at once."""

    transport: Literal["inspect"] = "inspect"

    def open(self, bridge: Bridge, ctx: EpisodeContext, run_dir: Path, log: ClientLog) -> None:
        """Attach the sample as the run's one client."""
        from inspect_ai import __version__ as inspect_version

        client = ExternalClient(transport="inspect", name="inspect_ai", version=inspect_version)
        bridge.attach(client)
        log.add("serving", url="inspect")
        log.add("connected", name=client.name, version=client.version)

    def exited(self) -> int | None:
        """No program is launched."""
        return None

    def close(self, bridge: Bridge, grace: float) -> None:
        """Nothing to release: the sample outlives its run."""


@dataclass
class RunHandle:
    """One sample's SSCBench run (module docstring)."""

    token: str
    run_dir: Path
    context: EpisodeContext
    spec: EpisodeSpec
    bridge: Bridge
    thread: threading.Thread
    outcome: dict[str, Any] = field(default_factory=dict)
    extras: dict[str, Any] = field(default_factory=dict)
    """Per-run state of components that serve it (the scripted model's agent)."""

    _open: ClassVar[dict[str, RunHandle]] = {}

    async def conversation(self) -> tuple[VisibleEvent, ...]:
        """The greeting and the user's opening (waits for the episode to open them)."""
        return await self.bridge.conversation()

    async def submit(self, action: Action) -> Reply:
        """One action of the sample's agent, answered by the episode."""
        return await self.bridge.submit(action)

    async def finish(self, limit: str | None = None) -> RunEnd:
        """End the run if the agent has not (its solver returned: the agent stopped; or an
        Inspect ``limit`` stopped it) and wait for the episode to write it."""
        if self.bridge.ended is None:
            action = Action(kind="limit", text=limit) if limit else Action(
                kind="end", text="the Inspect solver finished"
            )
            with contextlib.suppress(ConversationOver):  # it ended meanwhile
                await self.bridge.submit(action)
        await asyncio.to_thread(self.thread.join)
        RunHandle._open.pop(self.token, None)
        if "error" in self.outcome:
            raise self.outcome["error"]
        end: RunEnd = self.outcome["end"]
        return end

    @classmethod
    def find(cls, token: str | None) -> RunHandle:
        """The open run of a token (from the sample's store)."""
        handle = cls._open.get(token or "")
        if handle is None:
            raise ConfigError(
                "no SSCBench run for this sample: the task's setup solver "
                "(sscbench_episode) must run before SSCBench tools, solver or scorer"
            )
        return handle


def start_run(
    *,
    domain: str,
    task_id: str,
    contract: FaultContract | None,
    seed: int,
    max_steps: int,
    run_root: Path,
    configuration: str,
    agent_params: dict[str, Any],
    user: User,
    variants: dict[str, Any] | None = None,
) -> RunHandle:
    """Start the episode of one sample in a thread; return its handle (registered)."""
    domain_data = load_domain(domain)
    task = domain_data.task(task_id)
    spec = EpisodeSpec(
        domain=domain,
        task_id=task_id,
        seed=seed,
        max_steps=max_steps,
        case_id=None if contract is None else contract.contract_id,
        variants=dict(variants or {}) if contract is None else dict(contract.variant),
        fault=None if contract is None else contract.model_dump(mode="json"),
        configuration=configuration,
    )
    run_id = run_id_for(domain, task_id, f"inspect:{configuration}", seed, spec.case_id)
    run_dir = run_root / run_id
    if run_dir.exists() or run_dir.is_symlink():
        set_aside(run_dir)  # an earlier attempt stays beside it, as the executor keeps it
    run_dir.parent.mkdir(parents=True, exist_ok=True)
    bridge = Bridge()
    agent = ExternalAgent(
        ExternalParams(idle_timeout=PATIENCE), front_end=InspectFrontEnd(), bridge=bridge
    )
    agent.spec = ParticipantSpec(name="inspect", params=agent_params)
    context = EpisodeContext(
        domain=domain, task=task, seed=seed, policy=domain_data.policy, variants=spec.variants
    )
    handle = RunHandle(
        token=secrets.token_hex(8),
        run_dir=run_dir,
        context=context,
        spec=spec,
        bridge=bridge,
        thread=threading.Thread(target=lambda: None),
    )

    def body() -> None:
        try:
            handle.outcome["end"] = run_episode(
                spec,
                agent,
                user,
                run_dir,
                run_id=run_id,
                intervention=None if contract is None else ContractIntervention(contract),
            )
        except BaseException as exc:  # surfaced by finish()
            handle.outcome["error"] = exc
            bridge.close("harness_error", None)

    handle.thread = threading.Thread(target=body, name=f"sscbench-{run_id}", daemon=True)
    RunHandle._open[handle.token] = handle
    handle.thread.start()
    return handle
