"""Fixtures for served runs: an episode served over streamable HTTP in a thread of the test
process, reached by the MCP SDK's own client (a client SSCBench did not write)."""

from __future__ import annotations

import importlib.util
import json
import os
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

MISSING = None if importlib.util.find_spec("mcp") else "the mcp extra is not installed"
if MISSING and os.environ.get("SSCBENCH_REQUIRE_EXTRAS") == "1":
    pytest.fail(f"the MCP tests must run here: {MISSING}", pytrace=False)

# Each test module starts with ``pytest.importorskip("mcp")``: without the extra they skip,
# except where SSCBENCH_REQUIRE_EXTRAS=1 (CI) makes the missing extra a failure above.


@dataclass
class Served:
    """One run served on the process's hub, its episode in a thread."""

    run_dir: Path
    front: Any
    thread: threading.Thread
    outcome: dict[str, Any] = field(default_factory=dict)

    @property
    def url(self) -> str:
        """The run's own address (``…/mcp/runs/<token>``)."""
        limit = time.monotonic() + 30
        while self.front._url is None:
            if time.monotonic() > limit:
                raise AssertionError("the run was never served")
            time.sleep(0.01)
        return str(self.front._url)

    def end(self, timeout: float = 60) -> Any:
        """The run's ``run_end`` (waits for the episode)."""
        self.thread.join(timeout)
        assert not self.thread.is_alive(), "the episode did not end"
        if "error" in self.outcome:
            raise self.outcome["error"]
        return self.outcome["end"]

    def ledger(self) -> list[dict[str, Any]]:
        """The ledger's lines, parsed."""
        text = (self.run_dir / "ledger.jsonl").read_text(encoding="utf-8")
        return [json.loads(line) for line in text.splitlines()]

    def events(self) -> list[dict[str, Any]]:
        """The model-visible events (no header, no run_end)."""
        return [e for e in self.ledger() if e["kind"] not in ("header", "run_end")]

    def client_log(self) -> list[dict[str, Any]]:
        """``client.jsonl``, parsed."""
        text = (self.run_dir / "client.jsonl").read_text(encoding="utf-8")
        return [json.loads(line) for line in text.splitlines()]


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Callable[..., Served]]:
    """``serve(task="0", domain="airline", contract=None, max_steps=60, **params)``: serve
    one run and return it (the client is the test's)."""
    from sscbench.agents.external.agent import ExternalAgent, ExternalParams
    from sscbench.agents.external.hub import HttpFrontEnd
    from sscbench.fault_contracts.injection import ContractIntervention
    from sscbench.runs.episode import EpisodeSpec, run_episode
    from sscbench.users import make_user

    started: list[Served] = []

    def start(
        task: str = "0",
        domain: str = "airline",
        contract: Any = None,
        max_steps: int = 60,
        name: str = "run",
        **params: Any,
    ) -> Served:
        checked = ExternalParams.model_validate(params)
        front = HttpFrontEnd(checked)
        agent = ExternalAgent(checked, front_end=front)
        spec = EpisodeSpec(
            domain=contract.domain if contract is not None else domain,
            task_id=contract.task_id if contract is not None else task,
            seed=0,
            max_steps=max_steps,
            case_id=None if contract is None else contract.contract_id,
            fault=None if contract is None else contract.model_dump(mode="json"),
        )
        run_dir = tmp_path / name
        served = Served(run_dir=run_dir, front=front, thread=threading.Thread(target=lambda: None))

        def body() -> None:
            try:
                served.outcome["end"] = run_episode(
                    spec,
                    agent,
                    make_user("scripted"),
                    run_dir,
                    run_id=name,
                    intervention=None if contract is None else ContractIntervention(contract),
                )
            except BaseException as exc:  # surfaced by Served.end
                served.outcome["error"] = exc

        served.thread = threading.Thread(target=body, daemon=True)
        served.thread.start()
        started.append(served)
        return served

    yield start
    for served in started:
        served.thread.join(30)
