"""P2 and P3 of ``benchmarks/run.py``: what one episode costs, ours vs τ².

* **P2**, fresh per-episode state: ``EpisodeEnvironment.open`` against the three τ² ways
  to get a fresh database (``get_environment()`` from file, the constructor fed
  ``pickle.loads``, ``db.model_copy(deep=True)``). ``load_domain`` freezes the GC, so
  the τ² baselines are measured twice: first with the default GC, before sscbench loads
  anything, then after ``load_domain`` has frozen the base databases.
* **P3**, offline episodes per second per core: ``run_episode`` with ``scripted:gold`` and
  ``scripted:careful`` and the scripted user (ledger writing and grading included)
  against a τ²-native loop (env from pickle, gold actions through ``get_response``,
  ``get_db_hash``). The native loop runs in blocks between whole sscbench rounds so that
  machine drift hits both sides alike; rates are given in wall and CPU time.

Together they show whether an episode's own bookkeeping, not only its tool calls, stays
cheap enough for large offline experiments.
"""

from __future__ import annotations

import copy
import gc
import pickle
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from bench_common import (
    DOMAINS,
    Config,
    gold_actions,
    median,
    perf,
    refreeze,
    tau2_env_module,
    tau2_tool_call,
)

from sscbench.envs import EpisodeEnvironment, load_domain


# --------------------------------------------------------------------------- P2
@dataclass
class P2Result:
    """Median milliseconds per operation, per domain."""

    load_domain_ms: dict[str, float] = field(default_factory=dict)
    ours_open_ms: dict[str, float] = field(default_factory=dict)
    tau2_default_gc: dict[str, dict[str, float]] = field(default_factory=dict)
    tau2_base_frozen: dict[str, dict[str, float]] = field(default_factory=dict)


def time_ms(fn: Callable[[], Any], reps: int, *, collect: bool = True) -> list[float]:
    """Milliseconds per call of ``fn`` over ``reps`` runs (one untimed warm-up first).

    With ``collect`` the garbage of the previous run is collected (untimed) so every run
    starts from the same GC state; the GC stays enabled while ``fn`` runs.
    """
    result = fn()
    del result
    out: list[float] = []
    for _ in range(reps):
        if collect:
            gc.collect()
        t0 = perf()
        result = fn()
        t1 = perf()
        del result
        out.append((t1 - t0) * 1e3)
    return out


def tau2_provisioning(env_mod: ModuleType, blob: bytes, db: Any, reps: int) -> dict[str, float]:
    """Median ms of the three τ² ways to get fresh per-episode state."""
    return {
        "get_environment_file": median(time_ms(env_mod.get_environment, reps)),
        "ctor_pickle": median(
            time_ms(lambda: env_mod.get_environment(db=pickle.loads(blob)), reps)
        ),
        "model_copy_deep": median(time_ms(lambda: db.model_copy(deep=True), reps)),
    }


def opener(domain: str) -> Callable[[], EpisodeEnvironment]:
    """``EpisodeEnvironment.open(domain)`` as a no-argument callable."""

    def open_episode() -> EpisodeEnvironment:
        return EpisodeEnvironment.open(domain)

    return open_episode


def run_p2(cfg: Config) -> tuple[dict[str, Any], dict[str, bytes]]:
    """P2: median ms of fresh per-episode state, ours vs τ², and the pickled τ² databases.

    Must run first in the process: the τ² default-GC baselines are taken before sscbench
    loads (and freezes) anything. Returns the P2 figures and each domain's pickled τ²
    database, which P1 and P3 build their raw environments from.
    """
    # P2 part 1: τ² baselines with default GC, before sscbench loads (and freezes) anything.
    p2 = P2Result()
    blobs: dict[str, bytes] = {}
    dbs: dict[str, Any] = {}
    for d in DOMAINS:
        env_mod = tau2_env_module(d)
        dbs[d] = env_mod.get_environment().tools.db
        blobs[d] = pickle.dumps(dbs[d])
        assert gc.get_freeze_count() == 0, "something froze the GC before the default-GC runs"
        p2.tau2_default_gc[d] = tau2_provisioning(env_mod, blobs[d], dbs[d], cfg.p2_reps)
        print(f"[bench] P2 τ² default GC {d}: {p2.tau2_default_gc[d]}", file=sys.stderr)
    # P2 part 2: sscbench (load once, then open per episode), and τ² again in this state.
    gc.collect()
    for d in DOMAINS:
        t0 = perf()
        load_domain(d)
        p2.load_domain_ms[d] = (perf() - t0) * 1e3
    for d in DOMAINS:
        EpisodeEnvironment.open(d)  # warm the tool-kind cache
        p2.ours_open_ms[d] = median(time_ms(opener(d), cfg.p2_open_reps, collect=False))
        p2.tau2_base_frozen[d] = tau2_provisioning(
            tau2_env_module(d), blobs[d], dbs[d], cfg.p2_reps
        )
    del dbs
    refreeze()
    return p2.__dict__, blobs


# --------------------------------------------------------------------------- P3
def ours_round(variant: str, tasks: tuple[Any, ...], root: Path, tag: str) -> dict[str, Any]:
    """One pass of ``run_episode`` over ``tasks`` (agent/user construction included)."""
    from sscbench.agents import make_agent
    from sscbench.runs.episode import EpisodeSpec, run_episode
    from sscbench.runs.layout import run_id_for
    from sscbench.users import make_user

    agent_name = f"scripted:{variant}"
    out = root / tag
    out.mkdir(parents=True)
    successes = 0
    steps = 0
    c0, t0 = time.process_time(), perf()
    for task in tasks:
        run_id = run_id_for("airline", task.id, agent_name, 0)
        end = run_episode(
            EpisodeSpec(domain="airline", task_id=task.id),
            make_agent(agent_name),
            make_user("scripted"),
            out / run_id,
            run_id=run_id,
        )
        successes += bool(end.success)
        steps += end.steps
    wall, cpu = perf() - t0, time.process_time() - c0
    shutil.rmtree(out)
    return {"wall": wall, "cpu": cpu, "successes": successes, "steps": steps}


def native_episode(env_mod: ModuleType, blob: bytes, calls: list[Any]) -> str:
    """The τ²-native offline episode: env from pickle, gold replay, DB hash."""
    env = env_mod.get_environment(db=pickle.loads(blob))
    for call in calls:
        env.get_response(call)
    digest: str = env.get_db_hash()
    return digest


def native_calls(tasks: tuple[Any, ...]) -> list[list[Any]]:
    """Fresh τ² tool calls for each task's gold actions."""
    return [
        [
            tau2_tool_call(f"g{i}", a.name, copy.deepcopy(a.arguments))
            for i, a in enumerate(gold_actions(task))
        ]
        for task in tasks
    ]


def native_round(
    env_mod: ModuleType, blob: bytes, tasks: tuple[Any, ...], hashes: dict[str, str]
) -> dict[str, Any]:
    """One pass of the τ²-native loop; checks every hash equals the warm-up's."""
    calls = native_calls(tasks)
    gc.collect()
    digests: list[str] = []
    c0, t0 = time.process_time(), perf()
    for task_calls in calls:
        digests.append(native_episode(env_mod, blob, task_calls))
    wall, cpu = perf() - t0, time.process_time() - c0
    unstable = 0
    for task, digest in zip(tasks, digests, strict=True):
        unstable += hashes.setdefault(task.id, digest) != digest
    return {"wall": wall, "cpu": cpu, "unstable_hashes": unstable}


def summarize_loop(runs: list[dict[str, Any]], n_tasks: int) -> dict[str, Any]:
    """Median episodes/s (wall and CPU) over rounds, and the best round (CPU)."""
    eps = [n_tasks / r["wall"] for r in runs]
    eps_cpu = [n_tasks / r["cpu"] for r in runs]
    return {
        "episodes_per_round": n_tasks,
        "rounds": len(runs),
        "eps": median(eps),
        "eps_cpu": median(eps_cpu),
        "eps_cpu_best": max(eps_cpu),
        "cpu_ms_per_episode": 1e3 / median(eps_cpu),
        "eps_rounds": eps,
        "eps_cpu_rounds": eps_cpu,
    }


def run_p3(cfg: Config, blob: bytes) -> dict[str, Any]:
    """P3: episodes per second per core, ours (gold, careful) vs the τ²-native loop.

    To keep machine drift out of the ratio, the native loop runs in blocks of
    ``p3_native_block`` tasks, and a full ours round of each variant (all tasks, order
    alternating) runs before each block: ours gets one round per block.
    """
    env_mod = tau2_env_module("airline")
    tasks = load_domain("airline").tasks
    native_tasks = tasks[:: cfg.p3_native_stride]
    blocks = [
        native_tasks[i : i + cfg.p3_native_block]
        for i in range(0, len(native_tasks), cfg.p3_native_block)
    ]
    hashes: dict[str, str] = {}
    variants = ("gold", "careful")
    result: dict[str, Any] = {"tasks": len(tasks), "native_tasks": len(native_tasks)}
    with tempfile.TemporaryDirectory(prefix="sscbench-bench-") as tmp:
        root = Path(tmp)
        cold = {v: ours_round(v, tasks, root, f"cold-{v}") for v in variants}
        result["cold_first_pass"] = {
            v: {"eps": len(tasks) / c["wall"], "successes": c["successes"]} for v, c in cold.items()
        }
        native_round(env_mod, blob, native_tasks[:2], hashes)  # warm-up
        ours_runs: dict[str, list[dict[str, Any]]] = {v: [] for v in variants}
        native_runs: list[dict[str, Any]] = []
        n = 0
        for _ in range(cfg.p3_native_rounds):
            total = {"wall": 0.0, "cpu": 0.0, "unstable_hashes": 0}
            for block in blocks:
                for v in variants if n % 2 == 0 else tuple(reversed(variants)):
                    ours_runs[v].append(ours_round(v, tasks, root, f"r{n}-{v}"))
                n += 1
                part = native_round(env_mod, blob, block, hashes)
                for key in total:
                    total[key] += part[key]
            native_runs.append(total)
        native = summarize_loop(native_runs, len(native_tasks))
        native["unstable_hashes"] = sum(r["unstable_hashes"] for r in native_runs)
        native["gc"] = "default (enabled; sscbench base frozen in this process)"
        result["native"] = native
        if cfg.p3_native_nogc:
            gc.disable()
            try:
                nogc = native_round(env_mod, blob, native_tasks, hashes)
            finally:
                gc.enable()
                gc.collect()
            result["native_gc_disabled"] = summarize_loop([nogc], len(native_tasks))
        for v in variants:
            summary = summarize_loop(ours_runs[v], len(tasks))
            summary["successes"] = [r["successes"] for r in ours_runs[v]]
            summary["mean_steps"] = ours_runs[v][0]["steps"] / len(tasks)
            summary["speedup_vs_native"] = summary["eps"] / native["eps"]
            summary["speedup_vs_native_cpu"] = summary["eps_cpu"] / native["eps_cpu"]
            result[v] = summary
    return result
