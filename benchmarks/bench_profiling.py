"""cProfile runs of ``benchmarks/run.py`` (``--profile``, or any missed target in a full run).

Timings say whether a target is met; profiles say where the time goes when it is not.
Three samples are profiled: ``EpisodeEnvironment.execute`` on every gold write (the P1
row closest to its target), one P3 round of each scripted variant, and a sample of the
τ²-native loop. Each is reduced to the top functions by own time plus the cumulative time
of a fixed list of key calls per section (copy-on-write, hashing, ledger writes, …), so
that runs can be compared line by line.
"""

from __future__ import annotations

import copy
import cProfile
import pstats
import sysconfig
import tempfile
from pathlib import Path
from typing import Any

from bench_common import DOMAINS, HERE, gold_actions, tau2_env_module
from bench_episodes import native_calls, native_episode, ours_round

from sscbench.envs import EpisodeEnvironment, load_domain, tool_kinds
from sscbench.envs import ToolCall as OurToolCall

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
        ("sscbench/records/ledger.py", "append"),
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
