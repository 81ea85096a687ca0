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

Two more arms split our episode so the benchmark itself shows where the gap is:

* **engine**: our environment alone — the episode opened as ``run_episode`` opens it, each
  gold call through ``EpisodeEnvironment.execute`` (the agent's path), our grader on the
  live state. What the peer also does, in our code.
* **floor**: the engine plus the run directory exactly as ``run_episode`` lays it out (same
  names, bytes and system calls: ``mkdir``, each file opened unbuffered for append, one
  ``write`` per ledger line, each sidecar in one ``write``), the bytes taken from an untimed
  ``run_episode`` of the same task. No serialization is timed, so this is a lower bound for
  any implementation that keeps the record contract; if it is below the peer, ≥ 1.0× cannot
  be met while writing the run directory on that file system.

Before any timing the engine's and the floor's verdicts are checked against the peer's task by
task, and the floor's files against ``run_episode``'s byte for byte. Rounds alternate arm and
domain order, CPU time is the figure (the machine is shared); one extra untimed round per arm
measures its peak Python allocation with ``tracemalloc``.
"""

from __future__ import annotations

import copy
import gc
import json
import os
import resource
import shutil
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from bench_common import DOMAINS, gold_actions, median, perf, tau2_env_module, tau2_tool_call

from sscbench.envs import EpisodeEnvironment, ToolCall, load_domain
from sscbench.envs.grading import gold_hashes, grade
from sscbench.envs.state import _MOD, _base_digests, _combine, _term, entity_digest
from sscbench.records.client import CLIENT_FILE
from sscbench.records.device import DEVICE_FILE
from sscbench.runs.episode import HIDDEN_FILE, LEDGER_FILE, PROVIDER_CALLS_FILE, TRUTH_FILE

ARMS = ("ours", "floor", "engine", "peer")
"""Timed in this order in even rounds and in reverse in odd ones."""

SIDECARS = (HIDDEN_FILE, TRUTH_FILE, CLIENT_FILE, PROVIDER_CALLS_FILE, DEVICE_FILE)
"""The files ``run_episode`` writes besides the ledger, in the order it writes them."""


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


@dataclass(frozen=True)
class Replay:
    """One task's episode as an untimed ``run_episode`` left it: what the engine and floor
    arms replay without an agent, a user or any serialization."""

    task_id: str
    run_id: str
    calls: tuple[tuple[int, str, str, dict[str, Any]], ...]
    """The gold calls as executed: the step ``run_episode`` passed, call id, name, arguments."""
    texts: tuple[str, ...]
    """The agent's messages, which our grader reads."""
    lines: tuple[bytes, ...]
    """Every ledger line but ``run_end``, each with its newline."""
    line_calls: tuple[int, ...]
    """Per line, the call executed just before it is written (``-1``: none)."""
    end_line: bytes
    sidecars: tuple[tuple[str, bytes], ...]
    """The other files, in the order ``run_episode`` writes them."""
    success: bool

    def tool_calls(self) -> list[tuple[int, ToolCall]]:
        """Fresh calls for one round (built outside the timing, as the peer's are)."""
        return [
            (step, ToolCall(id=call_id, name=name, arguments=copy.deepcopy(arguments)))
            for step, call_id, name, arguments in self.calls
        ]


def prepare(domain: str, tasks: Sequence[Any], root: Path) -> dict[str, Replay]:
    """Run ``run_episode`` once per task (untimed) and keep its calls, texts and bytes.

    Fails loudly if the agent's calls are not the task's gold actions in order, or if the run
    directory holds a file the floor would not write."""
    from sscbench.agents import make_agent
    from sscbench.runs.episode import EpisodeSpec, run_episode
    from sscbench.runs.layout import run_id_for
    from sscbench.users import make_user

    replays: dict[str, Replay] = {}
    for task in tasks:
        run_id = run_id_for(domain, task.id, "scripted:gold", 0)
        run_dir = root / run_id
        end = run_episode(
            EpisodeSpec(domain=domain, task_id=task.id),
            make_agent("scripted:gold"),
            make_user("scripted"),
            run_dir,
            run_id=run_id,
        )
        raw = (run_dir / LEDGER_FILE).read_bytes()
        lines = [line + b"\n" for line in raw.split(b"\n")[:-1]]
        assert b"".join(lines) == raw, f"{run_id}: ledger does not end with a newline"
        records = [json.loads(line) for line in lines]
        assert records[-1]["kind"] == "run_end", f"{run_id}: last line is not run_end"
        issued = {r["call_id"]: r for r in records if r["kind"] == "tool_call"}
        gold = gold_actions(task)
        assert [(r["name"], r["arguments"]) for r in issued.values()] == [
            (a.name, a.arguments) for a in gold
        ], f"{run_id}: scripted:gold did not issue the gold actions in order"
        by_id = dict(zip(issued, gold, strict=True))
        calls: list[tuple[int, str, str, dict[str, Any]]] = []
        line_calls = []
        for record in records[:-1]:
            if record["kind"] == "tool_observation":
                action = by_id[record["call_id"]]
                line_calls.append(len(calls))
                calls.append((record["step"], record["call_id"], action.name, action.arguments))
            else:
                line_calls.append(-1)
        names = {f.name for f in run_dir.iterdir()} - {LEDGER_FILE}
        assert names <= set(SIDECARS), f"{run_id}: unknown run files {names - set(SIDECARS)}"
        replays[task.id] = Replay(
            task_id=task.id,
            run_id=run_id,
            calls=tuple(calls),
            texts=tuple(r["content"] for r in records if r["kind"] == "agent_message"),
            lines=tuple(lines[:-1]),
            line_calls=tuple(line_calls),
            end_line=lines[-1],
            sidecars=tuple((n, (run_dir / n).read_bytes()) for n in SIDECARS if n in names),
            success=bool(end.success),
        )
    return replays


def engine_episode(domain: str, rep: Replay, calls: list[tuple[int, ToolCall]]) -> bool:
    """Our environment alone: open as ``run_episode`` does, execute, grade the live state."""
    task = load_domain(domain).task(rep.task_id)
    env = EpisodeEnvironment.open(domain, task, None)
    for step, call in calls:
        env.execute(call, step=step)
    return grade(env, task, rep.texts).success


def floor_episode(domain: str, rep: Replay, calls: list[tuple[int, ToolCall]], out: Path) -> bool:
    """The engine plus ``run_episode``'s run directory from ready-made bytes, with its
    system calls in its order: ``mkdir``; the ledger opened unbuffered for append (``open``
    and ``tell`` as ``JsonlWriter`` does), one ``write`` per line, each call executed before
    its observation line; grading; each sidecar opened and written in one call; then
    ``run_end``."""
    task = load_domain(domain).task(rep.task_id)
    env = EpisodeEnvironment.open(domain, task, None)
    run_dir = out / rep.run_id
    run_dir.mkdir(parents=True, exist_ok=False)
    with open(run_dir / LEDGER_FILE, "ab", buffering=0) as ledger:
        ledger.tell()
        for line, k in zip(rep.lines, rep.line_calls, strict=True):
            if k >= 0:
                step, call = calls[k]
                env.execute(call, step=step)
            ledger.write(line)
        success = grade(env, task, rep.texts).success
        for name, data in rep.sidecars:
            with open(run_dir / name, "ab", buffering=0) as fh:
                fh.tell()
                if data:  # JsonlWriter writes nothing for no records (the file still exists)
                    fh.write(data)
        ledger.write(rep.end_line)
    return success


def arm_round(
    domain: str, replays: dict[str, Replay], root: Path | None, tag: str
) -> dict[str, Any]:
    """One pass of the engine arm (``root`` is ``None``) or the floor arm over every task;
    calls built, run directories made and deleted outside the timing."""
    reps = list(replays.values())
    all_calls = [rep.tool_calls() for rep in reps]
    out = None if root is None else root / tag
    if out is not None:
        out.mkdir(parents=True)
    successes = 0
    gc.collect()
    c0, t0 = time.process_time(), perf()
    if out is None:
        for rep, calls in zip(reps, all_calls, strict=True):
            successes += engine_episode(domain, rep, calls)
    else:
        for rep, calls in zip(reps, all_calls, strict=True):
            successes += floor_episode(domain, rep, calls, out)
    wall, cpu = perf() - t0, time.process_time() - c0
    written = 0
    if out is not None:
        written = sum(f.stat().st_size for f in out.rglob("*") if f.is_file())
        shutil.rmtree(out)
    return {"wall": wall, "cpu": cpu, "successes": successes, "bytes_written": written}


def check_arms(domain: str, peer: FairPeer, replays: dict[str, Replay], root: Path) -> None:
    """Untimed: the engine and floor reach the peer's verdict on every task, and the floor's
    run directories hold exactly the files ``run_episode`` wrote, byte for byte."""
    prep, out = root / f"prep-{domain}", root / f"check-{domain}"
    out.mkdir(parents=True)
    for task, calls in zip(peer.tasks, peer.calls(), strict=True):
        rep = replays[task.id]
        verdicts = {
            "run_episode": rep.success,
            "peer": peer.episode(task.id, calls),
            "engine": engine_episode(domain, rep, rep.tool_calls()),
            "floor": floor_episode(domain, rep, rep.tool_calls(), out),
        }
        assert len(set(verdicts.values())) == 1, f"{domain} task {task.id}: {verdicts}"
        ours_dir, floor_dir = prep / rep.run_id, out / rep.run_id
        names = sorted(f.name for f in ours_dir.iterdir())
        assert names == sorted(f.name for f in floor_dir.iterdir()), f"{rep.run_id}: files"
        for name in names:
            same = (ours_dir / name).read_bytes() == (floor_dir / name).read_bytes()
            assert same, f"{rep.run_id}/{name}: floor bytes differ from run_episode's"
    shutil.rmtree(out)


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


def decompose(row: dict[str, Any]) -> dict[str, Any]:
    """CPU ms per episode of each part (from the arms' medians, so the parts add up) and the
    verdict they imply, computed rather than written down."""
    ms = {arm: row[arm]["cpu_ms_per_episode"] for arm in ARMS}
    parts = {
        "peer_ms": ms["peer"],
        "engine_ms": ms["engine"],
        "files_ms": ms["floor"] - ms["engine"],
        "records_agent_ms": ms["ours"] - ms["floor"],
        "ours_ms": ms["ours"],
        "floor_ms": ms["floor"],
    }
    floor_ratio = row["ratio_cpu_floor"]
    if floor_ratio < 1.0:
        text = (
            f"the floor (engine + run directory, no serialization) is {floor_ratio:.2f}× the "
            "peer: ≥ 1.0× cannot be met while writing the full run directory on this scratch "
            "file system"
        )
    else:
        budget = ms["peer"] - ms["floor"]
        text = (
            f"the floor is {floor_ratio:.2f}× the peer, so the gap is the agent, the user and "
            f"record serialization: {parts['records_agent_ms']:.3f} ms per episode now, which "
            f"would have to shrink to {budget:.3f} ms (by {ms['ours'] - ms['peer']:.3f} ms)"
        )
    return {
        "cpu_ms_per_episode": parts,
        "floor_meets_peer": floor_ratio >= 1.0,
        "floor_below_peer_rounds": sum(r < 1.0 for r in row["ratio_cpu_floor_rounds"]),
        "verdict": text,
    }


def run_p8(rounds: int, scratch: Path | None) -> dict[str, Any]:
    """P8: per domain, ``scripted:gold`` episodes, our engine alone, the engine with the run
    directory, and the fair τ²-native loop, interleaved round by round."""
    peers = {d: FairPeer(d) for d in DOMAINS}
    if scratch is not None:
        scratch.mkdir(parents=True, exist_ok=True)  # a fresh tmpfs path is fine to name
    base = Path(tempfile.mkdtemp(prefix="sscbench-p8-", dir=scratch))
    result: dict[str, Any] = {
        "scratch_dir": str(base.parent),
        "scratch_fs": file_system(base),
        "fs_probe_cpu_ms_per_run_dir": fs_probe(base),
    }
    fs = result["scratch_fs"]
    print(f"[bench] P8 run directories under {base.parent}: {fs['kind']}", file=sys.stderr)
    try:
        replays: dict[str, dict[str, Replay]] = {}
        for d in DOMAINS:  # untimed: the bytes and calls to replay, then the checks
            replays[d] = prepare(d, peers[d].tasks, base / f"prep-{d}")
            check_arms(d, peers[d], replays[d], base)
            shutil.rmtree(base / f"prep-{d}")

        def one(arm: str, d: str, tag: str) -> dict[str, Any]:
            if arm == "ours":
                return ours_round(d, peers[d].tasks, base, tag)
            if arm == "floor":
                return arm_round(d, replays[d], base, tag)
            if arm == "engine":
                return arm_round(d, replays[d], None, tag)
            return peers[d].round()

        for d in DOMAINS:  # cold pass: plan compilation, digests, caches
            for arm in ARMS:
                one(arm, d, f"cold-{arm}-{d}")
        runs: dict[str, dict[str, list[dict[str, Any]]]] = {
            d: {arm: [] for arm in ARMS} for d in DOMAINS
        }
        for r in range(rounds):
            flip = r % 2 == 1
            for d in tuple(reversed(DOMAINS)) if flip else DOMAINS:
                for arm in tuple(reversed(ARMS)) if flip else ARMS:
                    runs[d][arm].append(one(arm, d, f"r{r}-{arm}-{d}"))
        for d in DOMAINS:
            n = len(peers[d].tasks)
            row: dict[str, Any] = {arm: summarize(runs[d][arm], n) for arm in ARMS}
            for arm in ("ours", "floor"):
                row[arm]["bytes_written_per_episode"] = runs[d][arm][0]["bytes_written"] / n
            for arm in ARMS:
                row[arm]["peak_traced_mib"] = traced_peak(partial(one, arm, d, f"trace-{arm}-{d}"))
            for arm in ("ours", "floor", "engine"):
                key = "ratio_cpu" if arm == "ours" else f"ratio_cpu_{arm}"
                row[key] = row[arm]["eps_cpu"] / row["peer"]["eps_cpu"]
                row[f"{key}_rounds"] = [
                    p["cpu"] / o["cpu"] for o, p in zip(runs[d][arm], runs[d]["peer"], strict=True)
                ]
            row["decomposition"] = decompose(row)
            result[d] = row
    finally:
        shutil.rmtree(base, ignore_errors=True)
    result["arms_order"] = list(ARMS)
    result["peak_rss_mib_process"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    result["pid"] = os.getpid()
    return result


ARM_LABELS = {
    "ours": "sscbench `scripted:gold` (`run_episode`: agent, user, records, files, grading)",
    "floor": "floor: engine + run directory (ready-made bytes, same system calls)",
    "engine": "engine: our environment, gold calls through `execute`, our grader",
    "peer": "fair τ²-native (copy on access)",
}


def p8_arms_lines(p8: dict[str, Any]) -> list[str]:
    """Markdown: the four arms per domain, the decomposition and the computed verdict."""
    lines = [
        "### P8 decomposed: the four arms (CPU time, the same interleaved rounds)",
        "",
        "| Domain | arm | episodes/CPU-s | CPU ms/episode | verdict matches | "
        "peak traced MiB | ratio to peer | rounds below peer |",
        "|---|---|---:|---:|---|---:|---:|---:|",
    ]
    for d in DOMAINS:
        row = p8[d]
        if "floor" not in row:
            return []  # a result written before the decomposition
        for arm in ARMS:
            s = row[arm]
            key = "ratio_cpu" if arm == "ours" else f"ratio_cpu_{arm}"
            ratio = row.get(key, 1.0)
            below = ""
            if arm != "peer":
                below = f"{sum(r < 1.0 for r in row[f'{key}_rounds'])}/{s['rounds']}"
            lines.append(
                f"| {d} | {ARM_LABELS[arm]} | {s['eps_cpu']:,.1f} | "
                f"{s['cpu_ms_per_episode']:.3f} | "
                f"{min(s['successes'])}/{s['episodes_per_round']} | "
                f"{s['peak_traced_mib']:.1f} | {ratio:.2f}× | {below} |"
            )
    lines += [
        "",
        "| Domain | peer ms | engine ms | files ms (floor − engine) | agent, user, records ms "
        "(ours − floor) | ours ms | floor / peer | verdict |",
        "|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for d in DOMAINS:
        dec = p8[d]["decomposition"]
        c = dec["cpu_ms_per_episode"]
        lines.append(
            f"| {d} | {c['peer_ms']:.3f} | {c['engine_ms']:.3f} | {c['files_ms']:.3f} | "
            f"{c['records_agent_ms']:.3f} | {c['ours_ms']:.3f} | "
            f"{p8[d]['ratio_cpu_floor']:.2f}× | {dec['verdict']} |"
        )
    fs = p8.get("scratch_fs", {})
    lines += [
        "",
        f"Scratch: `{p8['scratch_dir']}` on {fs.get('kind', 'an unknown file system')} "
        f"(mount `{fs.get('mount', '?')}`).",
    ]
    return lines
