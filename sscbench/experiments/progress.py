"""The live progress display: runs observed / failed / missing, ETA and cost so far.

The ETA is computed from runs *executed* in this session only — runs found finished from
an earlier session complete instantly and would make a rate-based estimate meaningless.
Cost so far is the directory's spend (earlier sessions included), read from the
provider-call records the budget keeps.
"""

from __future__ import annotations

import time
from collections.abc import Sized
from types import TracebackType

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from sscbench import heartbeat
from sscbench.experiments.budget import Budget
from sscbench.experiments.status import RunRecord


def _duration(seconds: float) -> str:
    seconds = int(seconds)
    hours, rest = divmod(seconds, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}"


class ExperimentProgress:
    """A rich progress bar fed with final run records."""

    def __init__(self, console: Console, title: str) -> None:
        self.console = console
        self.title = title
        self.progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[status]}"),
            TimeElapsedColumn(),
            console=console,
            transient=False,
        )
        self._task = self.progress.add_task(title, total=None, status="planning")
        self._budget: Budget | None = None
        self._total = 0
        self._resumed = self._executed = self._observed = self._failed = self._missing = 0
        self._started = time.monotonic()

    def __enter__(self) -> ExperimentProgress:
        self.progress.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.progress.stop()

    def start(self, runs: Sized, budget: Budget) -> None:
        """Called once the schedule is known."""
        self._budget = budget
        self._total = len(runs)
        self._started = time.monotonic()
        self.progress.update(self._task, total=len(runs), status=self._status())
        heartbeat.phase(f"running {self.title}", total=len(runs))

    def record(self, record: RunRecord, executed: bool) -> None:
        """Called with each final record."""
        if executed:
            self._executed += 1
        elif record.state == "observed":
            self._resumed += 1
        if record.state == "observed":
            self._observed += 1
        elif record.failed:
            self._failed += 1
        else:
            self._missing += 1
        self.progress.update(self._task, advance=1, status=self._status())
        heartbeat.advance(record.failed)

    def _eta(self) -> str:
        done = self._observed + self._failed + self._missing
        if not self._executed:
            return "ETA -"
        rate = self._executed / (time.monotonic() - self._started)
        return f"ETA {_duration((self._total - done) / rate)}"

    def _status(self) -> str:
        budget = self._budget
        cost = "cost -" if budget is None else f"cost ${budget.spent_usd:.4f}"
        if budget is not None and budget.unpriced:
            cost += " (+unpriced)"
        return (
            f"[green]observed {self._observed}[/green] ({self._resumed} earlier) "
            f"[red]failed {self._failed}[/red] [yellow]missing {self._missing}[/yellow] "
            f"{cost} {self._eta()}"
        )
