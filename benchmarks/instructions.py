#!/usr/bin/env python
"""A cold ``sscbench reconstruct`` counted in instructions, this tree against a baseline commit.

CPU seconds on a shared machine move by 10–30 % from one run to the next, which hides a
change worth a few per cent. valgrind's callgrind counts the instructions a process
executes instead: the same count for the same tree, inputs and environment whatever else
the machine is doing. It runs about 50 times slower, so a sample of the run set is used:
every ``--every``-th run directory under ``RUNS`` (sorted), copied without its labels.

Each side is measured twice: on the sample, and on one run directory of it (the imports
and everything else a command pays once). The difference over the sample's size is the
instructions per ledger, the figure a change to the labelling moves. The two sides' labels
of the sample must be byte-identical. Instructions are not seconds (system calls, cache
misses and the disk are not counted): the figure complements the CPU-time benchmarks, it
does not replace them.

``python benchmarks/instructions.py RUNS --baseline REF [--every 10] [--out FILE]``
(about three minutes a side at the default on the demo's 3,340 ledgers).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from commands import ROOT, compile_tree, same_tree, unpack


def sample(source: Path, into: Path, every: int) -> int:
    """Copy every ``every``-th run directory of ``source`` into ``into``; how many."""
    runs = sorted(p.parent for p in source.rglob("ledger.jsonl"))[::every]
    for run in runs:
        shutil.copytree(
            run, into / run.relative_to(source), ignore=shutil.ignore_patterns("labels.*")
        )
    return len(runs)


def counted(work: Path, pythonpath: Path, log: Path) -> int:
    """Instructions of one cold ``sscbench reconstruct`` of ``work`` under callgrind."""
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")  # as commands.py runs both sides
    env["PYTHONPATH"] = str(pythonpath)
    argv = [
        "valgrind",
        "--tool=callgrind",
        f"--callgrind-out-file={log}.out",
        sys.executable,
        "-m",
        "sscbench",
        "reconstruct",
        str(work),
    ]
    proc = subprocess.run(argv, cwd=work, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} exited {proc.returncode}: {proc.stderr[-400:]}")
    found = re.search(r"Collected : (\d+)", proc.stderr)
    if found is None:
        raise SystemExit(f"callgrind printed no instruction count: {proc.stderr[-400:]}")
    return int(found.group(1))


def main(argv: list[str] | None = None) -> int:
    """Count both sides on the sample and on one run, compare their labels."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("runs", type=Path, help="a run directory (an earlier demo's runs/demo)")
    parser.add_argument("--baseline", default="main", help="git commit to compare with")
    parser.add_argument("--every", type=int, default=10, help="sample every N-th run")
    parser.add_argument("--out", type=Path, help="write the results as JSON here")
    args = parser.parse_args(argv)
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed (Debian: apt-get install valgrind)")
    sha = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", args.baseline],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    current = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "HEAD"], check=True, capture_output=True, text=True
    ).stdout.strip()
    results: dict[str, Any] = {"baseline": {"ref": args.baseline, "commit": sha}}
    results["current_commit"] = current
    with tempfile.TemporaryDirectory(prefix="sscbench-instructions-") as tmp:
        root = Path(tmp)
        sides: dict[str, Path] = {
            "baseline": unpack(sha, root / "baseline-src"),
            "current": ROOT,  # this tree, not whichever one the venv installed
        }
        compile_tree(root / "baseline-src" / "sscbench")
        compile_tree(ROOT / "sscbench")
        for side, pythonpath in sides.items():
            work, one = root / f"sample-{side}", root / f"one-{side}"
            n = sample(args.runs.resolve(), work, args.every)
            sample(work, one, n)  # the sample's first run alone
            total = counted(work, pythonpath, root / f"{side}-sample")
            fixed = counted(one, pythonpath, root / f"{side}-one")
            results[side] = {
                "ledgers": n,
                "instructions": total,
                "one_ledger_instructions": fixed,
                "per_ledger": (total - fixed) / max(n - 1, 1),
            }
            print(f"[instructions] {side}: {results[side]}", file=sys.stderr)
        results["labels_identical"] = same_tree(
            root / "sample-baseline" / "labels.jsonl", root / "sample-current" / "labels.jsonl"
        )
    b, c = results["baseline"], results["current"]
    results["per_ledger_ratio_current_over_baseline"] = c["per_ledger"] / b["per_ledger"]
    results["total_ratio_current_over_baseline"] = c["instructions"] / b["instructions"]
    labels = "byte-identical" if results["labels_identical"] else "DIFFERENT"
    print(
        "| side | ledgers | instructions (G) | one ledger (G) | per further ledger (M) |\n"
        "|---|---:|---:|---:|---:|\n"
        + "".join(
            f"| {s} | {r['ledgers']} | {r['instructions'] / 1e9:.3f} | "
            f"{r['one_ledger_instructions'] / 1e9:.3f} | {r['per_ledger'] / 1e6:.2f} |\n"
            for s, r in (("baseline", b), ("current", c))
        )
        + f"\nper ledger current / baseline {results['per_ledger_ratio_current_over_baseline']:.3f}"
        f", whole sample {results['total_ratio_current_over_baseline']:.3f}; labels {labels}."
    )
    if args.out is not None:
        args.out.write_text(json.dumps(results, indent=2) + "\n")
    return 0 if results["labels_identical"] else 1


if __name__ == "__main__":
    sys.exit(main())
