"""Simulated episodes: the experiment engine without τ², for sizing a matrix or a cluster.

:func:`simulated_episode` takes an episode's place in an executor (same signature as
:func:`~sscbench.experiments.execute.execute_into`) and writes, into the run's directory
(on Ray: its staging directory), a real but tiny ledger — the header a real run of that
key would have, one user message, one agent message and a ``run_end`` — with a
deterministic outcome (about one run in eight unsolved, so gating is exercised).
Everything else is the engine's real path: the plan, gating, the budget, resume checks,
staging and the driver's atomic rename, the status log and the summary. What it leaves out
is τ² (the environment, the agents) and any provider call, so it measures the engine's own
cost per run and its memory, not an episode's.

Not for results: the ledgers say ``tau2_version = "simulated"``.
"""

from __future__ import annotations

import hashlib
import time
from pathlib import Path

from sscbench.experiments.load import UserSetting
from sscbench.experiments.plan import ScheduledRun
from sscbench.records.events import AgentMessage, Header, ParticipantSpec, RunEnd, UserMessage
from sscbench.records.ledger import JsonlWriter
from sscbench.runs.episode import LEDGER_FILE

SIMULATED = "simulated"


def simulated_outcome(run_id: str) -> bool:
    """Whether the simulated run succeeds: fixed by its id, so re-runs agree."""
    return hashlib.sha256(run_id.encode()).digest()[0] >= 32  # 7 in 8


def simulated_episode(
    run: ScheduledRun, user: UserSetting, records_configuration: bool, run_dir: Path
) -> RunEnd:
    """Write a simulated run of ``run`` into ``run_dir`` (which must not hold a run)."""
    run_dir.mkdir(parents=True, exist_ok=False)
    config = run.configuration
    contract = run.contract
    success = simulated_outcome(run.run_id)
    end = RunEnd(
        ts=time.time(),
        termination="user_stop",
        steps=2,
        success=success,
        db_match=success,
        communicate_ok=True,
        final_state_hash=None,
    )
    with JsonlWriter(run_dir / LEDGER_FILE) as ledger:
        ledger.append(
            Header(
                ts=time.time(),
                sscbench_version=SIMULATED,
                tau2_version=SIMULATED,
                run_id=run.run_id,
                domain=run.domain,
                task_id=run.task_id,
                case_id=None if contract is None else contract.contract_id,
                agent=ParticipantSpec(name=config.agent, params=config.params),
                user=ParticipantSpec(name=user.name, params=user.params),
                seed=run.key.seed,
                max_steps=run.key.max_steps,
                variants=dict(run.variants),
                fault=None,
                configuration=config.id if records_configuration else None,
            )
        )
        ledger.append(UserMessage(ts=time.time(), step=0, turn=0, content="Hello."))
        ledger.append(AgentMessage(ts=time.time(), step=1, turn=1, content="Goodbye."))
        ledger.append(end)
    return end
