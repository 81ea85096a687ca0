"""Executor benchmark: the local executor and Ray, side by side in one run.

* **CPU-bound** — scripted episodes (the shipped case set's ItemOption and WriteEffect
  cases, one configuration, with their gating clean runs): episodes per second on the
  local executor (threads of one process: one GIL) and on Ray with 1 and 2 worker actors.
  Each arm runs in its own process with a fresh Ray cluster of that many CPUs, so no arm
  inherits another's caches.
* **Latency-bound** — 256 distinct provider episodes at once against a loopback server
  (its own process: one asyncio loop with HTTP keep-alive, so its own CPU stays small on
  a 2-core machine) that answers each of ``calls`` model calls after ``latency`` seconds,
  on the local executor (256 threads) and on Ray (2 actors × 128 threads), side by side,
  for 4 and 10 calls per episode (a τ² episode makes 10–30): the latency bound of the
  batch is ``calls × latency``; the target is a wall time within 1.25× of it. Each row
  also gives the start-up (from the start of the session to its first model call: the
  SDK's import, τ²'s caches, Ray's actor processes) and the batch after it.

Peak RSS of each arm's process (driver; Ray workers are separate processes) is reported
too. Prints a markdown table and writes ``benchmarks/executors-results.json``.

    .venv/bin/python benchmarks/executors.py            # ~3 min on a 2-core machine
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
repetitions = 8
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


def _latency_text(url: str, episodes: int, executor: str) -> str:
    # 42 distinct clean tasks in the shipped set: enough repetitions for ``episodes``
    # distinct episodes (distinct seeds), so no run is a cache replay of another.
    repetitions = -(-episodes // 42)
    return f"""
concurrency = {episodes}
executor = "{executor}"
repetitions = {repetitions}
gate = "per_repetition"
[[configurations]]
id = "loopback"
agent = "openai"
params = {{ model = "fake-model", base_url = "{url}", api_key_env = "{KEY_ENV}", \
max_retries = 0, timeout = 60 }}
"""


def latency_arm(executor: str, episodes: int, text: str) -> dict[str, Any]:
    """One latency-bound arm, in this (fresh) process: ``episodes`` distinct clean
    provider episodes at once; wall time, and how much of it came before the first model
    call (start-up: Ray's actors and their τ² caches, or this process's τ² caches)."""
    from sscbench.experiments import load_experiment, plan_runs, run_experiment

    if executor == "ray":
        import ray

        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level=40)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "e.toml"
        path.write_text(text, encoding="utf-8")
        experiment = load_experiment(path)
        seen: set[tuple[str, str, int]] = set()
        runs = []
        for r in plan_runs(experiment):
            key = (r.domain, r.task_id, r.key.seed)
            if r.condition == "clean" and key not in seen:
                seen.add(key)
                runs.append(r)
        runs = runs[:episodes]
        cpu = time.process_time()
        start = time.time()
        result = run_experiment(experiment, Path(tmp) / "out", runs=runs)
        wall = time.time() - start
        cpu = time.process_time() - cpu
        calls = [
            json.loads(line)
            for f in (Path(tmp) / "out").rglob("provider_calls.jsonl")
            for line in f.read_text(encoding="utf-8").splitlines()
        ]
    first = min(c["ts"] - c["latency_s"] for c in calls)
    return {
        "executor": executor,
        "workers": 2 if executor == "ray" else 1,
        "episodes": len(runs),
        "observed": sum(r.state == "observed" for r in result.records),
        "calls": len(calls),
        "wall_s": wall,
        "start_up_s": first - start,
        "mean_call_latency_s": sum(c["latency_s"] for c in calls) / len(calls),
        "driver_cpu_s": cpu,
        "load_avg_1m": os.getloadavg()[0],
    }


def latency_bound(episodes: int, calls: int, latency: float) -> list[dict[str, Any]]:
    """The latency-bound batch on the local executor and on Ray (2 actors), side by side,
    against one loopback server in its own process (HTTP keep-alive, as model servers)."""
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
            "--keep-alive",
            "--event-loop",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert server.stdout is not None and server.stdin is not None
    url = f"http://127.0.0.1:{int(server.stdout.readline())}/v1"
    rows = []
    try:
        for executor in ("local", "ray"):
            out = subprocess.run(
                [sys.executable, __file__, "--latency-child", executor, str(episodes)],
                input=_latency_text(url, episodes, executor),
                capture_output=True,
                text=True,
                check=True,
                env={**os.environ, KEY_ENV: "bench-key-not-secret"},
            )
            rows.append(dict(json.loads(out.stdout.strip().splitlines()[-1])))
    finally:
        server.stdin.close()
        server.wait(timeout=30)
    bound = calls * latency
    for row in rows:
        batch = row["wall_s"] - row["start_up_s"]
        row.update(
            calls_per_episode=calls,
            latency_s=latency,
            bound_s=bound,
            ratio=row["wall_s"] / bound,
            batch_ratio=batch / bound,
            target=1.25,
        )
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", nargs=3, metavar=("EXECUTOR", "WORKERS", "CONCURRENCY"))
    parser.add_argument("--episodes", type=int, default=256)
    parser.add_argument("--calls", type=int, nargs="+", default=[4, 10])
    parser.add_argument("--latency", type=float, default=1.0)
    parser.add_argument("--latency-child", nargs=2, metavar=("EXECUTOR", "EPISODES"))
    args = parser.parse_args()
    if args.latency_child:
        row = latency_arm(args.latency_child[0], int(args.latency_child[1]), sys.stdin.read())
        print(json.dumps(row))
        return 0
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
    latency = [
        row for calls in args.calls for row in latency_bound(args.episodes, calls, args.latency)
    ]
    print("| arm | episodes | wall s | episodes/s | peak RSS MiB (driver) |")
    print("|---|---:|---:|---:|---:|")
    for r in rows:
        name = "local" if r["executor"] == "local" else f"ray × {r['workers']}"
        print(
            f"| {name} | {r['episodes']} | {r['wall_s']:.1f} | {r['episodes_per_s']:.1f} | "
            f"{r['peak_rss_mib']:.0f} |"
        )
    print(
        f"\nlatency-bound: {args.episodes} episodes × calls × {args.latency:g} s "
        "(bound: calls × latency; target ≤ 1.25×)\n"
    )
    print(
        "| executor | calls | episodes | wall s | × bound | start-up s | batch × bound | "
        "mean call s | driver CPU s |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in latency:
        print(
            f"| {r['executor']} | {r['calls_per_episode']} | {r['observed']}/{r['episodes']} | "
            f"{r['wall_s']:.2f} | {r['ratio']:.2f} | {r['start_up_s']:.2f} | "
            f"{r['batch_ratio']:.2f} | {r['mean_call_latency_s']:.2f} | {r['driver_cpu_s']:.2f} |"
        )
    RESULTS.write_text(
        json.dumps({"cpu_bound": rows, "latency_bound": latency}, indent=1) + "\n",
        encoding="utf-8",
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
