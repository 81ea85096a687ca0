"""The heavy steps after a run set — labelling, the report's bootstrap — on the executor
that ran it.

Both are a pure function applied to many independent items (a run directory, a rate's
per-cluster counts), so they fan out as Ray tasks over chunks of items, in order, and the
driver puts the results back together in the same order: the output is the local path's,
byte for byte (tests compare the two). Each task reads its items itself, so on a
multi-machine cluster the run directories must be on storage every node sees (as for the
Ray executor).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from sscbench.errors import ConfigError

T = TypeVar("T")
R = TypeVar("R")

CHUNKS_PER_CPU = 4
"""Chunks per CPU of the cluster: enough to even out uneven items, few enough that a
task's overhead (a process hop, pickling) stays small beside its work."""


@contextmanager
def ray_session(address: str | None) -> Iterator[Any]:
    """Ray, connected (to ``address``, or a local cluster started here and stopped after;
    an already connected session is used as it is)."""
    try:
        import ray
    except ImportError:
        raise ConfigError(
            "--executor ray needs Ray: pip install 'sscbench[ray]' (or leave --executor out)"
        ) from None
    owns = not ray.is_initialized()
    if owns:
        ray.init(
            address=address,
            include_dashboard=False,
            logging_level=logging.ERROR,
            log_to_driver=False,
        )
    try:
        yield ray
    finally:
        if owns:
            ray.shutdown()


def fan_out(
    ray: Any, work: Callable[[list[T]], list[R]], items: Sequence[T], chunks: int | None = None
) -> list[R]:
    """``work`` over ``items`` as Ray tasks on chunks of consecutive items; results in
    item order (``work`` must be a module-level function: Ray imports it by name)."""
    if not items:
        return []
    if chunks is None:
        cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
        chunks = cpus * CHUNKS_PER_CPU
    size = max(1, math.ceil(len(items) / chunks))
    task = ray.remote(num_cpus=1, max_retries=3)(work)
    refs = [task.remote(list(items[i : i + size])) for i in range(0, len(items), size)]
    out: list[R] = []
    for part in ray.get(refs):
        out.extend(part)
    return out


def label_chunk(run_dirs: list[str]) -> list[tuple[str | None, str | None]]:
    """Label run directories (rules classifier): per run its labels as JSON, or the
    one-line problem that kept it from being labelled (as ``label_dir_or_skip``)."""
    from sscbench.reconstruct.label import label_run

    out: list[tuple[str | None, str | None]] = []
    for run_dir in run_dirs:
        try:
            out.append((label_run(Path(run_dir)).model_dump_json(), None))
        except ConfigError as exc:
            out.append((None, str(exc)))
    return out


def iter_labels_in_processes(root: Path, workers: int) -> Iterator[tuple[Path, Any, str | None]]:
    """:func:`~sscbench.reconstruct.label.label_dir_or_skip` over ``workers`` processes of
    this machine, on chunks of consecutive runs, yielded run by run in the serial order:
    (run directory, labels or ``None``, the one-line problem or ``None``). The parent
    re-reads each label from the JSON a worker wrote, as the labels file holds it, and
    holds at most the chunks not yet consumed. Workers are spawned, so each pays the
    imports once (about 0.7 s): worth it for large run sets."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    from sscbench.reconstruct.label import run_dirs
    from sscbench.reconstruct.labels import RunLabels

    paths = [str(p) for p in run_dirs(root)]
    size = max(1, math.ceil(len(paths) / (workers * CHUNKS_PER_CPU)))
    chunks = [paths[i : i + size] for i in range(0, len(paths), size)]
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        for chunk, part in zip(chunks, pool.map(label_chunk, chunks), strict=True):
            for path, (text, problem) in zip(chunk, part, strict=True):
                label = None if text is None else RunLabels.model_validate_json(text)
                yield Path(path), label, problem


def iter_labels_on_ray(root: Path, address: str | None) -> Iterator[tuple[Path, Any, str | None]]:
    """:func:`iter_labels_in_processes` with the runs labelled as Ray tasks."""
    from sscbench.reconstruct.label import run_dirs
    from sscbench.reconstruct.labels import RunLabels

    paths = [str(p) for p in run_dirs(root)]
    with ray_session(address) as ray:
        results = fan_out(ray, label_chunk, paths)
    for path, (text, problem) in zip(paths, results, strict=True):
        label = None if text is None else RunLabels.model_validate_json(text)
        yield Path(path), label, problem
