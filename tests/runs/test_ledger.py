"""Ledger format: golden files, determinism, and the reader's guarantees.

The golden run (``tests/fixtures/ledgers/golden/<run_id>/``) is a real scripted run with
every ``ts`` set to null. When the run output changes on purpose, regenerate it with::

    .venv/bin/python tests/runs/test_ledger.py --regenerate

Files under ``tests/fixtures/ledgers/v1/``, ``v2/``, ... are frozen older-schema ledgers: never
regenerate or edit them; every future SSCBench must still read them.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import warnings
from pathlib import Path
from typing import Any

import pytest

from sscbench.agents import make_agent
from sscbench.errors import LedgerError
from sscbench.records.events import (
    SCHEMA_VERSION,
    AgentMessage,
    AgentToolCall,
    Header,
    RunEnd,
    ToolObservation,
    UserMessage,
)
from sscbench.records.ledger import JsonlWriter, TruncatedLineWarning, dump_line, read_ledger
from sscbench.runs.episode import HIDDEN_FILE, LEDGER_FILE, TRUTH_FILE, EpisodeSpec, run_episode
from sscbench.users import make_user

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "ledgers"
RUN_ID = "airline-19-scripted.careful-s0"
GOLDEN_DIR = FIXTURES / "golden" / RUN_ID
GOLDEN = GOLDEN_DIR / LEDGER_FILE
SPEC = EpisodeSpec(domain="airline", task_id="19", seed=0)
AGENT = "scripted:careful"
USER = "scripted"
V1_LEDGERS = sorted((FIXTURES / "v1").glob("*.jsonl"))
OLD_LEDGERS = sorted(FIXTURES.glob("v[0-9]*/*.jsonl"))


def _run(run_dir: Path) -> None:
    run_episode(SPEC, make_agent(AGENT), make_user(USER), run_dir, run_id=RUN_ID)


def _without_ts(path: Path) -> list[str]:
    """Each line re-serialised (key order kept) with ``ts`` removed."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        obj = json.loads(line)
        obj.pop("ts", None)
        out.append(json.dumps(obj, ensure_ascii=False, separators=(",", ":")))
    return out


def _golden_lines() -> list[str]:
    return GOLDEN.read_text(encoding="utf-8").splitlines()


def _write(path: Path, lines: list[str], *, final_newline: bool = True) -> Path:
    path.write_text("\n".join(lines) + ("\n" if final_newline else ""), encoding="utf-8")
    return path


def _edit(line: str, **changes: Any) -> str:
    obj = json.loads(line)
    obj.update(changes)
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


# --- golden file -------------------------------------------------------------------


def test_golden_parses_with_contiguous_steps() -> None:
    ledger = read_ledger(GOLDEN)
    assert ledger.header.run_id == RUN_ID
    assert ledger.header.schema_version == SCHEMA_VERSION
    assert [e.step for e in ledger.events] == list(range(len(ledger.events)))
    assert ledger.finished
    assert ledger.end is not None
    assert ledger.end.termination == "user_stop"
    assert ledger.end.steps == len(ledger.events)
    kinds = {type(e) for e in ledger.events}
    assert kinds == {UserMessage, AgentMessage, AgentToolCall, ToolObservation}


def test_golden_pairs_observations_with_calls() -> None:
    events = read_ledger(GOLDEN).events
    issued: set[str] = set()
    for event in events:
        if isinstance(event, AgentToolCall):
            issued.add(event.call_id)
        elif isinstance(event, ToolObservation):
            assert event.call_id in issued
    turns = [e.turn for e in events]
    assert turns == sorted(turns)


def test_golden_has_null_timestamps() -> None:
    assert all(json.loads(line)["ts"] is None for line in _golden_lines())


@pytest.mark.parametrize("name", [LEDGER_FILE, HIDDEN_FILE, TRUTH_FILE])
def test_rerun_matches_golden_without_ts(tmp_path: Path, name: str) -> None:
    """Determinism: same agent, user, task and seed give the same lines once ts is dropped."""
    run_dir = tmp_path / RUN_ID
    _run(run_dir)
    assert _without_ts(run_dir / name) == _without_ts(GOLDEN_DIR / name)


def test_round_trip_through_dump_line() -> None:
    ledger = read_ledger(GOLDEN)
    assert ledger.end is not None
    records = [ledger.header, *ledger.events, ledger.end]
    lines = _golden_lines()
    assert len(records) == len(lines)
    for record, line in zip(records, lines, strict=True):
        assert json.loads(dump_line(record)) == json.loads(line)
        assert dump_line(record) == line


@pytest.mark.parametrize("path", V1_LEDGERS, ids=[p.name for p in V1_LEDGERS])
def test_schema_v1_still_loads(path: Path) -> None:
    """Frozen v1 ledgers must load in every later SSCBench (schema_version policy)."""
    ledger = read_ledger(path)
    assert ledger.header.schema_version == 1
    assert [e.step for e in ledger.events] == list(range(len(ledger.events)))
    assert ledger.finished


@pytest.mark.parametrize(
    "path", OLD_LEDGERS, ids=[f"{p.parent.name}/{p.name}" for p in OLD_LEDGERS]
)
def test_every_frozen_older_schema_still_loads(path: Path) -> None:
    """Frozen ledgers of every older schema (v1, v2, ...) load with defaults for new fields."""
    ledger = read_ledger(path)
    assert ledger.header.schema_version == int(path.parent.name[1:])
    assert ledger.header.configuration is None
    assert ledger.finished


def test_v1_fixture_exists() -> None:

    assert V1_LEDGERS, f"no frozen v1 ledger under {FIXTURES / 'v1'}"


# --- corrupt and truncated files ----------------------------------------------------


def test_corrupt_middle_line_names_file_and_line(tmp_path: Path) -> None:
    lines = _golden_lines()
    lines[4] = lines[4][: len(lines[4]) // 2]
    path = _write(tmp_path / "corrupt.jsonl", lines)
    with pytest.raises(LedgerError) as info:
        read_ledger(path)
    assert info.value.line == 5
    assert str(path) in str(info.value)
    assert ":5:" in str(info.value)


def test_corrupt_last_line_with_newline_is_an_error(tmp_path: Path) -> None:
    lines = _golden_lines()
    lines[-1] = lines[-1][:20]
    path = _write(tmp_path / "corrupt_last.jsonl", lines)
    with pytest.raises(LedgerError) as info:
        read_ledger(path)
    assert info.value.line == len(lines)


def test_truncated_last_line_is_dropped_with_warning(tmp_path: Path) -> None:
    lines = _golden_lines()
    lines[-1] = lines[-1][:20]
    path = _write(tmp_path / "truncated.jsonl", lines, final_newline=False)
    with pytest.warns(TruncatedLineWarning, match=rf"truncated\.jsonl:{len(lines)}:"):
        ledger = read_ledger(path)
    assert len(ledger.events) == len(lines) - 2
    assert ledger.end is None
    assert not ledger.finished


def test_complete_last_line_without_newline_is_kept(tmp_path: Path) -> None:
    path = _write(tmp_path / "no_newline.jsonl", _golden_lines(), final_newline=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ledger = read_ledger(path)
    assert ledger.finished


def test_missing_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(LedgerError, match="no such ledger file"):
        read_ledger(tmp_path / "absent.jsonl")


def _not_header_first(lines: list[str]) -> tuple[list[str], int]:
    return lines[1:], 1


def _second_header(lines: list[str]) -> tuple[list[str], int]:
    return [*lines[:3], lines[0], *lines[3:]], 4


def _event_after_end(lines: list[str]) -> tuple[list[str], int]:
    extra = _edit(lines[-2], step=len(lines) - 2)
    return [*lines, extra], len(lines) + 1


def _step_gap(lines: list[str]) -> tuple[list[str], int]:
    return [*lines[:4], *lines[5:]], 5


def _unknown_kind(lines: list[str]) -> tuple[list[str], int]:
    return [*lines[:2], _edit(lines[2], kind="system_message"), *lines[3:]], 3


def _extra_field(lines: list[str]) -> tuple[list[str], int]:
    return [*lines[:2], _edit(lines[2], note="x"), *lines[3:]], 3


def _newer_schema(lines: list[str]) -> tuple[list[str], int]:
    return [_edit(lines[0], schema_version=SCHEMA_VERSION + 1), *lines[1:]], 1


@pytest.mark.parametrize(
    ("mutate", "problem"),
    [
        pytest.param(_not_header_first, "first line must be the header", id="not-header-first"),
        pytest.param(_second_header, "a second header", id="second-header"),
        pytest.param(_event_after_end, "an event after run_end", id="event-after-end"),
        pytest.param(_step_gap, "step 4 where 3 was expected", id="step-gap"),
        pytest.param(_unknown_kind, "system_message", id="unknown-kind"),
        pytest.param(_extra_field, "Extra inputs are not permitted", id="extra-field"),
        pytest.param(
            _newer_schema, f"schema_version {SCHEMA_VERSION + 1} is newer", id="newer-schema"
        ),
    ],
)
def test_invalid_structure_names_the_line(tmp_path: Path, mutate: Any, problem: str) -> None:
    lines, bad_line = mutate(_golden_lines())
    path = _write(tmp_path / "bad.jsonl", lines)
    with pytest.raises(LedgerError) as info:
        read_ledger(path)
    assert info.value.line == bad_line
    assert problem in info.value.problem
    assert f"{path}:{bad_line}:" in str(info.value)


def test_ledger_without_run_end_is_unfinished(tmp_path: Path) -> None:
    lines = _golden_lines()
    ledger = read_ledger(_write(tmp_path / "crashed.jsonl", lines[:-1]))
    assert not ledger.finished
    assert ledger.end is None
    assert len(ledger.events) == len(lines) - 2


def test_header_only_ledger_is_unfinished(tmp_path: Path) -> None:
    ledger = read_ledger(_write(tmp_path / "header_only.jsonl", _golden_lines()[:1]))
    assert ledger.events == ()
    assert not ledger.finished


# --- reader edge cases: newer headers, bytes cut mid-character ---------------------


def test_newer_schema_with_a_changed_header_is_a_clear_error(tmp_path: Path) -> None:
    lines = _golden_lines()
    lines[0] = _edit(lines[0], schema_version=SCHEMA_VERSION + 1, new_header_field=True)
    path = _write(tmp_path / "newer.jsonl", lines)
    with pytest.raises(LedgerError, match="is newer than"):
        read_ledger(path)


def test_truncation_inside_a_multibyte_character_is_dropped(tmp_path: Path) -> None:
    lines = _golden_lines()
    cut = '{"ts":null,"step":12,"turn":12,"kind":"agent_message","content":"τ'.encode()[:-1]
    path = tmp_path / "truncated_utf8.jsonl"
    path.write_bytes(("\n".join(lines[:-1]) + "\n").encode() + cut)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ledger = read_ledger(path)
    assert [w.category for w in caught] == [TruncatedLineWarning]
    assert not ledger.finished


def test_invalid_utf8_middle_line_names_the_line(tmp_path: Path) -> None:
    lines = [line.encode() for line in _golden_lines()]
    lines[4] = b'{"content":"\xff"}'
    path = tmp_path / "bad_utf8.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    with pytest.raises(LedgerError) as info:
        read_ledger(path)
    assert info.value.line == 5


# --- writer --------------------------------------------------------------------------


def _header() -> Header:
    return read_ledger(GOLDEN).header


@pytest.mark.parametrize("fsync", [False, True])
def test_writer_flushes_each_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fsync: bool
) -> None:
    synced: list[int] = []
    monkeypatch.setattr(os, "fsync", synced.append)
    path = tmp_path / "out.jsonl"
    header = _header()
    event = AgentMessage(step=0, turn=0, content="hello")
    writer = JsonlWriter(path, fsync=fsync)
    writer.append(header)
    assert path.read_text(encoding="utf-8") == dump_line(header) + "\n"
    writer.append(event)
    assert path.read_text(encoding="utf-8").splitlines() == [dump_line(header), dump_line(event)]
    assert len(synced) == (2 if fsync else 0)
    writer.close()
    ledger = read_ledger(path)
    assert ledger.events == (event,)
    assert not ledger.finished


def test_writer_appends_and_rejects_writes_after_close(tmp_path: Path) -> None:
    path = tmp_path / "out.jsonl"
    with JsonlWriter(path) as writer:
        writer.append(_header())
    with JsonlWriter(path) as writer:
        writer.append(
            RunEnd(
                termination="agent_stop",
                steps=0,
                success=None,
                db_match=None,
                communicate_ok=None,
                final_state_hash=None,
            )
        )
    with pytest.raises(ValueError):
        writer.append(_header())
    assert read_ledger(path).finished


# --- regeneration --------------------------------------------------------------------


def _regenerate() -> None:
    """Rewrite the golden run from a fresh episode, with every ``ts`` set to null."""
    with tempfile.TemporaryDirectory() as tmp:
        run_dir = Path(tmp) / RUN_ID
        _run(run_dir)
        shutil.rmtree(GOLDEN_DIR, ignore_errors=True)
        GOLDEN_DIR.mkdir(parents=True)
        for source in sorted(run_dir.iterdir()):
            lines = []
            for line in source.read_text(encoding="utf-8").splitlines():
                obj = json.loads(line)
                if "ts" in obj:
                    obj["ts"] = None
                lines.append(json.dumps(obj, ensure_ascii=False, separators=(",", ":")))
            _write(GOLDEN_DIR / source.name, lines)
    print(f"wrote {GOLDEN_DIR}")


if __name__ == "__main__":
    if sys.argv[1:] != ["--regenerate"]:
        sys.exit("usage: python tests/runs/test_ledger.py --regenerate")
    _regenerate()


def test_failures_are_classified_and_absent_from_successful_runs() -> None:
    from sscbench.errors import ConfigError
    from sscbench.llm.errors import ProviderError
    from sscbench.runs.episode import classify_failure

    assert classify_failure(ProviderError("HTTP 500 after 3 attempts")).kind == "provider"
    config = classify_failure(ConfigError("environment variable K is not set"))
    assert (config.kind, config.retryable) == ("config", False)
    harness = classify_failure(KeyError("missing\nsecond line"))
    assert (harness.kind, harness.retryable) == ("harness", True)
    assert "\n" not in harness.message and harness.message.startswith("KeyError")
    # A successful run's run_end has no failure key: its bytes are those of schema 3.
    end = _golden_lines()[-1]
    assert '"kind":"run_end"' in end and '"failure"' not in end
    failed = RunEnd(
        termination="harness_error",
        steps=3,
        success=None,
        db_match=None,
        communicate_ok=None,
        final_state_hash=None,
        error="Traceback ...",
        failure=harness,
    )
    line = dump_line(failed)
    assert '"failure":{"kind":"harness"' in line
    assert RunEnd.model_validate_json(line) == failed


def test_append_all_writes_the_lines_append_writes_in_one_call(tmp_path: Path) -> None:
    """The batch write of the hidden log and truth: the same bytes and digest as appending
    line by line, in one write to the OS (none for no records: an empty file)."""
    records = [_header(), AgentMessage(step=0, turn=0, content="hé\n")]
    with JsonlWriter(tmp_path / "one.jsonl") as one:
        for record in records:
            one.append(record)
    writes: list[int] = []
    with JsonlWriter(tmp_path / "all.jsonl") as batch:
        raw = batch._fh
        original = raw.write

        class Counting:
            def write(self, data: memoryview) -> int | None:
                writes.append(len(data))
                return original(data)

            def __getattr__(self, name: str) -> object:
                return getattr(raw, name)

        batch._fh = Counting()  # type: ignore[assignment]
        batch.append_all(records)
        batch.append_all([])
    assert (tmp_path / "all.jsonl").read_bytes() == (tmp_path / "one.jsonl").read_bytes()
    assert batch.sha256 == one.sha256
    assert len(writes) == 1


def test_a_short_write_is_finished_by_further_writes(tmp_path: Path) -> None:
    """A raw write may take part of the bytes (a signal, a nearly full disk): the writer
    hands the rest over until the line is whole, and the digest covers each byte once."""
    records = [_header(), AgentMessage(step=0, turn=0, content="hé " * 40)]
    with JsonlWriter(tmp_path / "whole.jsonl") as whole:
        for record in records:
            whole.append(record)
    takes: list[int] = []
    with JsonlWriter(tmp_path / "short.jsonl") as short:
        raw = short._fh

        class Short:
            def write(self, data: bytes | memoryview) -> int | None:
                takes.append(len(data))
                return raw.write(bytes(data[:7]))

            def __getattr__(self, name: str) -> object:
                return getattr(raw, name)

        short._fh = Short()  # type: ignore[assignment]
        for record in records:
            short.append(record)
    assert (tmp_path / "short.jsonl").read_bytes() == (tmp_path / "whole.jsonl").read_bytes()
    assert short.sha256 == whole.sha256
    assert len(takes) > len(records)
