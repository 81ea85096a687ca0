#!/usr/bin/env python
"""What the experiment engine costs around its episodes, this tree against a baseline commit.

The demo's faulted runs (the shipped case set × its five scripted agents × two seeds, 3,340
runs) go through ``run_case_set`` — the engine's event loop, a worker thread per episode (or none),
the status log — in a child process per side, under the collector setting the command line
uses. Each child reports its CPU time split three ways:

* **loop**: the main thread (the event loop: scheduling, gates, the status log, callbacks),
  less the episodes played on it;
* **episodes**: inside ``run_episode`` (worker threads, or the main thread for scripted
  participants where the tree plays them there);
* **around**: the rest (the worker's set-up and the run's cost and digest, thread hand-offs,
  the domains' one-off prewarm).

Rounds alternate the sides; the medians per run are printed and written with every round.
A change to the engine moves *loop* and *around*; *episodes* is the control (it should not
move when only the engine changed).

``python benchmarks/engine_overhead.py --baseline REF [--rounds 3] [--out FILE]``
(about 30 s a round a side on the 2-core development machine).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from commands import ROOT, compile_tree, unpack

CHILD = """
import json, shutil, sys, threading, time
from pathlib import Path
from sscbench.cases.caseset import load_case_set
from sscbench.cli.demo import DEMO_AGENTS
from sscbench.cli.rare_gc import rare_collections
from sscbench.experiments import execute
from sscbench.experiments.inline import run_case_set

inside = [0.0, 0.0]  # every episode's CPU; the part on the main thread
episode = execute.run_episode

def timed(*args, **kwargs):
    start = time.thread_time()
    try:
        return episode(*args, **kwargs)
    finally:
        spent = time.thread_time() - start
        inside[0] += spent
        if threading.current_thread() is threading.main_thread():
            inside[1] += spent

execute.run_episode = timed
case_set = load_case_set(None)
out = Path(sys.argv[1])
with rare_collections():
    cpu, loop = time.process_time(), time.thread_time()
    session = run_case_set(case_set, DEMO_AGENTS, out, seeds=range(2))
    cpu, loop = time.process_time() - cpu, time.thread_time() - loop - inside[1]
runs = len(session.records)
print(json.dumps({"runs": runs, "cpu_s": cpu, "loop_s": loop, "episodes_s": inside[0],
                  "around_s": cpu - loop - inside[0]}))
"""


def one(pythonpath: Path, scratch: Path) -> dict[str, Any]:
    """One child process on ``pythonpath``'s ``sscbench``; its split in seconds."""
    out = Path(tempfile.mkdtemp(dir=scratch)) / "runs"
    env = {"PYTHONPATH": str(pythonpath), "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(out)],
        check=True,
        capture_output=True,
        text=True,
        cwd=scratch,
        env=env,
    )
    row: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return row


def main() -> int:
    """Alternate the two sides for ``--rounds`` rounds; print and write the medians."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", required=True, help="git commit to compare with")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--scratch", type=Path, default=None, help="where the runs go")
    parser.add_argument("--out", type=Path, default=None, help="write the JSON here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=args.scratch) as tmp:
        scratch = Path(tmp)
        sides = {"baseline": unpack(args.baseline, scratch / "baseline"), "current": ROOT}
        for path in sides.values():
            compile_tree(path / "sscbench")
        rounds: dict[str, list[dict[str, Any]]] = {side: [] for side in sides}
        for k in range(args.rounds):
            order = list(sides) if k % 2 == 0 else list(reversed(sides))
            for side in order:
                row = one(sides[side], scratch)
                rounds[side].append(row)
                print(f"[engine] {side}: {json.dumps(row)}", flush=True)
    summary: dict[str, dict[str, float]] = {}
    for side, rows in rounds.items():
        runs = rows[0]["runs"]
        summary[side] = {
            f"{part}_ms_per_run": statistics.median(r[f"{part}_s"] for r in rows) * 1000 / runs
            for part in ("cpu", "loop", "episodes", "around")
        }
        summary[side]["runs"] = runs
    print("\n| side | runs | CPU ms/run | loop | episodes | around |")
    print("|---|---:|---:|---:|---:|---:|")
    for side, s in summary.items():
        print(
            f"| {side} | {s['runs']:,.0f} | {s['cpu_ms_per_run']:.2f} | {s['loop_ms_per_run']:.3f} "
            f"| {s['episodes_ms_per_run']:.2f} | {s['around_ms_per_run']:.3f} |"
        )
    if args.out is not None:
        args.out.write_text(
            json.dumps({"baseline": args.baseline, "summary": summary, "rounds": rounds}, indent=1)
            + "\n",
            encoding="utf-8",
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
