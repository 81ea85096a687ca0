"""P1 (cost per tool call) of a baseline commit and of this tree, side by side.

Each arm is a fresh process running ``bench_calls.run_p1`` with per-call timings in CPU
time (``time.process_time``) instead of wall clock; the baseline is ``git archive REF``
unpacked into a temporary directory and put first on ``PYTHONPATH`` (the benchmark code
is this tree's for both). Processes alternate baseline, current, baseline, ... so that the
shared machine's load drifts over both alike; the load average is recorded per process.

    .venv/bin/python benchmarks/calls_ab.py --baseline REF [--current REF] [--pairs 3] [--rounds 4]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from commands import unpack

ROOT = Path(__file__).resolve().parents[1]
HERE = Path(__file__).resolve().parent
OUT = HERE / "calls-ab-results.json"

CHILD = """
import dataclasses, json, pickle, sys, time
import bench_calls
from bench_common import DOMAINS, make_config, tau2_env_module
import sscbench
bench_calls.perf = time.process_time
blobs = {d: pickle.dumps(tau2_env_module(d).get_environment().tools.db) for d in DOMAINS}
cfg = dataclasses.replace(make_config(False, False), p1_rounds=int(sys.argv[1]),
                          p1_split_rounds=1)
out = bench_calls.run_p1(cfg, blobs)
out["sscbench_path"] = sscbench.__file__
json.dump(out, sys.stdout)
"""

ROWS = ("airline_write", "airline_read", "retail_write", "retail_read", "write", "read", "all")


def arm(pythonpath: Path | None, rounds: int) -> dict[str, object]:
    """One child process's P1 figures (CPU µs per call) and the load around it."""
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    env["PYTHONPATH"] = os.pathsep.join(
        [*([str(pythonpath)] if pythonpath is not None else []), str(HERE)]
    )
    load = os.getloadavg()[0]
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, str(rounds)],
        cwd=HERE,  # not ROOT: the current directory would shadow PYTHONPATH
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, object] = json.loads(proc.stdout)
    result["loadavg_1min"] = [load, os.getloadavg()[0]]
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", required=True, help="git ref of the baseline tree")
    parser.add_argument(
        "--current", default=None, help="git ref of the current tree (default: the work tree)"
    )
    parser.add_argument("--pairs", type=int, default=3, help="baseline/current process pairs")
    parser.add_argument("--rounds", type=int, default=4, help="P1 rounds per process")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    runs: dict[str, list[dict[str, object]]] = {"baseline": [], "current": []}
    with tempfile.TemporaryDirectory() as tmp:
        base = unpack(args.baseline, Path(tmp) / "baseline")
        current = None if args.current is None else unpack(args.current, Path(tmp) / "current")
        for i in range(args.pairs):
            for side in ("baseline", "current") if i % 2 == 0 else ("current", "baseline"):
                runs[side].append(arm(base if side == "baseline" else current, args.rounds))
    for side, results in runs.items():
        print(side, sorted({str(r["sscbench_path"]) for r in results}))
    print(
        f"P1, CPU µs per call; baseline {args.baseline}, current {args.current or 'work tree'}; "
        f"{args.pairs} processes per side"
    )
    print("| calls | baseline ours | baseline τ² | ratio | current ours | current τ² | ratio |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    table: dict[str, dict[str, float]] = {}
    for row in ROWS:
        cells: dict[str, float] = {}
        for side, results in runs.items():
            rows = [r["rows"][row] for r in results]  # type: ignore[index]
            cells[f"{side}_ours_us"] = statistics.median(x["ours_us"] for x in rows)
            cells[f"{side}_raw_us"] = statistics.median(x["raw_us"] for x in rows)
            cells[f"{side}_ratio"] = statistics.median(x["ratio"] for x in rows)
            cells[f"{side}_ratios"] = [x["ratio"] for x in rows]  # type: ignore[assignment]
        table[row] = cells
        print(
            f"| {row} | {cells['baseline_ours_us']:.1f} | {cells['baseline_raw_us']:.1f} | "
            f"{cells['baseline_ratio']:.3f} | {cells['current_ours_us']:.1f} | "
            f"{cells['current_raw_us']:.1f} | {cells['current_ratio']:.3f} |"
        )
    loads = [x for rs in runs.values() for r in rs for x in r["loadavg_1min"]]  # type: ignore[attr-defined]
    print(
        f"load average (1 min) {min(loads):.1f}–{max(loads):.1f}; mismatched observations: "
        f"{sum(r['mismatched_observations'] for rs in runs.values() for r in rs)}"
    )  # type: ignore[misc]
    args.out.write_text(
        json.dumps({"baseline": args.baseline, "table": table, "runs": runs}, indent=1) + "\n"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
