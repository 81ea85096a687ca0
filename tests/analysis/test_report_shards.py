"""The viewer's run data is paged: ⌈runs / 256⌉ shard files under ``runs/``, whatever the
number of runs, each written in row order whatever order the ledgers arrive in."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

from sscbench.analysis.synthetic import synthetic_labels, write_run_set
from sscbench.analysis.viewer import run_order, write_run_files
from sscbench.analysis.viewer.runfiles import (
    CALLBACK,
    RUNS_DIR,
    SHARD,
    ShardWriter,
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
        match = re.fullmatch(rf"{CALLBACK}\({k},(.*)\);\n", path.read_text(), re.DOTALL)
        assert match is not None
        rows.update((int(n), p) for n, p in json.loads(match[1]).items())
    assert sorted(rows) == list(range(RUNS))
    assert [rows[n]["id"] for n in range(RUNS)] == [x.run_id for x in order]
    assert all(rows[n]["events"] for n in range(RUNS))  # the ledgers' histories, not "missing"


def test_shards_are_the_same_bytes_whatever_order_rows_arrive_in(tmp_path: Path) -> None:
    rows = 2 * SHARD + 5
    data = {n: json.dumps({"id": f"r{n}", "text": "é" * (n % 7)}).encode() for n in range(rows)}
    shuffled = list(range(rows))
    random.Random(0).shuffle(shuffled)
    outs = []
    for name, sequence in (("ordered", range(rows)), ("shuffled", shuffled)):
        writer = ShardWriter(tmp_path / name, rows)
        for n in sequence:
            writer.put(n, data[n])
        writer.close()
        outs.append({p.name: p.read_bytes() for p in _files(tmp_path / name)})
    assert outs[0] == outs[1]
    assert sorted(outs[0]) == ["0.js", "1.js", "2.js"]
    assert outs[0]["2.js"] == (
        f'{CALLBACK}(2,{{"{2 * SHARD}":'.encode()
        + b",".join(
            (f'"{n}":'.encode() if n > 2 * SHARD else b"") + data[n] for n in range(2 * SHARD, rows)
        )
        + b"});\n"
    )
    assert list((tmp_path / "shuffled").iterdir()) == [tmp_path / "shuffled" / RUNS_DIR]


def test_no_runs_write_no_runs_folder(tmp_path: Path) -> None:
    write_run_files(tmp_path / "out", [], tmp_path)
    assert not (tmp_path / "out" / RUNS_DIR).exists()
