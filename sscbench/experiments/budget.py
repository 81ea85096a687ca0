"""Spending limits: money (from the provider-call records) and number of episodes.

The budget covers the whole output directory, across sessions: what earlier sessions
spent is read back from their ``provider_calls.jsonl`` files (set-aside attempts
included — that money was spent too), so resuming does not reset it. It is checked when a
run is about to start; runs already in flight finish, so the cost limit can be exceeded by
at most what the runs in flight spend.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from sscbench.experiments.spec import BudgetEntry
from sscbench.runs.episode import LEDGER_FILE, PROVIDER_CALLS_FILE

RUN_ROOTS = ("clean", "fault")


@dataclass(frozen=True)
class CallCost:
    """What one run's provider calls cost."""

    cost_usd: float | None
    """Sum of the priced calls; None when calls went out and none had a price."""
    requests: int
    """Attempts that reached the provider (cache hits excluded)."""


def run_cost(run_dir: Path) -> CallCost:
    """Read ``provider_calls.jsonl`` of a run (a run without one made no calls)."""
    path = run_dir / PROVIDER_CALLS_FILE
    if not path.exists():
        return CallCost(0.0, 0)
    total = 0.0
    priced = unpriced = requests = 0
    for raw in path.read_bytes().splitlines():
        try:
            record = json.loads(raw)
        except ValueError:
            continue
        if not record.get("cache_hit"):
            requests += 1
        cost = record.get("cost_usd")
        if cost is None:
            unpriced += 1
        else:
            priced += 1
            total += float(cost)
    if priced == 0 and unpriced > 0:
        return CallCost(None, requests)
    return CallCost(total, requests)


def directory_spend(out: Path) -> tuple[float, int]:
    """(USD spent, episodes started) by every earlier session in ``out``."""
    spent = 0.0
    runs = 0
    for root in RUN_ROOTS:
        base = out / root
        if not base.is_dir():
            continue
        for ledger in base.rglob(LEDGER_FILE):
            runs += 1
            spent += run_cost(ledger.parent).cost_usd or 0.0
    return spent, runs


class Budget:
    """Limits plus what has been spent so far (only touched from the event-loop thread)."""

    def __init__(self, entry: BudgetEntry, spent_usd: float = 0.0, runs: int = 0) -> None:
        self.max_cost_usd = entry.max_cost_usd
        self.max_runs = entry.max_runs
        self.spent_usd = spent_usd
        self.runs = runs
        self.unpriced = False

    def exhausted(self) -> str | None:
        """Why no further run may start, or None."""
        if self.max_cost_usd is not None and self.spent_usd >= self.max_cost_usd:
            return f"cost budget spent: ${self.spent_usd:.4f} of ${self.max_cost_usd:.4f}"
        if self.max_runs is not None and self.runs >= self.max_runs:
            return f"run budget spent: {self.runs} of {self.max_runs} episodes started"
        return None

    def start(self) -> None:
        """Count an episode that is starting."""
        self.runs += 1

    def charge(self, cost: CallCost) -> None:
        """Add a finished run's cost (an unpriced provider run is flagged)."""
        if cost.cost_usd is None:
            self.unpriced = True
        else:
            self.spent_usd += cost.cost_usd
