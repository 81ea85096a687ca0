"""The stored line limits are τ²'s, cover every shipped LineUsage case, and are only read
for the τ² they were read from."""

from __future__ import annotations

from pathlib import Path

import pytest

from sscbench.agents.registry import make_agent
from sscbench.cases.caseset import load_case_set
from sscbench.envs import environment
from sscbench.fault_contracts.injection import ContractIntervention
from sscbench.reconstruct.label import label_run
from sscbench.reconstruct.rules import line_usage
from sscbench.reconstruct.rules.line_usage import initial_line_limit, stored_line_limits
from sscbench.runs.episode import EpisodeSpec, run_episode
from sscbench.users import make_user


def test_every_stored_limit_is_the_tasks_own() -> None:
    stored = stored_line_limits()
    assert stored  # the installed τ² is the one the file was read from
    for key, limit in stored.items():
        task_id, line_id = key.rsplit("|", 1)
        assert initial_line_limit(task_id, line_id) == limit, key


def test_every_shipped_line_usage_case_is_stored() -> None:
    cases = load_case_set().by_operator("line_usage")
    assert cases
    keys = {f"{c.contract.task_id}|{c.contract.target.entity_id}" for c in cases}
    assert keys <= set(stored_line_limits())


def test_another_tau2_computes_the_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    key = next(iter(stored_line_limits()))
    task_id, line_id = key.rsplit("|", 1)
    monkeypatch.setattr(line_usage, "tau2_version", lambda: "0.0")
    line_usage.stored_line_limits.cache_clear()
    line_usage.line_limit.cache_clear()
    calls: list[tuple[str, str]] = []
    computed = line_usage.initial_line_limit

    def counted(task: str, line: str) -> float | None:
        calls.append((task, line))
        return computed(task, line)

    monkeypatch.setattr(line_usage, "initial_line_limit", counted)
    try:
        assert line_usage.stored_line_limits() == {}
        assert line_usage.line_limit(task_id, line_id) is not None
        assert calls == [(task_id, line_id)]
    finally:
        line_usage.stored_line_limits.cache_clear()
        line_usage.line_limit.cache_clear()


def test_labelling_telecom_runs_loads_no_domain(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runs = []
    for operator in ("line_usage", "device_reading"):
        contract = next(  # a case the careful agent triggers, so its uses are read
            c.contract
            for c in load_case_set().by_operator(operator)
            if operator != "line_usage" or "bad_vpn|data_mode_off|data_saver" in c.entry.case_id
        )
        spec = EpisodeSpec(
            domain=contract.domain,
            task_id=contract.task_id,
            seed=0,
            case_id=contract.contract_id,
            variants=dict(contract.variant),
            fault=contract.model_dump(mode="json"),
        )
        run_episode(
            spec,
            make_agent("scripted:careful"),
            make_user("scripted"),
            tmp_path / operator,
            run_id=operator,
            intervention=ContractIntervention(contract),
        )
        runs.append(tmp_path / operator)

    def refused(*_args: object) -> None:
        raise AssertionError("labelling loaded a τ² domain")

    for module in (line_usage, environment):
        monkeypatch.setattr(module, "load_domain", refused)
    line_usage.line_limit.cache_clear()
    environment.user_tool_kinds.cache_clear()
    try:
        labels = [label_run(run) for run in runs]
    finally:
        line_usage.line_limit.cache_clear()
        environment.user_tool_kinds.cache_clear()
    assert [(label.triggered, label.t_f.status) for label in labels] == [(True, "found")] * 2
