#!/usr/bin/env python
"""SSCBench performance harness: our adapter vs raw τ², side by side in one process.

* **P1** per tool call: ``EpisodeEnvironment.execute`` (no intervention) vs τ²
  ``Environment.get_response``, replaying every gold action of every airline and retail
  task on a fresh environment of each kind, calls interleaved one by one.
* **P2** per-episode state: ``EpisodeEnvironment.open`` vs τ² ``get_environment()`` from
  file, τ² constructor from ``pickle.loads`` and ``db.model_copy(deep=True)``.
* **P3** offline episodes per second per core: ``run_episode`` with ``scripted:gold`` /
  ``scripted:careful`` and the scripted user (ledger writing and grading included) vs a
  τ²-native loop (env from pickle, gold actions through ``get_response``, ``get_db_hash``).
* **P8** our ``scripted:gold`` episode per domain vs a *fair* τ²-native loop (τ²'s own
  environment, base database reused with copy on access, gold actions, our final-state
  verdict), with two arms that split ours: our engine alone and the engine writing the run
  directory from ready-made bytes (the floor); ``--fair-only`` runs just this one.

Run ``python benchmarks/run.py [--quick] [--profile] [--out PATH]``; it prints markdown tables and
writes ``benchmarks/results.json``. See ``benchmarks/README.md``.

This file is the entry point: it runs P2 first (its τ² baselines need a process in which
nothing has frozen the GC yet), then P1 and P3, judges the targets, profiles on request
or on a miss, and writes the results. The work is done by its sibling modules:
``bench_common`` (configuration, τ² helpers, machine info), ``bench_calls`` (P1),
``bench_episodes`` (P2, P3), ``bench_profiling`` (cProfile) and ``bench_report`` (targets
and markdown).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from bench_calls import run_p1
from bench_common import HERE, machine_info, make_config, perf, speed_index
from bench_episodes import run_p2, run_p3
from bench_fair import p8_arms_lines, run_p8
from bench_profiling import run_profiles
from bench_report import evaluate_targets, render, render_p8

DEFAULT_OUT = HERE / "results.json"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="fewer rounds; < 60 s")
    parser.add_argument(
        "--profile",
        action="store_true",
        help="also cProfile P1 writes and the P3 loops (full runs do it on any missed target)",
    )
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="results JSON path")
    parser.add_argument(
        "--fair-only", action="store_true", help="only P8 (ours vs the fair τ²-native loop)"
    )
    parser.add_argument(
        "--scratch",
        type=Path,
        default=None,
        help="where P8 writes its run directories (default: the system temp directory)",
    )
    args = parser.parse_args(argv)
    cfg = make_config(args.quick, args.profile)
    t_start = perf()
    results: dict[str, Any] = {"mode": cfg.mode, "config": cfg.__dict__.copy()}
    results["machine"] = machine_info()
    print(f"[bench] {cfg.mode} run on nproc={results['machine']['nproc']}", file=sys.stderr)

    if args.fair_only:
        results["p8"] = run_p8(cfg.p8_rounds, args.scratch)
        results["machine"]["loadavg_end"] = list(os.getloadavg())
        results["machine"]["speed_index_ms_end"] = speed_index()
        results["elapsed_s"] = perf() - t_start
        print("\n".join([render_p8(results), "", *p8_arms_lines(results["p8"])]))
        args.out.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n")
        print(f"\n[bench] wrote {args.out}", file=sys.stderr)
        return 0

    results["p2"], blobs = run_p2(cfg)
    print(f"[bench] P2 done at {perf() - t_start:.0f} s", file=sys.stderr)

    results["p1"] = run_p1(cfg, blobs)
    print(f"[bench] P1 done at {perf() - t_start:.0f} s", file=sys.stderr)
    results["p3"] = run_p3(cfg, blobs["airline"])
    print(f"[bench] P3 done at {perf() - t_start:.0f} s", file=sys.stderr)
    results["p8"] = run_p8(cfg.p8_rounds, args.scratch)
    print(f"[bench] P8 done at {perf() - t_start:.0f} s", file=sys.stderr)

    results["targets"] = evaluate_targets(results)
    missed = any(not t["met"] for t in results["targets"])
    if cfg.profile or (missed and cfg.mode == "full"):
        results["profile"] = run_profiles(blobs["airline"])
    results["machine"]["loadavg_end"] = list(os.getloadavg())
    results["machine"]["speed_index_ms_end"] = speed_index()
    results["elapsed_s"] = perf() - t_start
    print("\n".join([render(results), "", *p8_arms_lines(results["p8"])]))
    args.out.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n")
    print(f"\n[bench] wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
