"""P1 of ``benchmarks/run.py``: the cost of one tool call, ours vs raw τ².

Every gold action of every airline and retail task is replayed on a fresh
``EpisodeEnvironment`` (``execute``, no intervention) and on a fresh raw τ² environment
(``get_response``), the two calls interleaved one by one with the order flipping every
call, so that machine drift hits both sides alike. Only the calls are timed; both
environments are built untimed, and each raw τ² environment is frozen out of the GC as
``load_domain`` freezes the sscbench base. The observations are compared byte for byte.

This is the adapter's per-call overhead, the figure the ≤ 1.10× target is set on. Extra
*split* rounds time each write's copy-on-write copies apart from the rest of ``execute``,
because the copies are the part of a write that τ² does not pay.
"""

from __future__ import annotations

import copy
import gc
import pickle
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from bench_common import (
    DOMAINS,
    KINDS,
    Config,
    gold_actions,
    median,
    perf,
    refreeze,
    tau2_env_module,
    tau2_tool_call,
)

from sscbench.envs import EpisodeEnvironment, load_domain, tool_kinds
from sscbench.envs import ToolCall as OurToolCall
from sscbench.envs.footprint import write_footprint


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


P1_ROWS = (
    *KINDS,
    "airline",
    "retail",
    "all",
    *(f"{d}_{k}" for d in DOMAINS for k in ("read", "write")),
)
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
        if kind != "generic":
            accs[f"{domain}_{kind}"].add(t_ours, t_raw)
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
