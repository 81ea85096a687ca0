"""P8 of ``benchmarks/run.py``: our scripted episode against a *fair* τ²-native loop.

P3's τ²-native loop rebuilds τ²'s database from a pickle and re-hashes all of it every
episode, which no careful τ² user does. The peer here is what one would write instead:

* τ²'s own environment (``tau2.domains.<d>.environment.get_environment(db=...)``) and its
  own tools, fed the task's gold actions through ``get_response``;
* the base database loaded once and reused: each episode gets a database whose top-level
  dicts are shallow copies of the base's, and an entity is deep-copied
  (``model_copy(deep=True)``) the first time a tool reads it by key (copy on access), so
  the pristine base is never mutated;
* the same final-state verdict as ours: the state hash of :mod:`sscbench.envs.state`
  (per-entity terms over the base's precomputed digests, re-hashing only the copied
  entities) compared with the gold final-state hash our grader uses.

The peer writes nothing. Our side is ``run_episode`` with ``scripted:gold`` and the scripted
user, writing the full ledger, hidden log and truth files and grading the live state.
Rounds alternate side and domain order, CPU time is the figure (the machine is shared);
one extra untimed round per side measures its peak Python allocation with ``tracemalloc``.
"""

from __future__ import annotations

import copy
import gc
import os
import resource
import shutil
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench_common import DOMAINS, gold_actions, median, perf, tau2_env_module, tau2_tool_call

from sscbench.envs import load_domain
from sscbench.envs.grading import gold_hashes
from sscbench.envs.state import _MOD, _base_digests, _combine, _term, entity_digest


class CopyOnAccess(dict[str, Any]):
    """A collection dict over the base's entities that deep-copies one on first access.

    τ²'s tools reach entities by key (``db.users[user_id]``) before reading or changing
    them, and add new ones by assignment; iteration (flight search, user lookup by name)
    only reads. ``touched`` is every key this episode copied or created.
    """

    __slots__ = ("touched",)

    def __init__(self, base: dict[str, Any]) -> None:
        super().__init__(base)
        self.touched: set[str] = set()

    def __getitem__(self, key: str) -> Any:
        if key in self.touched:
            return dict.__getitem__(self, key)
        entity = dict.__getitem__(self, key).model_copy(deep=True)
        dict.__setitem__(self, key, entity)
        self.touched.add(key)
        return entity

    def __setitem__(self, key: str, value: Any) -> None:
        self.touched.add(key)
        dict.__setitem__(self, key, value)


class FairPeer:
    """The fair τ²-native loop for one domain: base loaded once, copy on access."""

    def __init__(self, domain: str) -> None:
        self.domain = domain
        self.env_mod = tau2_env_module(domain)
        self.base = self.env_mod.get_environment().tools.db
        dom = load_domain(domain)
        self.collections = dom.collections
        self.digests = _base_digests(domain)
        self.golds = gold_hashes(domain)
        self.tasks = dom.tasks

    def calls(self) -> list[list[Any]]:
        """Fresh τ² tool calls for each task's gold actions (built outside the timing)."""
        return [
            [
                tau2_tool_call(f"g{i}", a.name, copy.deepcopy(a.arguments))
                for i, a in enumerate(gold_actions(task))
            ]
            for task in self.tasks
        ]

    def episode(self, task_id: str, calls: list[Any]) -> bool:
        """One episode: fresh copy-on-access DB, τ²'s env, gold replay, the verdict."""
        base = self.base
        db = type(base).model_construct(
            **{name: CopyOnAccess(getattr(base, name)) for name in self.collections}
        )
        env = self.env_mod.get_environment(db=db)
        for call in calls:
            env.get_response(call)
        sums = dict(self.digests.sums)
        for name in self.collections:
            coll = getattr(db, name)
            terms = self.digests.terms[name]
            total = sums[name]
            for key in coll.touched:
                if key in terms:
                    total -= terms[key]
                if dict.__contains__(coll, key):
                    total += _term(name, key, entity_digest(dict.__getitem__(coll, key)))
            sums[name] = total % _MOD
        return _combine(sums) == self.golds[task_id]

    def round(self) -> dict[str, Any]:
        """One pass over every task of the domain (call construction untimed)."""
        all_calls = self.calls()
        gc.collect()
        matches = 0
        c0, t0 = time.process_time(), perf()
        for task, calls in zip(self.tasks, all_calls, strict=True):
            matches += self.episode(task.id, calls)
        return {
            "wall": perf() - t0,
            "cpu": time.process_time() - c0,
            "successes": matches,
        }


def ours_round(domain: str, tasks: tuple[Any, ...], root: Path, tag: str) -> dict[str, Any]:
    """One pass of ``run_episode`` (``scripted:gold``, scripted user) over ``tasks``."""
    from sscbench.agents import make_agent
    from sscbench.runs.episode import EpisodeSpec, run_episode
    from sscbench.runs.layout import run_id_for
    from sscbench.users import make_user

    out = root / tag
    out.mkdir(parents=True)
    successes = 0
    gc.collect()
    c0, t0 = time.process_time(), perf()
    for task in tasks:
        run_id = run_id_for(domain, task.id, "scripted:gold", 0)
        end = run_episode(
            EpisodeSpec(domain=domain, task_id=task.id),
            make_agent("scripted:gold"),
            make_user("scripted"),
            out / run_id,
            run_id=run_id,
        )
        successes += bool(end.success)
    wall, cpu = perf() - t0, time.process_time() - c0
    written = sum(f.stat().st_size for f in out.rglob("*") if f.is_file())
    shutil.rmtree(out)
    return {"wall": wall, "cpu": cpu, "successes": successes, "bytes_written": written}


def traced_peak(fn: Callable[[], Any]) -> float:
    """Peak MiB of Python allocations while ``fn`` runs (an untimed round)."""
    gc.collect()
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def fs_probe(root: Path, n: int = 200) -> float:
    """CPU ms to make a directory and write three small files in it, under ``root``.

    Our episodes write a run directory with a ledger, a hidden log and a truth file; on
    some file systems (this machine's ``/tmp``) that alone costs more than a whole peer
    episode, so the figure says what the scratch directory costs.
    """
    probe = Path(tempfile.mkdtemp(prefix="probe-", dir=root))
    c0 = time.process_time()
    for i in range(n):
        d = probe / str(i)
        d.mkdir()
        for name in ("ledger.jsonl", "hidden.jsonl", "truth.jsonl"):
            with open(d / name, "w", encoding="utf-8") as fh:
                fh.write("x" * 400)
    cpu = time.process_time() - c0
    shutil.rmtree(probe)
    return cpu / n * 1e3


def file_system(path: Path) -> dict[str, str]:
    """The mount a path lives on and its type (``tmpfs`` is memory; anything else is taken
    for a disk), from ``/proc/mounts``: creating a run's files costs about ten times more
    on this machine's disk than on tmpfs, so every P8 figure says which it was."""
    target = str(path.resolve())
    best = ("", "unknown", "unknown")
    try:
        mounts = Path("/proc/mounts").read_text().splitlines()
    except OSError:
        mounts = []
    for line in mounts:
        parts = line.split()
        if len(parts) < 3:
            continue
        point = parts[1].replace("\\040", " ")
        inside = target == point or target.startswith(point.rstrip("/") + "/")
        if inside and len(point) >= len(best[0]):
            best = (point, parts[2], parts[0])
    kind = "tmpfs (memory)" if best[1] in ("tmpfs", "ramfs") else f"{best[1]} (disk)"
    return {"mount": best[0], "fs_type": best[1], "device": best[2], "kind": kind}


def summarize(runs: list[dict[str, Any]], n: int) -> dict[str, Any]:
    """Median episodes per CPU-second (and wall) over rounds."""
    cpu = [n / r["cpu"] for r in runs]
    wall = [n / r["wall"] for r in runs]
    return {
        "episodes_per_round": n,
        "rounds": len(runs),
        "eps_cpu": median(cpu),
        "eps": median(wall),
        "cpu_ms_per_episode": 1e3 / median(cpu),
        "eps_cpu_rounds": cpu,
        "successes": [r["successes"] for r in runs],
    }


def run_p8(rounds: int, scratch: Path | None) -> dict[str, Any]:
    """P8: per domain, ``scripted:gold`` episodes vs the fair τ²-native loop, interleaved."""
    peers = {d: FairPeer(d) for d in DOMAINS}
    base = Path(tempfile.mkdtemp(prefix="sscbench-p8-", dir=scratch))
    result: dict[str, Any] = {
        "scratch_dir": str(base.parent),
        "scratch_fs": file_system(base),
        "fs_probe_cpu_ms_per_run_dir": fs_probe(base),
    }
    fs = result["scratch_fs"]
    print(f"[bench] P8 run directories under {base.parent}: {fs['kind']}", file=sys.stderr)
    try:
        for d in DOMAINS:  # cold pass: plan compilation, digests, caches
            ours_round(d, peers[d].tasks, base, f"cold-{d}")
            peers[d].round()
        ours_runs: dict[str, list[dict[str, Any]]] = {d: [] for d in DOMAINS}
        peer_runs: dict[str, list[dict[str, Any]]] = {d: [] for d in DOMAINS}
        for r in range(rounds):
            for d in DOMAINS if r % 2 == 0 else tuple(reversed(DOMAINS)):
                if r % 2 == 0:
                    ours_runs[d].append(ours_round(d, peers[d].tasks, base, f"r{r}-{d}"))
                    peer_runs[d].append(peers[d].round())
                else:
                    peer_runs[d].append(peers[d].round())
                    ours_runs[d].append(ours_round(d, peers[d].tasks, base, f"r{r}-{d}"))
        for d in DOMAINS:
            n = len(peers[d].tasks)
            ours = summarize(ours_runs[d], n)
            ours["bytes_written_per_episode"] = ours_runs[d][0]["bytes_written"] / n
            peer = summarize(peer_runs[d], n)
            ours["peak_traced_mib"] = traced_peak(
                lambda d=d: ours_round(d, peers[d].tasks, base, f"trace-{d}")
            )
            peer["peak_traced_mib"] = traced_peak(peers[d].round)
            ratios = [
                (n / o["cpu"]) / (n / p["cpu"])
                for o, p in zip(ours_runs[d], peer_runs[d], strict=True)
            ]
            result[d] = {
                "ours": ours,
                "peer": peer,
                "ratio_cpu": ours["eps_cpu"] / peer["eps_cpu"],
                "ratio_cpu_rounds": ratios,
            }
    finally:
        shutil.rmtree(base, ignore_errors=True)
    result["peak_rss_mib_process"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    result["pid"] = os.getpid()
    return result
