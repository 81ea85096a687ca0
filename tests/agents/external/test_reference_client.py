"""The scripted reference agents as an MCP client program: their served runs must equal their
in-process runs event for event (timestamps and the external-agent header fields aside),
and reconstruct to identical labels — over the whole shipped case set."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

from sscbench.agents.external.hub import WAITING_PATH, Hub
from sscbench.agents.external.reference import run_sessions
from sscbench.cases.caseset import load_case_set
from sscbench.experiments.inline import command_line_experiment, fault_runs
from sscbench.experiments.session import run_experiment
from sscbench.reconstruct.label import label_dir

EXTERNAL_HEADER_FIELDS = ("ts", "agent", "client", "run_id")


def _normalised(path: Path) -> list[dict[str, Any]]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        record.pop("ts", None)
        if record["kind"] == "header":
            for name in EXTERNAL_HEADER_FIELDS:
                record.pop(name, None)
        out.append(record)
    return out


def _by_case(root: Path, name: str) -> dict[str, Path]:
    return {
        p.parent.name.rsplit("-", 2)[0]: p for p in sorted(root.glob(f"*/{name}"))
    }


def _labels(root: Path) -> dict[str, dict[str, Any]]:
    """Labels by case, without the fields that name the agent (the only ones that differ)."""
    out = {}
    for label in label_dir(root):
        data = label.model_dump(mode="json")
        data.pop("agent")
        data.pop("configuration")
        out[data.pop("run_id").rsplit("-", 2)[0]] = data
    return out


def _in_process(agent: str, contracts: list[Any], out: Path) -> None:
    experiment = command_line_experiment("ref", [(agent, {})], seeds=(0,), concurrency=1)
    result = run_experiment(experiment, out, runs=fault_runs(experiment, contracts))
    assert not result.failed


def _served(agent: str, contracts: list[Any], out: Path, concurrency: int = 2) -> list[str]:
    hub = Hub.shared("127.0.0.1", 0)
    experiment = command_line_experiment(
        "ref", [("external", {})], seeds=(0,), concurrency=concurrency
    )
    runs = fault_runs(experiment, contracts)
    outcome: dict[str, Any] = {}
    thread = threading.Thread(
        target=lambda: outcome.setdefault("result", run_experiment(experiment, out, runs=runs))
    )
    thread.start()
    endings = asyncio.run(
        run_sessions(agent, url=f"{hub.base_url}{WAITING_PATH}", sessions=len(runs))
    )
    thread.join(120)
    assert not outcome["result"].failed
    return endings


@pytest.mark.slow
@pytest.mark.parametrize("agent", ["scripted:gold", "scripted:hasty"])
def test_served_runs_equal_in_process_runs_on_the_whole_shipped_set(
    agent: str, tmp_path: Path
) -> None:
    contracts = [case.contract for case in load_case_set(None).cases]
    _in_process(agent, contracts, tmp_path / "in-process")
    endings = _served(agent, contracts, tmp_path / "served")
    assert len(endings) == len(contracts)
    local = _by_case(tmp_path / "in-process", "ledger.jsonl")
    served = _by_case(tmp_path / "served", "ledger.jsonl")
    assert sorted(local) == sorted(served) and len(local) == len(contracts)
    different = [case for case in local if _normalised(local[case]) != _normalised(served[case])]
    assert different == []
    hidden_local = _by_case(tmp_path / "in-process", "hidden.jsonl")
    hidden_served = _by_case(tmp_path / "served", "hidden.jsonl")
    assert all(hidden_local[c].read_bytes() == hidden_served[c].read_bytes() for c in local)
    for case in served:  # the served header says who the client was
        header = json.loads(served[case].read_text(encoding="utf-8").splitlines()[0])
        assert header["agent"]["name"] == "external"
        assert header["client"]["name"] == "sscbench-reference-agent"
    labels_local, labels_served = _labels(tmp_path / "in-process"), _labels(tmp_path / "served")
    assert labels_local == labels_served and len(labels_local) == len(contracts)


def _one_per_operator() -> list[Any]:
    chosen: dict[str, Any] = {}
    for case in load_case_set(None).cases:
        chosen.setdefault(case.contract.operator, case.contract)
    return list(chosen.values())


def test_the_reference_program_over_stdio_spawns_its_server(tmp_path: Path) -> None:
    contract = _one_per_operator()[0]
    _in_process("scripted:gold", [contract], tmp_path / "in-process")
    bin_dir = Path(sys.executable).parent
    command = (
        f"{bin_dir / 'sscbench'} serve --case {contract.contract_id} --transport stdio "
        f"--out {tmp_path / 'served'}"
    )
    done = subprocess.run(
        [sys.executable, "-m", "sscbench.agents.external.reference", "scripted:gold",
         "--stdio", command],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "1 session(s)" in done.stderr and "user_stop" in done.stderr
    local = _by_case(tmp_path / "in-process", "ledger.jsonl")
    served = _by_case(tmp_path / "served", "ledger.jsonl")
    [case] = local
    assert _normalised(local[case]) == _normalised(served[case])
    header = json.loads(served[case].read_text(encoding="utf-8").splitlines()[0])
    assert header["client"]["transport"] == "stdio"


def test_the_reference_program_launched_per_run_through_an_experiment_file(
    tmp_path: Path,
) -> None:
    contracts = _one_per_operator()[:3]
    ids = ", ".join(f'"{c.contract_id}"' for c in contracts)
    command = f"{sys.executable} -m sscbench.agents.external.reference scripted:hasty"
    config = tmp_path / "exp.toml"
    config.write_text(
        f"""
name = "launched"
concurrency = 2
gate = "none"
[cases]
ids = [{ids}]
controls = false
[[configurations]]
id = "served-hasty"
agent = "external"
params = {{ command = "{command}" }}
[[configurations]]
id = "hasty"
agent = "scripted:hasty"
""",
        encoding="utf-8",
    )
    cli = [sys.executable, "-m", "sscbench", "run", "--config", str(config), "--out",
           str(tmp_path / "out")]  # fmt: skip
    started = time.monotonic()
    first = subprocess.run(cli, capture_output=True, text=True, timeout=600)
    assert first.returncode == 0, first.stderr[-2000:]
    fault = tmp_path / "out" / "fault"
    served = sorted(fault.glob("served-hasty-*/*/*/ledger.jsonl"))
    local = sorted(fault.glob("hasty-*/*/*/ledger.jsonl"))
    assert len(served) == len(local) == len(contracts)
    for a, b in zip(local, served, strict=True):
        assert _normalised(a)[1:] == _normalised(b)[1:]  # the header names the configuration
        assert (b.parent / "client.jsonl").exists()
    again = subprocess.run(cli, capture_output=True, text=True, timeout=600)
    assert again.returncode == 0 and "0 executed this session" in again.stderr  # resumed
    schedule = (tmp_path / "out" / "schedule.jsonl").read_text(encoding="utf-8")
    statuses = [json.loads(x) for x in schedule.splitlines()]
    assert sum(1 for s in statuses if s.get("state") == "observed") >= 2 * 2 * len(contracts)
    assert time.monotonic() - started < 600


def test_the_reference_program_imports_no_run_machinery() -> None:
    probe = (
        "import sys\n"
        "import sscbench.agents.external.reference as r\n"
        "from sscbench.agents.registry import make_agent\n"
        "from sscbench.envs.domain import load_domain\n"
        "make_agent('scripted:gold'); load_domain('airline')\n"
        "print('\\n'.join(sorted(m for m in sys.modules if m.startswith('sscbench'))))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    loaded = done.stdout.split()
    forbidden = (
        "sscbench.runs",
        "sscbench.experiments",
        "sscbench.fault_contracts",
        "sscbench.agents.external.hub",
        "sscbench.agents.external.mcp_server",
        "sscbench.agents.external.stdio",
    )
    assert [m for m in loaded if m.startswith(forbidden)] == []
    assert "sscbench.agents.scripted" in loaded
