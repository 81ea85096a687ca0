"""Shared fixtures: the hand-made run directories and a batch of real scripted runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from sscbench.agents.registry import make_agent
from sscbench.cases.caseset import load_case_set
from sscbench.fault_contracts.injection import ContractIntervention
from sscbench.runs.episode import EpisodeSpec, run_episode
from sscbench.runs.layout import run_id_for
from sscbench.users import make_user

FIXTURE_ROOT = Path(__file__).resolve().parents[1] / "fixtures" / "reconstruct"

# Three shipped cases per operator (plus one target-value control), chosen so that the
# scripted agents between them adopt and do not adopt, read back and retry (WriteEffect),
# verify and refuse (careful), never trigger (PaySource 12) and leave no dependent use.
E2E_CASES = (
    "return_date/airline/11/GV1N64",
    "return_date/airline/29/VA5SGQ",
    "return_date/airline/7/59XX6W",
    "item_option/retail/0/#W2378156/2",
    "item_option/retail/20/#W9911714/2",
    "item_option/retail/25/#W5565470/2",
    "item_option/retail/0/#W2378156/2/target",
    "pay_source/airline/14/mohamed_silva_9265/certificate_2765295",
    "pay_source/airline/32/ivan_rossi_8555/gift_card_7344518",
    "pay_source/airline/12/chen_lee_6825/certificate_6730850",
    "write_effect/airline/12/4",
    "write_effect/airline/17/0",
    "write_effect/airline/18/2",
)
E2E_AGENTS = (
    ("scripted:gold", {}, 0),
    ("scripted:careful", {}, 0),
    ("scripted:hasty", {}, 0),
    ("scripted:mixed", {"p": 0.5}, 0),
    ("scripted:mixed", {"p": 0.5}, 1),
)


def run_scripted_cases(out: Path) -> list[Path]:
    """Run every E2E case with every scripted configuration into ``out``."""
    cases = {c.entry.case_id: c.contract for c in load_case_set().cases}
    run_dirs = []
    for case_id in E2E_CASES:
        contract = cases[case_id]
        for agent, params, seed in E2E_AGENTS:
            spec = EpisodeSpec(
                domain=contract.domain,
                task_id=contract.task_id,
                seed=seed,
                case_id=contract.contract_id,
                variants=dict(contract.variant),
                fault=contract.model_dump(mode="json"),
            )
            run_id = run_id_for(contract.domain, contract.task_id, agent, seed, case_id)
            run_episode(
                spec,
                make_agent(agent, **params),
                make_user("scripted"),
                out / run_id,
                run_id=run_id,
                intervention=ContractIntervention(contract),
            )
            run_dirs.append(out / run_id)
    return run_dirs


@pytest.fixture(scope="session")
def scripted_runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory of faulted scripted runs (13 cases × 5 configurations), made once."""
    out = tmp_path_factory.mktemp("scripted_runs")
    run_scripted_cases(out)
    return out


@pytest.fixture(scope="session")
def scripted_run_count() -> int:
    """How many runs ``scripted_runs`` holds."""
    return len(E2E_CASES) * len(E2E_AGENTS)


@pytest.fixture(scope="session")
def fixture_root() -> Path:
    """The committed hand-made run directories."""
    return FIXTURE_ROOT
