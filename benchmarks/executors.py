"""Executor benchmark: the local executor and Ray, side by side in one run.

* **CPU-bound** — scripted episodes (the shipped case set's ItemOption and WriteEffect
  cases, one configuration, with their gating clean runs): episodes per second on the
  local executor (threads of one process: one GIL) and on Ray with 1 and 2 worker actors.
  Each arm runs in its own process with a fresh Ray cluster of that many CPUs, so no arm
  inherits another's caches.
* **Latency-bound** — 256 provider episodes at once against a loopback server (its own
  process) that answers each of ``calls`` model calls after ``latency`` seconds, on Ray
  with 2 actors × 128 threads: the latency bound of the batch is ``calls × latency``; the
  target is a wall time within 1.25× of it.

Peak RSS of each arm's process (driver; Ray workers are separate processes) is reported
too. Prints a markdown table and writes ``benchmarks/executors-results.json``.

    .venv/bin/python benchmarks/executors.py            # ~2 min on a 2-core machine
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
LOOPBACK = ROOT / "tests" / "experiments" / "loopback.py"
RESULTS = Path(__file__).with_name("executors-results.json")
KEY_ENV = "SSCBENCH_BENCH_KEY"

SCRIPTED = """
concurrency = {concurrency}
executor = "{executor}"
[cases]
operators = ["item_option", "write_effect"]
[[configurations]]
id = "hasty"
agent = "scripted:hasty"
"""


def arm(executor: str, workers: int, concurrency: int, exp_text: str) -> dict[str, Any]:
    """One arm, in this (fresh) process: episodes/s and peak RSS."""
    from sscbench.experiments import load_experiment, plan_runs, run_experiment

    if executor == "ray":
        import ray

        ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False, logging_level=40)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "exp.toml"
        path.write_text(exp_text, encoding="utf-8")
        experiment = load_experiment(path)
        runs = plan_runs(experiment)
        start = time.perf_counter()
        result = run_experiment(experiment, Path(tmp) / "out", runs=runs)
        wall = time.perf_counter() - start
    observed = sum(r.state == "observed" for r in result.records)
    rss_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {
        "executor": executor,
        "workers": workers,
        "episodes": len(runs),
        "observed": observed,
        "wall_s": wall,
        "episodes_per_s": len(runs) / wall,
        "peak_rss_mib": rss_mib,
    }


def _child(args: argparse.Namespace) -> int:
    print(json.dumps(arm(args.executor, args.workers, args.concurrency, args.text)))
    return 0


def _run_arm(executor: str, workers: int, concurrency: int, text: str) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, __file__, "--child", executor, str(workers), str(concurrency)],
        input=text,
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "RAY_DEDUP_LOGS": "0"},
    )
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def _latency_text(url: str, episodes: int) -> str:
    return f"""
concurrency = {episodes}
executor = "ray"
repetitions = 3
gate = "per_repetition"
[[configurations]]
id = "loopback"
agent = "openai"
params = {{ model = "fake-model", base_url = "{url}", api_key_env = "{KEY_ENV}", \
max_retries = 0, timeout = 60 }}
"""


def latency_bound(episodes: int, calls: int, latency: float) -> dict[str, Any]:
    """``episodes`` distinct clean provider episodes at once on Ray (2 actors)."""
    server = subprocess.Popen(
        [
            sys.executable,
            str(LOOPBACK),
            "--responder",
            "reads",
            "--latency",
            str(latency),
            "--calls",
            str(calls),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert server.stdout is not None and server.stdin is not None
    url = f"http://127.0.0.1:{int(server.stdout.readline())}/v1"
    try:
        os.environ[KEY_ENV] = "bench-key-not-secret"
        code = f"""
import json, sys, tempfile, time
from pathlib import Path
import ray
from sscbench.experiments import load_experiment, plan_runs, run_experiment
ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level=40)
tmp = Path(tempfile.mkdtemp())
(tmp / "e.toml").write_text(sys.stdin.read())
e = load_experiment(tmp / "e.toml")
seen, runs = set(), []
for r in plan_runs(e):
    k = (r.domain, r.task_id, r.key.seed)
    if r.condition == "clean" and k not in seen:
        seen.add(k); runs.append(r)
runs = runs[:{episodes}]
t = time.perf_counter()
res = run_experiment(e, tmp / "out", runs=runs)
print(json.dumps({{"wall_s": time.perf_counter() - t, "episodes": len(runs),
    "observed": sum(x.state == "observed" for x in res.records)}}))
"""
        out = subprocess.run(
            [sys.executable, "-c", code],
            input=_latency_text(url, episodes),
            capture_output=True,
            text=True,
            check=True,
        )
        row = dict(json.loads(out.stdout.strip().splitlines()[-1]))
    finally:
        server.stdin.close()
        server.wait(timeout=30)
    bound = calls * latency
    row.update(bound_s=bound, ratio=row["wall_s"] / bound, target=1.25)
    return row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", nargs=3, metavar=("EXECUTOR", "WORKERS", "CONCURRENCY"))
    parser.add_argument("--episodes", type=int, default=256)
    parser.add_argument("--calls", type=int, default=4)
    parser.add_argument("--latency", type=float, default=1.0)
    args = parser.parse_args()
    if args.child:
        executor, workers, concurrency = args.child
        ns = argparse.Namespace(
            executor=executor,
            workers=int(workers),
            concurrency=int(concurrency),
            text=sys.stdin.read(),
        )
        return _child(ns)
    rows = []
    for executor, workers, concurrency in (("local", 1, 1), ("ray", 1, 4), ("ray", 2, 4)):
        text = SCRIPTED.format(concurrency=concurrency, executor=executor)
        rows.append(_run_arm(executor, workers, concurrency, text))
    latency = latency_bound(args.episodes, args.calls, args.latency)
    print("| arm | episodes | wall s | episodes/s | peak RSS MiB (driver) |")
    print("|---|---:|---:|---:|---:|")
    for r in rows:
        name = "local" if r["executor"] == "local" else f"ray × {r['workers']}"
        print(
            f"| {name} | {r['episodes']} | {r['wall_s']:.1f} | {r['episodes_per_s']:.1f} | "
            f"{r['peak_rss_mib']:.0f} |"
        )
    print(
        f"\nlatency-bound: {latency['episodes']} episodes × {args.calls} calls × "
        f"{args.latency:g} s on Ray × 2: {latency['wall_s']:.2f} s = "
        f"{latency['ratio']:.2f}× the bound (target ≤ 1.25×); "
        f"{latency['observed']} observed"
    )
    RESULTS.write_text(
        json.dumps({"cpu_bound": rows, "latency_bound": latency}, indent=1) + "\n",
        encoding="utf-8",
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
