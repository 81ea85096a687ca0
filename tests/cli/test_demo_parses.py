"""The demo opens and parses each ledger once: labelling, the oracles and the report share
one parse (they used to parse every ledger four times and label every run twice)."""

from __future__ import annotations

import io
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from sscbench import heartbeat
from sscbench.cli.main import main
from sscbench.records import ledger as ledger_module
from sscbench.runs.episode import LEDGER_FILE


@pytest.fixture(scope="module")
def small_cases(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("cases") / "cases"
    assert main(["build", "--out", str(out), "--per-operator", "1"]) == 0
    return out


def test_the_demo_reads_each_ledger_once(
    small_cases: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stage = ["start"]
    opened: Counter[tuple[str, str]] = Counter()  # (stage, ledger) opened for reading
    parsed: Counter[tuple[str, str]] = Counter()  # (stage, ledger) parsed as a ledger
    real_phase, real_open, real_iter = heartbeat.phase, io.open, ledger_module.iter_jsonl
    real_fast, real_regular = ledger_module._read_fast, ledger_module.read_regular

    def phase(name: str, total: int | None = None) -> None:
        stage[0] = name.split()[0]  # running / labelling / validating
        real_phase(name, total)

    def counting_open(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        handle = real_open(file, mode, *args, **kwargs)  # a failed open is no read
        if Path(str(file)).name == LEDGER_FILE and not any(c in mode for c in "wax+"):
            opened[(stage[0], str(file))] += 1
        return handle

    def counting_regular(path: Path) -> Any:  # read_ledger's read: one non-blocking open
        data = real_regular(path)
        if path.name == LEDGER_FILE and isinstance(data, bytes):
            opened[(stage[0], str(path))] += 1
        return data

    def counting_iter(path: Path, data: bytes | None = None) -> Any:
        if path.name == LEDGER_FILE:  # the defining reader (or the fast one's fallback)
            parsed[(stage[0], str(path))] += 1
        return real_iter(path, data)

    def counting_fast(path: Path, data: bytes) -> Any:
        ledger = real_fast(path, data)
        if ledger is not None:  # else read_ledger goes on to iter_jsonl, counted there
            parsed[(stage[0], str(path))] += 1
        return ledger

    monkeypatch.setattr(heartbeat, "phase", phase)
    monkeypatch.setattr(io, "open", counting_open)
    monkeypatch.setattr(ledger_module, "iter_jsonl", counting_iter)
    monkeypatch.setattr(ledger_module, "_read_fast", counting_fast)
    monkeypatch.setattr(ledger_module, "read_regular", counting_regular)
    out = tmp_path / "demo"
    assert main(["demo", "--cases", str(small_cases), "--seeds", "1", "--out", str(out)]) == 0

    faulted = sorted(str(p) for p in out.rglob(LEDGER_FILE))
    clean = sorted(str(p) for p in (tmp_path / "demo-clean").rglob(LEDGER_FILE))
    # Every agent's clean run of every case's task, for task success under fault and pass^k:
    # their graded outcomes are read from the status file, their ledgers never again.
    agents = sorted(str(p) for p in (tmp_path / "demo-clean-agents").rglob(LEDGER_FILE))
    # The reference mitigations' runs, labelled once for their comparison with the main runs.
    mitigated = sorted(str(p) for p in (tmp_path / "demo-mitigations").rglob(LEDGER_FILE))
    assert len(faulted) > 20 and clean and agents and mitigated
    every = dict.fromkeys(faulted + clean + mitigated, 1)
    # Running a run never reads its ledger back: the digest its status line records is
    # hashed from the bytes as they are written.
    assert not [p for s, p in opened if s == "running"]
    # After that, each ledger is opened and parsed once in the whole command: the runs'
    # when labelling starts (the oracles, the labels' run-set record and the report reuse
    # them), the clean controls' by the oracles.
    for counts in (opened, parsed):
        after = Counter(p for (s, p), n in counts.items() if s != "running" for _ in range(n))
        assert dict(after) == every
        assert {s for s, p in counts if p in faulted and s != "running"} == {"labelling"}
        assert {s for s, p in counts if p in clean and s != "running"} == {"validating"}
        assert {s for s, p in counts if p in mitigated and s != "running"} == {"validating"}
    assert not [p for s, p in parsed if s == "running"]  # a fresh experiment parses none
