"""Property tests: every file a user can hand us parses to a result or one clear error.

For each parser — experiment files (TOML, YAML), fault contracts (YAML, JSON), ledgers,
``labels.jsonl`` and ``schedule.jsonl`` — arbitrary inputs and damaged copies of valid
files must end in a value or in one :class:`ConfigError` / :class:`LedgerError` whose
message is one line: never another exception (a traceback for the user). Through the CLI
the same inputs exit 0 or 2 with one error line and leave no partial output. (Review
labels are fuzzed in ``tests/review/test_fuzz.py``.)
"""

from __future__ import annotations

import json
import shutil
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sscbench.analysis.population import read_schedule
from sscbench.cli.main import main
from sscbench.errors import ConfigError, LedgerError
from sscbench.experiments.load import load_experiment
from sscbench.fault_contracts.io import parse_contract
from sscbench.reconstruct.labels import read_labels
from sscbench.records.ledger import TruncatedLineWarning, read_ledger

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "fixtures" / "analysis"
CONTRACT = ROOT.parent / "sscbench" / "data" / "cases" / "cases" / "write_effect_airline_7_2.yaml"
LEDGER = sorted((FIXTURE / "runs").rglob("ledger.jsonl"))[0].read_bytes()
LABELS = (FIXTURE / "labels.jsonl").read_bytes()
SCHEDULE = (
    b'{"kind":"session","ts":1.0}\n'
    b'{"kind":"run","condition":"fault","configuration":"careful","state":"observed",'
    b'"key":{"case":"write_effect/airline/7/2","seed":0,"repetition":0}}\n'
    b'{"kind":"run","condition":"fault","configuration":"careful","state":"missing",'
    b'"cause":"gated","key":{"case":"return_date/airline/1/Q","seed":0,"repetition":0}}\n'
)
EXPERIMENT_TOML = """name = "fuzz"
repetitions = 1
[cases]
per_operator = 1
controls = false
operators = ["write_effect"]
[[configurations]]
id = "careful"
agent = "scripted:careful"
"""
EXPERIMENT_YAML = """name: fuzz
repetitions: 1
cases: {per_operator: 1, controls: false, operators: [write_effect]}
configurations:
  - {id: careful, agent: "scripted:careful"}
"""

FUZZ = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@st.composite
def damaged(draw: st.DrawFn, valid: bytes) -> bytes:
    """``valid`` cut, with bytes replaced, lines dropped or duplicated, or junk inserted."""
    data = valid
    for _ in range(draw(st.integers(1, 3))):
        how = draw(st.sampled_from(["cut", "replace", "drop", "dup", "insert"]))
        lines = data.split(b"\n")
        if how == "cut":
            data = data[: draw(st.integers(0, len(data)))]
        elif how == "replace" and data:
            at = draw(st.integers(0, len(data) - 1))
            data = data[:at] + draw(st.binary(min_size=1, max_size=4)) + data[at + 1 :]
        elif how == "drop" and lines:
            del lines[draw(st.integers(0, len(lines) - 1))]
            data = b"\n".join(lines)
        elif how == "dup" and lines:
            at = draw(st.integers(0, len(lines) - 1))
            lines.insert(at, lines[draw(st.integers(0, len(lines) - 1))])
            data = b"\n".join(lines)
        else:
            at = draw(st.integers(0, len(data)))
            junk = draw(st.sampled_from([b"{", b"[]", b"null", b"\xff", b"\n\n", b"1e999", b"\t"]))
            data = data[:at] + junk + data[at:]
    return data


def inputs(valid: bytes) -> st.SearchStrategy[bytes]:
    """Damaged copies of a valid file, and arbitrary bytes."""
    return st.one_of(damaged(valid), st.binary(max_size=300))


def one_line(exc: Exception) -> None:
    message = str(exc)
    assert message and "\n" not in message, message


def one_line_per_problem(exc: ConfigError) -> None:
    """Experiment files report every problem at once: a heading, then one line each."""
    lines = str(exc).splitlines()
    if len(lines) > 1:
        assert lines[0] == "invalid experiment file", lines
        assert all(line and not line[0].isspace() for line in lines[1:]), lines


@FUZZ
@given(data=inputs(EXPERIMENT_TOML.encode()), suffix=st.sampled_from([".toml", ".yaml"]))
def test_experiment_toml_gives_an_experiment_or_one_line_per_problem(
    tmp_path: Path, data: bytes, suffix: str
) -> None:
    path = tmp_path / f"exp{suffix}"
    path.write_bytes(data)
    try:
        load_experiment(path)
    except ConfigError as exc:
        one_line_per_problem(exc)


@FUZZ
@given(data=inputs(EXPERIMENT_YAML.encode()))
def test_experiment_yaml_gives_an_experiment_or_one_line_per_problem(
    tmp_path: Path, data: bytes
) -> None:
    path = tmp_path / "exp.yaml"
    path.write_bytes(data)
    try:
        load_experiment(path)
    except ConfigError as exc:
        one_line_per_problem(exc)


def _contract_json() -> bytes:
    import yaml

    return json.dumps(yaml.safe_load(CONTRACT.read_text(encoding="utf-8")), indent=1).encode()


@FUZZ
@given(data=st.one_of(inputs(CONTRACT.read_bytes()), damaged(_contract_json())))
def test_a_contract_parses_or_is_one_line(data: bytes) -> None:
    try:
        parse_contract(data.decode("utf-8", errors="replace"), "c.yaml")
    except ConfigError as exc:
        one_line(exc)


@FUZZ
@given(data=inputs(LEDGER))
def test_a_ledger_reads_or_is_one_line(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "ledger.jsonl"
    path.write_bytes(data)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TruncatedLineWarning)
        try:
            read_ledger(path)
        except LedgerError as exc:
            one_line(exc)


@FUZZ
@given(data=inputs(LABELS))
def test_labels_read_or_are_one_line(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "labels.jsonl"
    path.write_bytes(data)
    try:
        read_labels(path)
    except ConfigError as exc:
        one_line(exc)


@FUZZ
@given(data=inputs(SCHEDULE))
def test_a_schedule_reads_or_is_one_line(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "schedule.jsonl"
    path.write_bytes(data)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TruncatedLineWarning)
        try:
            read_schedule(path)
        except (ConfigError, LedgerError) as exc:
            one_line(exc)


@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(labels=inputs(LABELS), schedule=inputs(SCHEDULE))
def test_report_on_any_labels_and_schedule_exits_0_or_2_without_partial_output(
    tmp_path_factory: pytest.TempPathFactory,
    capsys: pytest.CaptureFixture[str],
    labels: bytes,
    schedule: bytes,
) -> None:
    work = tmp_path_factory.mktemp("report")
    root = work / "runs"
    shutil.copytree(FIXTURE / "runs", root)
    (root / "labels.jsonl").write_bytes(labels)
    (root / "schedule.jsonl").write_bytes(schedule)
    capsys.readouterr()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        code = main(["report", str(root), "--out", str(work / "report")])
    captured = capsys.readouterr()
    assert code in (0, 2)
    if code == 2:
        errors = [line for line in captured.err.splitlines() if ": error: " in line]
        assert len(errors) == 1
        assert not (work / "report").exists()
        assert sorted(p.name for p in work.iterdir()) == ["runs"]


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=inputs(LEDGER))
def test_show_on_any_ledger_exits_0_or_2_with_one_line(
    tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str], data: bytes
) -> None:
    path = tmp_path_factory.mktemp("show") / "ledger.jsonl"
    path.write_bytes(data)
    capsys.readouterr()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TruncatedLineWarning)
        code = main(["show", str(path)])
    err = capsys.readouterr().err
    assert code in (0, 2)
    if code == 2:
        assert len(err.strip().splitlines()) == 1, err
