"""Simulated matrix benchmark: a 1k / 10k / 100k-run experiment on the Ray executor, and
how the driver's memory grows with it.

What runs: the shipped case set (274 cases on 106 clean tasks) × the five scripted agents ×
as many repetitions as the size needs (so a size is a lower bound: 100,000 plans 100,540
runs), streamed by the experiment's ``Schedule`` and run with ``keep_records=False`` as
``sscbench experiment`` does — the driver holds counts, not one record per run. Each run
is a *simulated* episode (:mod:`sscbench.experiments.simulated`): a real four-line ledger
with a deterministic outcome (about one run in eight unsolved, so gating stops some
faulted runs), written by a Ray actor into its staging directory. So what is measured is
the engine's path — plan, gating, resume check, budget, the actor call, staging and the
driver's atomic rename, ledger digest, status log, summary — not τ² and not a model:
a real episode costs 10–50 ms of CPU more (see ``executors.py``).

Each size runs in its own process (a fresh Ray cluster with 2 CPUs, 2 actors) so peak RSS
is that size's alone: the driver's (``ru_maxrss``) and each actor's. It is then resumed in
another fresh process (every run found finished and checked, nothing re-run), whose driver
peak RSS is reported beside. The scaling exponent b of peak RSS ≈ a·N^b is fitted between
the sizes (b = 0: flat, b = 1: linear).

    .venv/bin/python benchmarks/matrix.py                 # 1k, 10k, 100k: ~4 min on 2 cores
    .venv/bin/python benchmarks/matrix.py --sizes 1000 10000
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).with_name("matrix-results.json")
AGENTS = ("gold", "careful", "hasty", "mixed", "eager")


def _experiment_text(size: int, concurrency: int) -> str:
    """An experiment over the shipped case set with enough repetitions for ``size`` runs."""
    from sscbench.experiments import Schedule, load_experiment

    configs = "\n".join(f'[[configurations]]\nid = "{a}"\nagent = "scripted:{a}"\n' for a in AGENTS)
    head = f'name = "simulated-{size}"\nexecutor = "ray"\nconcurrency = {concurrency}\n'
    with tempfile.TemporaryDirectory() as tmp:
        probe = Path(tmp) / "probe.toml"
        probe.write_text(f"{head}repetitions = 1\n{configs}", encoding="utf-8")
        one = Schedule(load_experiment(probe))
        clean, per_rep = len(one.depended_on()), len(one) - len(one.depended_on())
    repetitions = max(1, math.ceil((size - clean) / per_rep))
    return f"{head}repetitions = {repetitions}\n{configs}"


def arm(size: int, concurrency: int, where: Path) -> dict[str, Any]:
    """One size, in this (fresh) process, into ``where`` (a session already there is
    resumed: every run is found finished, checked and recorded again)."""
    import ray

    from sscbench.experiments import Schedule, load_experiment, run_experiment
    from sscbench.experiments.executors import RayExecutor
    from sscbench.experiments.simulated import simulated_episode

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level=40)
    actor_rss: list[float] = []

    class Measured(RayExecutor):
        def close(self) -> None:
            actor_rss.extend(self._ray.get([a.peak_rss_mib.remote() for a in self._actors]))
            super().close()

    path = where / "exp.toml"
    if not path.exists():
        path.write_text(_experiment_text(size, concurrency), encoding="utf-8")
    experiment = load_experiment(path)
    start = time.perf_counter()
    schedule = Schedule(experiment)
    planned_runs = len(schedule)
    schedule.depended_on()
    planned = time.perf_counter() - start
    executor = Measured(None, concurrency, episode=simulated_episode)
    result = run_experiment(experiment, where / "out", executor=executor, keep_records=False)
    wall = time.perf_counter() - start
    status_bytes = (where / "out" / "schedule.jsonl").stat().st_size
    observed = sum(
        n for row in result.counts().values() for k, n in row.items() if k.endswith("_observed")
    )
    states = {"observed": observed} | {f"missing:{c}": n for c, n in result.tally.causes.items()}
    return {
        "runs": planned_runs,
        "finished": result.scheduled,
        "executed": result.executed,
        "states": states,
        "plan_s": planned,
        "wall_s": wall,
        "runs_per_s": planned_runs / wall,
        "driver_peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "actor_peak_rss_mib": actor_rss,
        "status_file_mib": status_bytes / 2**20,
        "load_avg_1m": os.getloadavg()[0],
    }


def _exponent(rows: list[dict[str, Any]], key: str) -> float | None:
    if len(rows) < 2:
        return None
    a, b = rows[0], rows[-1]
    return math.log(b[key] / a[key]) / math.log(b["runs"] / a["runs"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--where", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(arm(args.child, args.concurrency, args.where)))
        return 0
    rows = []
    for size in args.sizes:
        where = Path(tempfile.mkdtemp(prefix="sscbench-matrix-"))
        child = ["--child", str(size), "--concurrency", str(args.concurrency)]
        try:
            runs = []
            for _ in ("run", "resume"):  # each in a fresh process: its own peak RSS
                out = subprocess.run(
                    [sys.executable, __file__, *child, "--where", str(where)],
                    capture_output=True,
                    text=True,
                    check=True,
                )
                runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
        finally:
            shutil.rmtree(where, ignore_errors=True)
        row, resumed = runs
        assert resumed["executed"] == 0, "a resumed session re-ran finished runs"
        row["resume"] = {k: resumed[k] for k in ("wall_s", "driver_peak_rss_mib", "finished")}
        rows.append(row)
        print(
            f"{size}: {row['wall_s']:.1f} s, resumed in {resumed['wall_s']:.1f} s",
            file=sys.stderr,
            flush=True,
        )
    print(
        "| runs | wall s | runs/s | driver peak RSS MiB | actors' peak RSS MiB | status MiB | "
        "resume wall s | resume driver RSS MiB |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        actors = " / ".join(f"{x:.0f}" for x in r["actor_peak_rss_mib"])
        print(
            f"| {r['runs']:,} | {r['wall_s']:.1f} | {r['runs_per_s']:.0f} | "
            f"{r['driver_peak_rss_mib']:.0f} | {actors} | {r['status_file_mib']:.1f} | "
            f"{r['resume']['wall_s']:.1f} | {r['resume']['driver_peak_rss_mib']:.0f} |"
        )
    driver_b = _exponent(rows, "driver_peak_rss_mib")
    if driver_b is not None:
        print(
            f"\ndriver peak RSS ∝ N^{driver_b:.2f} between {rows[0]['runs']:,} and "
            f"{rows[-1]['runs']:,} runs"
        )
    RESULTS.write_text(
        json.dumps({"sizes": rows, "driver_rss_exponent": driver_b}, indent=1) + "\n",
        encoding="utf-8",
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
