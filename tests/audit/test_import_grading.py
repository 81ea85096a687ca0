"""Imported τ² runs are graded like ours: on the replayed live state, agent text only."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sscbench.envs import load_domain
from sscbench.imports import import_tau2_results
from sscbench.records.events import AgentMessage, AgentToolCall, ToolObservation, UserMessage
from sscbench.records.ledger import read_ledger

CORPUS = Path(__file__).parents[1] / "fixtures" / "reconstruction_corpus" / "runs"


def _results(tmp: Path, run: str, domain: str, extra_user: str | None) -> Path:
    ledger = read_ledger(CORPUS / run / "ledger.jsonl")
    messages: list[dict[str, Any]] = []
    for e in ledger.events:
        if isinstance(e, UserMessage):
            messages.append({"role": "user", "content": e.content})
        elif isinstance(e, AgentMessage):
            messages.append({"role": "assistant", "content": e.content})
        elif isinstance(e, AgentToolCall):
            call = {"id": e.call_id, "name": e.name, "arguments": e.arguments}
            messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
        elif isinstance(e, ToolObservation):
            messages.append({"role": "tool", "id": e.call_id, "content": e.content})
    if extra_user is not None:
        messages.append({"role": "user", "content": extra_user})
    sim = {
        "id": "s",
        "task_id": ledger.header.task_id,
        "messages": messages,
        "termination_reason": "user_stop",
    }
    data = {"info": {"environment_info": {"domain_name": domain}}, "simulations": [sim]}
    path = tmp / f"{run}.json"
    path.write_text(json.dumps(data))
    return path


def test_an_imported_run_is_graded_on_its_replayed_state(tmp_path: Path) -> None:
    run = "tau2.retail.51.trial0"  # its writes reach the gold state, which differs from fresh
    import_tau2_results(_results(tmp_path, run, "retail", None), tmp_path)
    end = read_ledger(tmp_path / run / "ledger.jsonl").end
    assert end is not None and end.db_match and end.success


def test_user_text_in_an_imported_run_is_not_communicated(tmp_path: Path) -> None:
    run = "tau2.retail.19.trial0"
    task = load_domain("retail").task(read_ledger(CORPUS / run / "ledger.jsonl").header.task_id)
    said = " ".join(task.evaluation_criteria.communicate_info)
    import_tau2_results(_results(tmp_path, run, "retail", said), tmp_path / "with")
    import_tau2_results(_results(tmp_path, run, "retail", None), tmp_path / "without")
    ends = [read_ledger(tmp_path / d / run / "ledger.jsonl").end for d in ("with", "without")]
    assert ends[0] is not None and ends[1] is not None
    assert ends[0].communicate_ok is ends[1].communicate_ok is False
