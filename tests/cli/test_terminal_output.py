"""What the commands print fits a 100-column terminal, and without a terminal a progress
line comes at least every few seconds (the demo printed 140-column tables, and nothing for
its first minute when redirected)."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from sscbench import heartbeat
from sscbench.cli.main import main

WIDTH = 100


def _widest(text: str) -> tuple[int, str]:
    line = max(text.splitlines() or [""], key=len)
    return len(line), line


@pytest.fixture(scope="module")
def small_cases(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("cases") / "cases"
    assert main(["build", "--out", str(out), "--per-operator", "1"]) == 0
    return out


def test_demo_output_fits_100_columns_and_beats_without_a_terminal(
    small_cases: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)  # relative paths, as a user types them
    monkeypatch.setenv("SSCBENCH_HEARTBEAT", "on")
    monkeypatch.setattr(heartbeat, "INTERVAL_S", 0.25)
    # What the demo tells its heartbeat, recorded as it happens: whether a tick falls inside
    # the (sub-second, on a fast machine) run phase is timing, the progress it reports is not.
    told: list[str] = []
    real_advance = heartbeat.Heartbeat.advance

    def record_advance(self: heartbeat.Heartbeat, failed: bool = False) -> None:
        real_advance(self, failed)
        told.append(self.line())

    monkeypatch.setattr(heartbeat.Heartbeat, "advance", record_advance)
    started = time.monotonic()
    assert main(["demo", "--cases", str(small_cases), "--seeds", "1", "--out", "demo"]) == 0
    elapsed = time.monotonic() - started
    out, err = capsys.readouterr()
    width, line = _widest(out)
    assert width <= WIDTH, line
    assert "adoption by arrival" in out and "Table V" in out
    beats = [x for x in err.splitlines() if x.startswith("sscbench demo: ")]
    # One line per interval while it ran (generously: a busy machine may skip some).
    assert len(beats) >= max(1, int(elapsed / 0.25) // 3), err
    counted = [m for x in told if (m := re.search(r"— (\d+)/(\d+) runs", x))]
    assert len(counted) == len(told) > 0, told  # every finished run is counted towards a total
    # One step per finished run (fault runs and clean controls), up to the announced total.
    assert [int(m[1]) for m in counted] == list(range(1, int(counted[-1][2]) + 1)), told
    assert any("labelling" in x or "report" in x for x in beats), beats

    for command in (["reconstruct", "demo"], ["report", "demo", "--out", "rep"]):
        assert main(command) == 0
        width, line = _widest(capsys.readouterr().out)
        assert width <= WIDTH, (command, line)


def test_no_heartbeat_on_a_terminal_or_when_switched_off(monkeypatch: pytest.MonkeyPatch) -> None:
    class Tty:
        def isatty(self) -> bool:
            return True

    monkeypatch.setenv("SSCBENCH_HEARTBEAT", "on")
    assert not heartbeat.Heartbeat("x", stream=Tty()).active  # type: ignore[arg-type]
    monkeypatch.setenv("SSCBENCH_HEARTBEAT", "off")
    assert not heartbeat.Heartbeat("x").active


def test_operator_and_oracle_lists_fit(capsys: pytest.CaptureFixture[str]) -> None:
    for command in (["operators", "list"], ["oracles", "list"]):
        assert main(command) == 0
        width, line = _widest(capsys.readouterr().out)
        assert width <= WIDTH, (command, line)
