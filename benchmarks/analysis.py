"""P5 analysis benchmark: every §7 table with B = 2000 over a synthetic 1,191-run set.

    python benchmarks/analysis.py [--rounds N] [--out PATH]

Target: the analysis of a paper-sized run set (1,191 faulted runs, five configurations
with three or one repetitions, over the shipped case set's entity clusters) takes at most
5 s. The label set is synthetic and seeded (``sscbench.analysis.synthetic``), so the
figure does not depend on running agents. Each sensitivity variant is timed on its own
(median of ``--rounds``, after one untimed warm-up that also loads the case set), then
all five together. Figures print as a markdown table and go to
benchmarks/analysis-results.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from sscbench.analysis.intervals import DEFAULT_REPLICATES
from sscbench.analysis.population import SENSITIVITIES
from sscbench.analysis.quantities import analyze, analyze_all
from sscbench.analysis.results import AnalysisResult
from sscbench.analysis.synthetic import PAPER_RUNS, synthetic_labels
from sscbench.cases.caseset import load_case_set

OUT = Path(__file__).with_name("analysis-results.json")
TARGET_S = 5.0


def _rates(result: AnalysisResult) -> dict[str, int]:
    """How many rates (and of those, bootstraps) an analysis computed."""
    rates = [
        rate
        for table in (result.arrival, result.adoption, result.timing, result.reformulation)
        for row in table
        for rate in row.__dict__.values()
        if hasattr(rate, "interval")
    ]
    return {
        "rates": len(rates),
        "bootstraps": sum(r.interval.method == "cluster_bootstrap" for r in rates),
        "wilson": sum(r.interval.method == "wilson" for r in rates),
    }


def _time(fn: Any, rounds: int) -> list[float]:
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return times


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark, print the table, write the JSON; exit 1 if the target is missed."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="timed rounds per variant")
    parser.add_argument("--out", type=Path, default=OUT, help="JSON output path")
    parser.add_argument("--seed", type=int, default=0, help="synthetic label set seed")
    args = parser.parse_args(argv)

    case_set = load_case_set()
    started = time.perf_counter()
    labels = synthetic_labels(case_set, runs=PAPER_RUNS, seed=args.seed)
    generate_s = time.perf_counter() - started
    analyze(labels, case_set)  # warm-up (imports, caches)

    rows: list[dict[str, Any]] = []
    for variant in SENSITIVITIES:
        result = analyze(labels, case_set, sensitivity=variant)
        times = _time(lambda v=variant: analyze(labels, case_set, sensitivity=v), args.rounds)
        rows.append(
            {
                "variant": variant,
                "median_s": statistics.median(times),
                "max_s": max(times),
                "rounds_s": times,
                "scheduled": sum(f.scheduled for f in result.funnel),
                "population": sum(f.population for f in result.funnel),
                **_rates(result),
            }
        )
    all_times = _time(lambda: analyze_all(labels, case_set), args.rounds)
    all_median = statistics.median(all_times)
    report = {
        "benchmark": "P5 analysis",
        "target_s": TARGET_S,
        "runs": len(labels),
        "clusters": len({c.entry.cluster for c in case_set.cases}),
        "bootstrap_replicates": DEFAULT_REPLICATES,
        "synthetic_seed": args.seed,
        "generate_s": generate_s,
        "variants": rows,
        "all_variants": {"median_s": all_median, "max_s": max(all_times), "rounds_s": all_times},
        "meets_target": max(all_times) <= TARGET_S,
        "machine": {
            "python": sys.version.split()[0],
            "platform": platform.platform(),
            "cpus": os.cpu_count(),
        },
    }

    print(
        f"## P5 analysis: {len(labels)} synthetic runs, B = {DEFAULT_REPLICATES}, "
        f"target ≤ {TARGET_S:g} s\n"
    )
    print("| variant | scheduled | P | rates | bootstraps | median s | max s |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for row in rows:
        print(
            f"| {row['variant']} | {row['scheduled']} | {row['population']} | {row['rates']} | "
            f"{row['bootstraps']} | {row['median_s']:.3f} | {row['max_s']:.3f} |"
        )
    print(f"| **all five** | {len(labels)} | | | | **{all_median:.3f}** | {max(all_times):.3f} |")
    verdict = "meets" if report["meets_target"] else "MISSES"
    print(f"\nAll five variants: {all_median:.2f} s median — {verdict} the {TARGET_S:g} s target.")
    args.out.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    print(f"written to {args.out}")
    return 0 if report["meets_target"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
