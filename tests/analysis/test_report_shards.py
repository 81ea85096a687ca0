"""The viewer's run data is paged: ⌈runs / 256⌉ shard files under ``runs/``, whatever the
number of runs, each written in row order whatever order the ledgers arrive in."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from sscbench.analysis.synthetic import synthetic_labels, write_run_set
from sscbench.analysis.viewer import run_order, write_run_files
from sscbench.analysis.viewer.shards import (
    CALLBACK,
    RUNS_DIR,
    SHARD,
    ShardWriter,
    read_shard,
    shard_count,
    shard_file,
)
from sscbench.cases.caseset import load_case_set

RUNS = 600  # three shards: two full, one of 88 rows


def _files(out: Path) -> list[Path]:
    return sorted(p for p in (out / RUNS_DIR).rglob("*") if p.is_file())


def test_runs_folder_holds_one_file_per_256_runs(tmp_path: Path) -> None:
    labels = synthetic_labels(load_case_set(), runs=RUNS, seed=3)
    write_run_set(tmp_path / "set", labels, load_case_set())
    order = run_order(labels)
    found = write_run_files(tmp_path / "out", order, tmp_path / "set")
    assert not found.missing and not found.problems
    files = _files(tmp_path / "out")
    assert len(files) == shard_count(RUNS) == -(-RUNS // SHARD) == 3
    assert [p.relative_to(tmp_path / "out").as_posix() for p in files] == [
        shard_file(k) for k in range(3)
    ]
    rows: dict[int, dict[str, object]] = {}
    for k, path in enumerate(files):
        number, runs = read_shard(path.read_text())
        assert number == k
        rows.update(runs)
    assert sorted(rows) == list(range(RUNS))
    assert [rows[n]["id"] for n in range(RUNS)] == [x.run_id for x in order]
    assert all(rows[n]["events"] for n in range(RUNS))  # the ledgers' histories, not "missing"


def _payload(n: int) -> dict[str, Any]:
    common = "no dependent use — the fault-bearing observation was never delivered"
    return {
        "id": f"r{n}",
        "meta": [["T_S", common], ["task", f"airline {n % 3}"]],
        "events": [[0, "user_message", "user", "é" * (n % 7), [["m-t_f", "T_F", common]]]],
        **({"missing": "ledger not found"} if n % 5 == 0 else {}),
    }


def test_shards_are_the_same_bytes_whatever_order_rows_arrive_in(tmp_path: Path) -> None:
    rows = 2 * SHARD + 5
    shuffled = list(range(rows))
    random.Random(0).shuffle(shuffled)
    outs = []
    for name, sequence in (("ordered", range(rows)), ("shuffled", shuffled)):
        writer = ShardWriter(tmp_path / name, rows)
        for n in sequence:
            writer.put(n, _payload(n))
        writer.close()
        outs.append({p.name: p.read_bytes() for p in _files(tmp_path / name)})
    assert outs[0] == outs[1]
    assert sorted(outs[0]) == ["0.js", "1.js", "2.js"]
    for k in range(3):
        number, runs = read_shard(outs[0][f"{k}.js"].decode())
        assert number == k
        assert runs == {n: _payload(n) for n in range(k * SHARD, min(rows, (k + 1) * SHARD))}
    assert list((tmp_path / "shuffled").iterdir()) == [tmp_path / "shuffled" / RUNS_DIR]


def test_each_string_is_stored_once_a_shard(tmp_path: Path) -> None:
    writer = ShardWriter(tmp_path, SHARD + 1)
    for n in range(SHARD + 1):
        writer.put(n, _payload(n))
    writer.close()
    first = (tmp_path / shard_file(0)).read_text()
    common = "no dependent use — the fault-bearing observation was never delivered"
    assert first.count(common) == 1  # 256 runs × 2 uses, one copy
    assert first.count('"user_message"') == 1
    assert first.startswith(f"{CALLBACK}(0,{{") and first.endswith("]);\n")
    second = (tmp_path / shard_file(1)).read_text()
    assert second.count(common) == 1  # each shard stands alone
    assert read_shard(second) == (1, {SHARD: _payload(SHARD)})


def test_no_runs_write_no_runs_folder(tmp_path: Path) -> None:
    write_run_files(tmp_path / "out", [], tmp_path)
    assert not (tmp_path / "out" / RUNS_DIR).exists()


def test_run_text_that_looks_like_the_shard_syntax_reads_back(tmp_path: Path) -> None:
    tricky = '},["x"]);\nSSCBenchRuns(9,{'
    payload = {
        "id": "r0",
        "meta": [["k", tricky]],
        "events": [[0, "user_message", "user", tricky, []]],
    }
    writer = ShardWriter(tmp_path, 1)
    writer.put(0, payload)
    writer.close()
    assert read_shard((tmp_path / shard_file(0)).read_text()) == (0, {0: payload})


def test_anything_but_one_callback_call_is_refused() -> None:
    for text in ("alert(1);\n", f"{CALLBACK}(0,{{}},[]);alert(1);\n", f"{CALLBACK}(0,{{}});\n"):
        with pytest.raises(ValueError, match="not a shard file"):
            read_shard(text)


def test_given_ledgers_are_written_in_row_order_as_streaming_writes_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The ledgers a command already holds (a map in any order) give the same shard bytes
    and models as streaming them from disk, and no row waits in the spool."""
    from sscbench.analysis.viewer.runfiles import load_ledgers

    labels = synthetic_labels(load_case_set(), runs=RUNS, seed=5)
    write_run_set(tmp_path / "set", labels, load_case_set())
    order = run_order(labels)
    streamed = write_run_files(tmp_path / "streamed", order, tmp_path / "set")
    held = list(load_ledgers(tmp_path / "set").items())
    random.Random(1).shuffle(held)
    spooled: list[int] = []
    put = ShardWriter.put

    def watched(self: ShardWriter, n: int, payload: dict[str, Any]) -> None:
        if n != self._next:
            spooled.append(n)
        put(self, n, payload)

    monkeypatch.setattr(ShardWriter, "put", watched)
    given = write_run_files(tmp_path / "given", order, tmp_path / "set", ledgers=dict(held))
    assert not spooled
    assert given.models == streamed.models and not given.missing
    assert {p.name: p.read_bytes() for p in _files(tmp_path / "given")} == {
        p.name: p.read_bytes() for p in _files(tmp_path / "streamed")
    }
