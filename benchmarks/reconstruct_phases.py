#!/usr/bin/env python
"""Where a cold ``sscbench reconstruct`` spends its CPU, phase by phase, and what that leaves.

The performance target asks for 1,000 ledgers per CPU-second from a cold process (imports
included). This benchmark runs what the command runs, in a fresh process, and charges the
CPU time of each phase to it:

* **imports**: the modules the command loads before its first ledger;
* **finding runs**: the walk for ``ledger.jsonl`` files;
* **reading**: each ledger read and validated (one parse);
* **labelling**, split into the steps of ``label_ledger``: the fault contract from the
  header, the fault step and whether the fault landed (the hidden log), the refutation's
  arrival, the uses found in the agent's messages and calls, the labels decided;
* **writing**: the labels file and its run-set record.

With the fixed part (imports, walk, reading, writing) measured, the budget the target
leaves for labelling proper is ``1 ms − fixed`` per ledger, set beside what labelling
costs. The labels are written as the command writes them and their SHA-256 is printed;
``--check LABELS`` compares them byte for byte with a ``sscbench reconstruct`` output.

``python benchmarks/reconstruct_phases.py RUNDIR [--rounds 3] [--check LABELS] [--out FILE]``
(RUNDIR: a demo's ``runs/demo``). Each round is a fresh child process; the figures are the
medians over rounds.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

CHILD = r"""
import gc, json, sys, time
STARTED = time.process_time()
from pathlib import Path
from sscbench.cli.rare_gc import rare_collections
from sscbench.reconstruct import label as L
from sscbench.reconstruct.run_set import LabelsWriter
from sscbench.records.ledger import read_ledger
from sscbench.runs.episode import LEDGER_FILE

phases = {"imports": time.process_time() - STARTED}
STEPS = {
    "ledger_contract": "labelling: contract",
    "fault_step": "labelling: fault step",
    "triggered_state": "labelling: fault landed (hidden log)",
    "_arrival": "labelling: refutation arrival",
    "find_uses": "labelling: uses",
    "_decided": "labelling: decision",
}

def timed(name, func):
    def wrapper(*args, **kwargs):
        began = time.process_time()
        try:
            return func(*args, **kwargs)
        finally:
            phases[name] = phases.get(name, 0.0) + time.process_time() - began
    return wrapper

for attr, name in STEPS.items():
    setattr(L, attr, timed(name, getattr(L, attr)))

def charge(name, began):
    phases[name] = phases.get(name, 0.0) + time.process_time() - began

root, out = Path(sys.argv[1]), Path(sys.argv[2])
with rare_collections():  # as the command's handler runs
    began = time.process_time()
    dirs = L.run_dirs(root)
    charge("finding runs", began)
    labelled = 0.0
    with LabelsWriter(out, root, classifier="rules") as writer:
        hashes = {}
        for run_dir in dirs:
            began = time.process_time()
            ledger = read_ledger(run_dir / LEDGER_FILE)
            charge("reading", began)
            began = time.process_time()
            label = L.label_ledger(run_dir, ledger)
            labelled += time.process_time() - began
            began = time.process_time()
            writer.add(label)
            hashes[run_dir.relative_to(root).as_posix()] = ledger.sha256
            charge("writing", began)
        began = time.process_time()
        writer.commit(hashes)
        charge("writing", began)
steps = sum(v for k, v in phases.items() if k.startswith("labelling: "))
phases["labelling: the rest"] = labelled - steps
phases["total"] = time.process_time()
print(json.dumps({"ledgers": len(dirs), "phases": phases}))
gc.freeze()  # the process ends as the command's does (sscbench.cli.main.entry)
"""

FIXED = ("imports", "finding runs", "reading", "writing")


def one_round(rundir: Path, labels: Path) -> dict[str, Any]:
    """One fresh process: its phases (CPU s) and the labels' SHA-256."""
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, str(rundir), str(labels)],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    )
    found: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    found["labels_sha256"] = hashlib.sha256(labels.read_bytes()).hexdigest()
    return found


def main(argv: list[str] | None = None) -> int:
    """Rounds of the child, medians per phase, the budget the target leaves."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("rundir", type=Path, help="a directory of runs (a demo's runs/demo)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--check", type=Path, help="labels file the output must equal")
    parser.add_argument("--out", type=Path, help="write the results as JSON here")
    args = parser.parse_args(argv)
    rounds = []
    with tempfile.TemporaryDirectory(prefix="sscbench-phases-") as tmp:
        for r in range(args.rounds):
            rounds.append(one_round(args.rundir, Path(tmp) / f"labels-{r}.jsonl"))
    n = rounds[0]["ledgers"]
    names = list(rounds[0]["phases"])
    median = {k: sorted(r["phases"][k] for r in rounds)[len(rounds) // 2] for k in names}
    fixed = sum(median[k] for k in FIXED)
    labelling = sum(v for k, v in median.items() if k.startswith("labelling: "))
    shas = {r["labels_sha256"] for r in rounds}
    results: dict[str, Any] = {
        "ledgers": n,
        "rounds": rounds,
        "median_cpu_s": median,
        "us_per_ledger": {k: round(1e6 * v / n, 1) for k, v in median.items()},
        "ledgers_per_cpu_s": n / median["total"],
        "fixed_us_per_ledger": 1e6 * fixed / n,
        "labelling_us_per_ledger": 1e6 * labelling / n,
        "labelling_budget_us_at_1000": 1000 - 1e6 * fixed / n,
        "ceiling_if_labelling_were_free": n / fixed,
        "labels_identical_across_rounds": len(shas) == 1,
        "machine": {"nproc": os.cpu_count(), "loadavg": list(os.getloadavg())},
    }
    if args.check is not None:
        results["labels_match_check"] = shas == {
            hashlib.sha256(args.check.read_bytes()).hexdigest()
        }
    for k, v in results["us_per_ledger"].items():
        print(f"{k:40s} {v:8.1f} µs per ledger")
    print(
        f"{n} ledgers: {results['ledgers_per_cpu_s']:.0f} per CPU-second; fixed part "
        f"{results['fixed_us_per_ledger']:.0f} µs, labelling "
        f"{results['labelling_us_per_ledger']:.0f} µs per ledger; "
        "1,000 per CPU-second leaves labelling "
        f"{results['labelling_budget_us_at_1000']:.0f} µs; with labelling free: "
        f"{results['ceiling_if_labelling_were_free']:.0f} per CPU-second"
    )
    if "labels_match_check" in results:
        print(f"labels byte-identical to {args.check}: {results['labels_match_check']}")
    if args.out is not None:
        args.out.write_text(json.dumps(results, indent=2) + "\n")
    return (
        0
        if results["labels_identical_across_rounds"] and results.get("labels_match_check", True)
        else 1
    )


if __name__ == "__main__":
    sys.exit(main())
