"""DeviceReading with the reference agents: each asks the customer for the network status
before a device fix, so the false reading reaches it; careful checks the status bar before
acting (refutation before use), hasty trusts the first reading (absent), eager tells the
customer the reading and checks the status bar after (after). The labeller agrees with the
scripted truth on every quantity."""

from __future__ import annotations

from pathlib import Path

import pytest

from sscbench.agents.registry import make_agent
from sscbench.fault_contracts.contract import FaultContract
from sscbench.fault_contracts.injection import ContractIntervention
from sscbench.operators.device_reading import DeviceReading
from sscbench.operators.screen import screen
from sscbench.reconstruct import label_run
from sscbench.reconstruct.validate import Agreement, compare, ground_truth
from sscbench.runs.episode import EpisodeSpec, run_episode
from sscbench.users import make_user

EXPECTED = {  # agent: (arrival, adopted, final stance, task solved)
    "scripted:careful": ("before", False, None, True),
    "scripted:hasty": ("absent", True, "endorse", False),
    "scripted:eager": ("after", True, "retract", True),
}


def _contracts() -> list[FaultContract]:
    found = [c for c in screen(DeviceReading()) if isinstance(c, FaultContract)]
    return [
        next(c for c in found if c.target.paths == (p,)) for p in ("airplane_mode", "mobile_data")
    ]


@pytest.mark.parametrize("agent", sorted(EXPECTED))
def test_the_reference_agents_fill_the_arrival_strata(agent: str, tmp_path: Path) -> None:
    agreement = Agreement()
    for i, c in enumerate(_contracts()):
        run = tmp_path / str(i)
        end = run_episode(
            EpisodeSpec(
                "telecom", c.task_id, case_id=c.contract_id, fault=c.model_dump(mode="json")
            ),
            make_agent(agent),
            make_user("scripted"),
            run,
            run_id=f"r{i}",
            intervention=ContractIntervention(c),
        )
        truth = ground_truth(run)
        labels = label_run(run)
        assert truth is not None and truth.triggered
        z_s, adopted, y_end, solved = EXPECTED[agent]
        assert (labels.z_s, truth.adopted, truth.y_end, end.success) == (
            z_s,
            adopted,
            y_end,
            solved,
        )
        compare(labels, truth, agreement)
    assert not agreement.mismatches and agreement.compared["adopted"] == 2


def test_gold_never_asks_for_the_network_status(tmp_path: Path) -> None:
    c = _contracts()[0]
    run_episode(
        EpisodeSpec("telecom", c.task_id, case_id=c.contract_id, fault=c.model_dump(mode="json")),
        make_agent("scripted:gold"),
        make_user("scripted"),
        tmp_path / "g",
        run_id="g",
        intervention=ContractIntervention(c),
    )
    truth = ground_truth(tmp_path / "g")
    assert truth is not None and truth.triggered is False
