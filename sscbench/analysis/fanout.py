"""The report's bootstrap on Ray: every rate's interval computed as Ray tasks, the same
numbers as in this process.

The analysis runs once under a collecting :class:`~sscbench.analysis.intervals.BootstrapBook`
(cheap: intervals are placeholders), the distinct bootstrap jobs it asked for fan out in
chunks (:func:`~sscbench.experiments.fanout.fan_out`), and the analysis runs again with
every interval taken from the book. Each interval is a pure function of its job (seed,
data key, per-cluster counts, replicates, level), so the result equals the local path's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from sscbench.analysis.intervals import BOOK, BootstrapBook, bootstrap_jobs
from sscbench.experiments.fanout import fan_out, ray_session

T = TypeVar("T")


def with_bootstrap_on_ray(analyse: Callable[[], T], address: str | None) -> T:
    """``analyse()`` with its cluster-bootstrap intervals computed as Ray tasks."""
    book = BootstrapBook(collecting=True)
    token = BOOK.set(book)
    try:
        analyse()  # notes the jobs; its placeholder intervals are thrown away
    finally:
        BOOK.reset(token)
    jobs = list(book.wanted)
    with ray_session(address) as ray:
        intervals = fan_out(ray, bootstrap_jobs, jobs)
    filled = BootstrapBook(known=dict(zip(jobs, intervals, strict=True)))
    token = BOOK.set(filled)
    try:
        return analyse()
    finally:
        BOOK.reset(token)
