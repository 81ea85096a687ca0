"""Replay re-scoring: re-derive recorded runs' state-based outcomes without re-running models.

A recorded run cannot be regenerated (providers give no deterministic seed), but its
effect on the database can: every recorded tool call is executed again, in order, on a
clean episode of the task — under the run's own fault plan, rebuilt from the contract its
ledger header embeds — and the final state is graded on live state. The archived label
(the ledger's ``run_end``, or τ²'s recorded reward for a run imported with
``sscbench import tau2``) and the replayed one go side by side into a new file; nothing
recorded is touched.

Two fidelity checks say whether the replay can be trusted: every replayed observation must
equal the recorded one, and a run's final state hash must come out as recorded (for
imports, τ²'s hash scheme differs, so only the observations are compared). Runs that
stopped at the step limit never reached a grader on an unusual path, so their replayed
labels must equal the archived ones.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from sscbench.audit.records import RescoredRun, RescoreRecord
from sscbench.audit.report import to_json, write_outputs
from sscbench.envs import EpisodeEnvironment, ToolCall, load_domain
from sscbench.envs.grading import Grade, gold_hashes, grade
from sscbench.errors import ConfigError
from sscbench.fault_contracts.injection import ContractIntervention
from sscbench.fault_contracts.io import ledger_contract
from sscbench.records.events import AgentMessage, AgentToolCall, ToolObservation
from sscbench.records.ledger import Ledger, read_ledger
from sscbench.user_files import find_files

LEDGER = "ledger.jsonl"
IMPORT = "import.json"
_PYDANTIC_URL = re.compile(r"https://errors\.pydantic\.dev/[^/\s]+/")


def find_runs(directory: Path) -> list[Path]:
    """Run directories under ``directory`` (any depth), sorted; set-aside ones skipped."""
    if not directory.is_dir():
        raise ConfigError(f"{directory} is not a directory; pass the --out of a run or import")
    runs = [p.parent for p in find_files(directory, LEDGER)]
    if not runs:
        raise ConfigError(
            f"no ledger.jsonl under {directory}; pass a directory `sscbench run` or "
            "`sscbench import tau2` wrote"
        )
    return runs


def _archived(run_dir: Path, ledger: Ledger) -> tuple[str, bool | None, bool | None, str | None]:
    """(source, success, db_match, final hash) as archived."""
    path = run_dir / IMPORT
    if path.is_file():
        data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        reward = data.get("recorded_reward")
        success = None if reward is None else float(reward) == 1.0
        return "tau2-import", success, data.get("recorded_db_match"), None
    end = ledger.end
    assert end is not None
    return "sscbench", end.success, end.db_match, end.final_state_hash


def _same(recorded: str, replayed: str) -> bool:
    return recorded == replayed or (
        _PYDANTIC_URL.sub("", recorded) == _PYDANTIC_URL.sub("", replayed)
    )


def rescore_run(run_dir: Path, root: Path) -> RescoredRun | None:
    """Replay one finished run (``None`` for an unfinished one: nothing to compare)."""
    ledger = read_ledger(run_dir / LEDGER)
    if ledger.end is None:
        return None
    header, end = ledger.header, ledger.end
    source, a_success, a_db, a_hash = _archived(run_dir, ledger)
    contract = ledger_contract(ledger)
    task = load_domain(header.domain).task(header.task_id)
    env = EpisodeEnvironment.open(
        header.domain, task, None if contract is None else ContractIntervention(contract)
    )
    pending: dict[str, AgentToolCall] = {}
    observations = identical = 0
    clock_drift: int | None = None
    for event in ledger.events:
        if isinstance(event, ToolObservation) and event.call_id in pending:
            call = pending.pop(event.call_id)
            replayed = env.execute(
                ToolCall(id=call.call_id, name=call.name, arguments=call.arguments), event.step
            )
            observations += 1
            identical += _same(event.content, replayed.content)
        elif isinstance(event, AgentToolCall):
            pending[event.call_id] = event
        # The virtual clock moves with every visible item, in the episode's order: a call is
        # charged when it is emitted, before it executes (its observation carries the time
        # the server answered), so clocked contracts (Expiry, Transport) see the same times.
        at = env.observe(event)
        if event.vt is not None and at != event.vt and clock_drift is None:
            clock_drift = event.step
    graded = None
    if end.termination != "harness_error":
        texts = [e.content for e in ledger.events if isinstance(e, AgentMessage)]
        graded = grade(env, task, texts)
    fidelity = []
    if identical != observations:
        fidelity.append(f"{observations - identical} of {observations} observations differ")
    if clock_drift is not None:
        fidelity.append(
            f"the replayed virtual clock differs from the recorded one at step {clock_drift}"
        )
    if graded is not None and a_hash is not None and graded.final_state_hash != a_hash:
        fidelity.append("final state hash differs from the recorded one")
    r_success = None if graded is None else graded.success
    r_db = None if graded is None else graded.db_match
    if end.termination == "max_steps" and (r_success, r_db) != (a_success, a_db):
        fidelity.append("a step-limit run whose replayed label differs from the archived one")
    return RescoredRun(
        run=run_dir.relative_to(root).as_posix(),
        source=source,  # type: ignore[arg-type]
        domain=header.domain,
        task_id=header.task_id,
        faulted=contract is not None,
        termination=end.termination,
        archived_success=a_success,
        archived_db_match=a_db,
        replayed_success=r_success,
        replayed_db_match=r_db,
        archived_final_state_hash=a_hash,
        replayed_final_state_hash=None if graded is None else graded.final_state_hash,
        observations=observations,
        observations_identical=identical,
        status="not_graded" if graded is None else "rescored",
        changed=graded is not None and a_success is not None and a_success != r_success,
        fidelity=fidelity,
        other_task_state=_other_task_state(header.domain, header.task_id, graded),
    )


def _other_task_state(domain: str, task_id: str, graded: Grade | None) -> bool:
    if graded is None or graded.db_match:
        return False
    return any(
        h == graded.final_state_hash and t != task_id for t, h in gold_hashes(domain).items()
    )


def rescore_directory(directory: Path) -> RescoreRecord:
    """Rescore every finished run under ``directory``."""
    runs = [r for d in find_runs(directory) if (r := rescore_run(d, directory)) is not None]
    graded = [r for r in runs if r.status == "rescored"]
    unfaulted = [r for r in graded if not r.faulted and r.archived_final_state_hash is not None]
    step_limit = [r for r in graded if r.termination == "max_steps"]
    return RescoreRecord(
        directory=directory.name,
        runs=runs,
        archived_successes=sum(r.archived_success is True for r in graded),
        replayed_successes=sum(r.replayed_success is True for r in graded),
        successes_changed=sum(r.changed and r.archived_success is True for r in graded),
        failures_changed=sum(r.changed and r.archived_success is False for r in graded),
        changed_into_other_task_state=sum(r.changed and r.other_task_state for r in graded),
        fidelity_failures=sum(bool(r.fidelity) for r in runs),
        unfaulted_hash_reproduced=(
            sum(r.replayed_final_state_hash == r.archived_final_state_hash for r in unfaulted),
            len(unfaulted),
        ),
        step_limit_as_recorded=(
            sum(
                (r.replayed_success, r.replayed_db_match)
                == (r.archived_success, r.archived_db_match)
                for r in step_limit
            ),
            len(step_limit),
        ),
    )


def write_rescore(record: RescoreRecord, path: Path) -> Path:
    """Write the record to ``path``; an existing file with other content is never replaced."""
    return write_outputs(path.parent, {path.name: to_json(record)})[0]
