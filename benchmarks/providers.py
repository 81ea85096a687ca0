"""Provider-run benchmarks P6 and P7 (issue 5): concurrency against latency, cached replay.

* **P6** — 64 episodes at once (concurrency 64) against a loopback server
  (``tests/experiments/loopback.py``, in its own process so it does not share our GIL)
  that answers every model call after 1 s, for each wire format (OpenAI chat completions,
  Anthropic messages). Every episode makes exactly ``--calls`` (10) sequential model calls,
  so the latency bound of a batch is ``calls × 1 s``; the target is a wall time within
  1.25× of it. Two batches of distinct episodes run back to back: *cold* (SDK import and
  one SDK client per concurrent slot built inside the timed batch) and *warm* (clients
  reused from the engine's participant pool: the steady state of a long experiment).
  Each row also gives this process's CPU time: episodes share one GIL, so a batch cannot
  finish faster than its client CPU, whatever the concurrency.
* **P7** — the shipped case set's clean tasks × 3 seeds (147 episodes) run against a
  zero-latency server to fill a response cache; the server is then *stopped* and the same
  runs are executed again into a fresh directory from the cache alone. Target: 0 provider
  calls (any call would fail: nothing listens) and at least 20 episodes/s. The rate of a
  plain resume (every run already finished) is reported too.

Runs go through the experiment engine (``sscbench.experiments``): real schedules, ledgers
and provider-call records. Prints a markdown table and writes
``benchmarks/providers-results.json``. The dev box is shared: the 1-minute load average
after each P6 batch is recorded, since other processes take CPU from the client.

    .venv/bin/python benchmarks/providers.py       # ~1.5 min on the 2-core dev box
    .venv/bin/python benchmarks/providers.py --formats openai --calls 4 --skip-p7
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from sscbench.experiments import load_experiment, plan_runs, run_experiment

ROOT = Path(__file__).resolve().parents[1]
LOOPBACK = ROOT / "tests" / "experiments" / "loopback.py"
RESULTS = Path(__file__).with_name("providers-results.json")
KEY_ENV = "SSCBENCH_BENCH_KEY"


class Server:
    """The loopback server in a child process (it must not share our GIL)."""

    def __init__(self, responder: str, latency: float, calls: int = 4) -> None:
        self.proc = subprocess.Popen(
            [
                sys.executable,
                str(LOOPBACK),
                "--responder",
                responder,
                "--latency",
                str(latency),
                "--calls",
                str(calls),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None
        self.port = int(self.proc.stdout.readline())
        self.url = f"http://127.0.0.1:{self.port}/v1"

    def stop(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


def _experiment(
    tmp: Path,
    server: Server,
    cache: Path | None,
    *,
    agent: str,
    repetitions: int,
    concurrency: int,
) -> Path:
    url = server.url if agent == "openai" else server.url.removesuffix("/v1")
    cache_param = "" if cache is None else f', cache_dir = "{cache}"'

    path = tmp / f"exp-{time.monotonic_ns()}.toml"
    path.write_text(
        f"""
repetitions = {repetitions}
gate = "per_repetition"
concurrency = {concurrency}

[[configurations]]
id = "loopback"
agent = "{agent}"
params = {{ model = "fake-model", base_url = "{url}", api_key_env = "{KEY_ENV}", \
max_retries = 0, timeout = 60{cache_param} }}
""",
        encoding="utf-8",
    )
    return path


def _clean_runs(exp_path: Path) -> tuple[Any, list[Any]]:
    """Clean runs with distinct requests: one per (task, seed), whatever the step limit."""
    experiment = load_experiment(exp_path)
    runs, seen = [], set()
    for run in plan_runs(experiment):
        ident = (run.domain, run.task_id, run.key.seed)
        if run.condition == "clean" and ident not in seen:
            seen.add(ident)
            runs.append(run)
    return experiment, runs


def _batch(experiment: Any, runs: list[Any], out: Path) -> tuple[float, float, Any]:
    """(wall seconds, this process's CPU seconds, result) of one engine session."""
    start, cpu = time.perf_counter(), time.process_time()
    result = run_experiment(experiment, out, runs=runs)
    return time.perf_counter() - start, time.process_time() - cpu, result


def p6(tmp: Path, agent: str, episodes: int, calls: int, latency: float) -> dict[str, Any]:
    """Two batches of ``episodes`` distinct episodes: the first builds the SDK clients of
    the participant pool (cold), the second reuses them (steady state)."""
    server = Server("reads", latency, calls)
    try:
        exp_path = _experiment(tmp, server, None, agent=agent, repetitions=3, concurrency=episodes)
        experiment, runs = _clean_runs(exp_path)
        assert len(runs) >= 2 * episodes, "not enough distinct clean runs"
        cold_wall, cold_cpu, cold = _batch(experiment, runs[:episodes], tmp / f"p6-{agent}-cold")
        load_cold = os.getloadavg()[0]
        warm_wall, warm_cpu, warm = _batch(
            experiment, runs[episodes : 2 * episodes], tmp / f"p6-{agent}-warm"
        )
        load_warm = os.getloadavg()[0]
    finally:
        server.stop()
    bound = calls * latency
    out: dict[str, Any] = {
        "format": agent,
        "episodes": episodes,
        "concurrency": experiment.concurrency,
        "calls_per_episode": calls,
        "latency_s": latency,
        "bound_s": bound,
        "target_ratio": 1.25,
    }
    phases = (
        ("cold", cold_wall, cold_cpu, load_cold, cold),
        ("warm", warm_wall, warm_cpu, load_warm, warm),
    )
    for name, wall, cpu, load, result in phases:
        requests = sum(r.provider_calls for r in result.records)
        observed = sum(r.state == "observed" for r in result.records)
        out[name] = {
            "wall_s": wall,
            "ratio": wall / bound,
            "client_cpu_s": cpu,
            "client_cpu_ms_per_call": 1000 * cpu / (episodes * calls),
            "loadavg_1min_after": load,
            "provider_requests": requests,
            "observed": observed,
            "pass": observed == episodes and requests == episodes * calls and wall <= 1.25 * bound,
        }
    return out


def p7(tmp: Path, repetitions: int, concurrency: int) -> dict[str, Any]:
    cache = tmp / "p7-cache"
    server = Server("gold", 0.0)
    try:
        exp_path = _experiment(
            tmp, server, cache, agent="openai", repetitions=repetitions, concurrency=concurrency
        )
        experiment, runs = _clean_runs(exp_path)
        start = time.perf_counter()
        first = run_experiment(experiment, tmp / "p7-live", runs=runs)
        live_wall = time.perf_counter() - start
    finally:
        server.stop()  # from here on, any provider call fails: nothing listens
    start = time.perf_counter()
    replay = run_experiment(experiment, tmp / "p7-replay", runs=runs)
    replay_wall = time.perf_counter() - start
    start = time.perf_counter()
    resumed = run_experiment(experiment, tmp / "p7-replay", runs=runs)
    resume_wall = time.perf_counter() - start
    live_requests = sum(r.provider_calls for r in first.records)
    replay_requests = sum(r.provider_calls for r in replay.records)
    observed = sum(r.state == "observed" for r in replay.records)
    same = [(r.key, r.success, r.steps) for r in first.records] == [
        (r.key, r.success, r.steps) for r in replay.records
    ]
    rate = len(runs) / replay_wall
    return {
        "episodes": len(runs),
        "concurrency": concurrency,
        "live_provider_requests": live_requests,
        "live_wall_s": live_wall,
        "replay_provider_requests": replay_requests,
        "replay_observed": observed,
        "replay_same_outcomes": same,
        "replay_wall_s": replay_wall,
        "replay_episodes_per_s": rate,
        "resume_executed": resumed.executed,
        "resume_wall_s": resume_wall,
        "resume_runs_per_s": len(runs) / resume_wall,
        "target_episodes_per_s": 20,
        "pass": replay_requests == 0 and observed == len(runs) and same and rate >= 20,
    }


def table(p6s: list[dict[str, Any]], p7r: dict[str, Any]) -> str:
    rows = ["| benchmark | measured | target | pass |", "|---|---|---|---|"]
    for r in p6s:
        for phase in ("cold", "warm"):
            m = r[phase]
            rows.append(
                f"| P6 {r['format']} format, {phase} clients: {r['episodes']} concurrent "
                f"episodes × {r['calls_per_episode']} calls, {r['latency_s']:g} s latency "
                f"| {m['wall_s']:.2f} s wall, bound {r['bound_s']:.2f} s "
                f"(×{m['ratio']:.3f}); {m['provider_requests']} requests; client CPU "
                f"{m['client_cpu_s']:.1f} s ({m['client_cpu_ms_per_call']:.1f} ms/call); "
                f"load {m['loadavg_1min_after']:.1f} | ≤ ×1.25 "
                f"| {'yes' if m['pass'] else 'NO'} |"
            )
    rows += [
        f"| P7: cached re-run of {p7r['episodes']} episodes (server stopped) | "
        f"{p7r['replay_episodes_per_s']:.1f} episodes/s, {p7r['replay_provider_requests']} "
        f"provider calls (live run: {p7r['live_provider_requests']}) | ≥ 20/s, 0 calls | "
        f"{'yes' if p7r['pass'] else 'NO'} |",
        f"| P7 extra: resume of the finished directory | {p7r['resume_runs_per_s']:.0f} runs/s, "
        f"{p7r['resume_executed']} executed | — | — |",
    ]
    return "\n".join(rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--episodes", type=int, default=64)
    parser.add_argument("--calls", type=int, default=10, help="model calls per P6 episode")
    parser.add_argument("--latency", type=float, default=1.0)
    parser.add_argument(
        "--formats", default="openai,anthropic", help="P6 wire formats, comma-separated"
    )
    parser.add_argument("--repetitions", type=int, default=3, help="P7: clean runs × this")
    parser.add_argument("--concurrency", type=int, default=4, help="P7 concurrency")
    parser.add_argument("--skip-p7", action="store_true")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    os.environ[KEY_ENV] = "sk-bench-not-a-real-key"
    with tempfile.TemporaryDirectory(prefix="sscbench-p6p7-") as tmp:
        p6s = [
            p6(Path(tmp), fmt, args.episodes, args.calls, args.latency)
            for fmt in args.formats.split(",")
        ]
        p7r = p7(Path(tmp), args.repetitions, args.concurrency) if not args.skip_p7 else None
    if p7r is not None:
        print(table(p6s, p7r))
    else:
        print(json.dumps(p6s, indent=1))
    results = {"python": sys.version.split()[0], "cpus": os.cpu_count(), "P6": p6s, "P7": p7r}
    args.out.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    ok = all(r["warm"]["pass"] for r in p6s) and (p7r is None or p7r["pass"])
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
