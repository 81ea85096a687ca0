"""SSCBench as an Inspect task, driven by Inspect itself (its eval loop, its log writer and
reader, its mockllm model, its react() agent): runs land in SSCBench run directories and
the scores are their reconstructed labels."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("inspect_ai")

from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.agent import as_solver, react
from inspect_ai.log import read_eval_log
from inspect_ai.model import ModelOutput, get_model

from sscbench.cases.caseset import load_case_set
from sscbench.errors import ConfigError
from sscbench.experiments.inline import command_line_experiment, fault_runs
from sscbench.experiments.session import run_experiment
from sscbench.inspect_task import adoption, clean, sscbench_tools
from sscbench.reconstruct.label import label_dir

CASE = "return_date/airline/1/Q69X3R"
ADOPTED = "return_date/airline/7/XEHM4B"  # a case scripted:hasty adopts (refuted before use)
HEADER_FIELDS = ("ts", "agent", "client", "run_id", "configuration")


def _normalised(path: Path) -> list[dict[str, Any]]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        record.pop("ts", None)
        if record["kind"] == "header":
            for name in HEADER_FIELDS:
                record.pop(name, None)
        out.append(record)
    return out


def _by_case(root: Path) -> dict[str, Path]:
    return {p.parent.name.rsplit("-", 2)[0]: p for p in root.glob("*/ledger.jsonl")}


def _eval(task: Task, model: Any, tmp_path: Path, **kwargs: Any) -> Any:
    [log] = inspect_eval(
        task, model=model, log_dir=str(tmp_path / "logs"), display="none", **kwargs
    )
    assert log.status == "success", log.error
    return log


def test_the_task_is_registered_with_inspect_and_runs_from_its_cli(tmp_path: Path) -> None:
    bin_dir = Path(sys.executable).parent
    done = subprocess.run(
        [str(bin_dir / "inspect"), "eval", "sscbench/adoption", "--model",
         "sscbench/scripted:hasty", "-T", f"case={ADOPTED}", "-T", f"run_dir={tmp_path / 'runs'}",
         "--log-dir", str(tmp_path / "logs"), "--display", "none"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    [path] = (tmp_path / "logs").glob("*.eval")
    log = read_eval_log(str(path))
    [sample] = log.samples
    score = sample.scores["reconstruction"]
    assert score.value == "adopted"  # hasty acts on the injected return date
    assert score.metadata["triggered"] is True and score.metadata["case_id"] == ADOPTED
    assert score.metadata["Z_S"] == "before"
    [run] = (tmp_path / "runs").iterdir()
    header = json.loads((run / "ledger.jsonl").read_text().splitlines()[0])
    assert header["agent"] == {"name": "inspect", "params": {"model": "sscbench/scripted:hasty"}}
    assert header["client"]["transport"] == "inspect"
    metrics = log.results.scores[0].metrics
    assert metrics["adoption_rate"].value == 1.0
    assert metrics["before"].value == 1.0 and metrics["before_n"].value == 1
    assert metrics["triggered_runs"].value == 1


@pytest.mark.slow
@pytest.mark.parametrize("agent", ["scripted:gold", "scripted:hasty"])
def test_inspect_runs_equal_in_process_runs_on_the_whole_shipped_set(
    agent: str, tmp_path: Path
) -> None:
    contracts = [c.contract for c in load_case_set(None).cases]
    experiment = command_line_experiment("ref", [(agent, {})], seeds=(0,), concurrency=1)
    run_experiment(experiment, tmp_path / "in-process", runs=fault_runs(experiment, contracts))
    task = adoption(run_dir=str(tmp_path / "inspect"), max_steps=100)  # run --case's limit
    log = _eval(task, f"sscbench/{agent}", tmp_path, max_samples=4)
    local, served = _by_case(tmp_path / "in-process"), _by_case(tmp_path / "inspect")
    assert sorted(local) == sorted(served) and len(local) == len(contracts)
    assert [c for c in local if _normalised(local[c]) != _normalised(served[c])] == []

    def labels(root: Path) -> dict[str, dict[str, Any]]:
        out = {}
        for label in label_dir(root):
            data = label.model_dump(mode="json", exclude={"agent", "configuration"})
            out[data.pop("run_id").rsplit("-", 2)[0]] = data
        return out

    expected = labels(tmp_path / "in-process")
    assert labels(tmp_path / "inspect") == expected
    scored = {
        s.scores["reconstruction"].metadata["run_id"].rsplit("-", 2)[0]: s.scores[
            "reconstruction"
        ].metadata["labels"]
        for s in log.samples
    }
    for case, data in scored.items():
        data = {k: v for k, v in data.items() if k not in ("agent", "configuration", "run_id")}
        assert data == expected[case]


def _mock(outputs: list[ModelOutput]) -> Any:
    return get_model("mockllm/model", custom_outputs=outputs)


def test_any_inspect_agent_works_with_the_sscbench_tools(tmp_path: Path) -> None:
    outputs = [
        ModelOutput.for_tool_call(
            "mockllm/model", "get_reservation_details", {"reservation_id": "Q69X3R"}
        ),
        ModelOutput.for_tool_call(
            "mockllm/model", "send_message_to_user", {"message": "Your return is on the 18th."}
        ),
        ModelOutput.for_tool_call("mockllm/model", "submit", {"answer": "done"}),
    ]
    task = adoption(
        case=CASE, run_dir=str(tmp_path / "runs"), solver=as_solver(react(tools=[sscbench_tools()]))
    )
    log = _eval(task, _mock(outputs), tmp_path)
    [run] = (tmp_path / "runs").iterdir()
    events = [json.loads(x) for x in (run / "ledger.jsonl").read_text().splitlines()]
    calls = [e["name"] for e in events if e["kind"] == "tool_call"]
    assert calls == ["get_reservation_details"]
    assert [e["content"] for e in events if e["kind"] == "agent_message"][1:] == [
        "Your return is on the 18th."
    ]
    assert events[-1]["termination"] == "agent_stop"  # react submitted: the agent stopped
    assert log.samples[0].scores["reconstruction"].value in ("adopted", "not_adopted", "no_use")


def test_an_inspect_limit_is_recorded_as_a_limit_never_as_not_adopted(tmp_path: Path) -> None:
    reads = [
        ModelOutput.for_tool_call("mockllm/model", "get_user_details", {"user_id": "x"})
        for _ in range(20)
    ]
    task = adoption(case=CASE, run_dir=str(tmp_path / "runs"))
    log = _eval(task, _mock(reads), tmp_path, message_limit=8)
    score = log.samples[0].scores["reconstruction"]
    assert score.metadata["limit"] == "message"
    assert score.metadata["termination"] == "limit"
    assert score.value == "not_triggered"  # the case's record was never read: no evidence
    [run] = (tmp_path / "runs").iterdir()
    log_lines = [json.loads(x) for x in (run / "client.jsonl").read_text().splitlines()]
    assert any(e["event"] == "limit" and e["detail"]["limit"] == "message" for e in log_lines)


def test_a_model_that_never_calls_a_tool_still_makes_a_finished_run(tmp_path: Path) -> None:
    task = adoption(case=CASE, run_dir=str(tmp_path / "runs"))
    log = _eval(task, "mockllm/model", tmp_path)  # the default output: plain text, every turn
    score = log.samples[0].scores["reconstruction"]
    assert score.metadata["termination"] in ("user_stop", "max_steps")
    assert score.value == "not_triggered"


def test_an_empty_reply_is_recorded_as_one(tmp_path: Path) -> None:
    empty = [ModelOutput.from_content("mockllm/model", "") for _ in range(5)]
    log = _eval(adoption(case=CASE, run_dir=str(tmp_path / "runs")), _mock(empty), tmp_path)
    assert log.samples[0].scores["reconstruction"].metadata["termination"] == "empty_reply"


def test_the_user_can_be_an_inspect_model_role(tmp_path: Path) -> None:
    task = adoption(case=CASE, run_dir=str(tmp_path / "runs"), user="simulator")
    user = get_model("mockllm/model", custom_outputs=[ModelOutput.from_content("m", "###STOP###")])
    outputs = [ModelOutput.from_content("mockllm/model", "Hello! How can I help?")]
    log = _eval(task, _mock(outputs), tmp_path, model_roles={"user": user})
    [run] = (tmp_path / "runs").iterdir()
    header = json.loads((run / "ledger.jsonl").read_text().splitlines()[0])
    assert header["user"]["name"] == "inspect:simulator"
    assert log.samples[0].scores["reconstruction"].metadata["termination"] == "user_stop"


def test_the_clean_task_scores_task_success(tmp_path: Path) -> None:
    task = clean(case=CASE, run_dir=str(tmp_path / "runs"))
    log = _eval(task, "sscbench/scripted:gold", tmp_path)
    assert log.samples[0].scores["task_success"].value == 1
    assert log.samples[0].id == "clean:airline/1.m60"


@pytest.mark.parametrize(
    ("kwargs", "problem"),
    [
        ({"operator": "no_such_operator"}, "unknown operator no_such_operator"),
        ({"case": "return_date/airline/1/NOPE"}, "no case 'return_date/airline/1/NOPE'"),
        ({"domain": "telephony"}, "unknown domain 'telephony'"),
        ({"user": "robot"}, "unknown user 'robot'"),
        ({"per_operator": 0}, "per_operator must be at least 1"),
    ],
)
def test_bad_task_arguments_are_one_clear_error(kwargs: dict[str, Any], problem: str) -> None:
    with pytest.raises(ConfigError, match=problem):
        adoption(**kwargs)


def _labels(**changes: Any) -> Any:
    from sscbench.reconstruct.labels import EventTime, RunLabels

    found = EventTime(status="found", step=5, reason="r")
    base = {
        "run_id": "r",
        "case_id": "return_date/airline/1/Q69X3R",
        "operator": "return_date",
        "control": False,
        "agent": "a",
        "seed": 0,
        "finished": True,
        "termination": "user_stop",
        "success": True,
        "triggered": True,
        "triggered_reason": "r",
        "t_f": found,
        "t_e": found,
        "t_s": found,
        "t_u": found,
        "adopted": True,
        "adopted_reason": "r",
        "z_s": "before",
        "y_end": "endorse",
    }
    return RunLabels.model_validate({**base, **changes})


@pytest.mark.parametrize(
    ("changes", "value"),
    [
        ({}, "adopted"),
        ({"adopted": False}, "not_adopted"),
        ({"t_s": {"status": "none", "reason": "no use"}, "adopted": None}, "no_use"),
        ({"t_s": {"status": "undecidable", "reason": "?"}, "adopted": None}, "undecidable"),
        ({"adopted": None}, "undecidable"),
        ({"triggered": False, "adopted": None}, "not_triggered"),
        ({"finished": False, "termination": None}, "failed"),
        ({"termination": "harness_error"}, "failed"),
        ({"case_id": None, "operator": None}, "clean"),
    ],
)
def test_the_score_value_never_makes_missing_evidence_a_zero(
    changes: dict[str, Any], value: str
) -> None:
    from sscbench.inspect_task.scorer import verdict

    assert verdict(_labels(**changes)) == value


def test_reconstruct_and_report_work_on_inspect_runs(tmp_path: Path) -> None:
    from sscbench.cli.main import main

    cases = ",".join(
        c.entry.case_id for c in load_case_set(None).cases if c.entry.operator == "return_date"
    ).split(",")[:3]
    task = adoption(case=",".join(cases), run_dir=str(tmp_path / "runs"))
    _eval(task, "sscbench/scripted:hasty", tmp_path)
    assert main(["reconstruct", str(tmp_path / "runs")]) == 0
    assert main(["report", str(tmp_path / "runs"), "--out", str(tmp_path / "report")]) == 0
    assert (tmp_path / "report" / "report.html").exists()
