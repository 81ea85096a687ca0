"""What a run's provider calls cost, as the mitigation comparison reports it.

A provider agent's run directory holds ``provider_calls.jsonl``: one record per attempt,
with the tokens the provider counted and the price in USD (0 for a cache hit, absent when
the model has no price). A run is read as three numbers:

* ``calls`` — attempts that reached the provider (cache hits excluded);
* ``tokens`` — input plus output tokens of every reply the run used (cache hits included:
  the model's work is the same whether or not this session paid for it); ``None`` when a
  reply lacks its counts;
* ``usd`` — the sum of the priced attempts; ``None`` when calls went out and none had a
  price.

A run without the file made no provider call — a scripted agent's run — and is read as
zero calls, zero tokens and no cost. The table says "no provider calls" for those rather
than printing a cost of zero as if it had been measured.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from sscbench.analysis.results import Interval, MitigationRow
from sscbench.runs.episode import LEDGER_FILE, PROVIDER_CALLS_FILE

REPLIES = ("ok", "empty", "cache_hit")
"""Attempt statuses that brought back a reply the run used."""


@dataclass(frozen=True)
class RunUsage:
    """One run's provider calls, tokens and USD (see the module docstring)."""

    calls: int
    tokens: int | None
    usd: float | None


NO_CALLS = RunUsage(calls=0, tokens=0, usd=0.0)


def run_usage(run_dir: Path) -> RunUsage:
    """Read one run directory's ``provider_calls.jsonl`` (none: no provider calls)."""
    path = run_dir / PROVIDER_CALLS_FILE
    if not path.is_file():
        return NO_CALLS
    calls = priced = unpriced = 0
    tokens: int | None = 0
    usd = 0.0
    for raw in path.read_bytes().splitlines():
        try:
            record = json.loads(raw)
        except ValueError:
            continue  # a line a crash cut short
        if not isinstance(record, dict):
            continue
        status = record.get("status")
        if status != "cache_hit" and not record.get("cache_hit"):
            calls += 1
        if status in REPLIES:
            counts = (record.get("input_tokens"), record.get("output_tokens"))
            if tokens is not None and all(isinstance(c, int) for c in counts):
                tokens += sum(c for c in counts if isinstance(c, int))
            else:
                tokens = None
        cost = record.get("cost_usd")
        if isinstance(cost, int | float):
            priced += 1
            usd += float(cost)
        else:
            unpriced += 1
    return RunUsage(calls=calls, tokens=tokens, usd=None if priced == 0 and unpriced else usd)


def read_run_usage(roots: Iterable[Path]) -> dict[str, RunUsage]:
    """The usage, by run id, of every run under ``roots`` that called a provider (its
    directory holds ``provider_calls.jsonl``). A run under the same roots that is not in
    the map made no provider call: :func:`usage_of` reads it as :data:`NO_CALLS`. Only
    those runs' ledgers are opened, for the run id in their first line, so a scripted run
    set's ledgers are not read again after labelling."""
    out: dict[str, RunUsage] = {}
    for root in roots:
        if not root.is_dir():
            continue
        for calls in sorted(root.rglob(PROVIDER_CALLS_FILE)):
            ledger = calls.parent / LEDGER_FILE
            if not ledger.is_file():
                continue
            with ledger.open("rb") as fh:
                first = fh.readline()
            try:
                header = json.loads(first or b"{}")
            except (ValueError, RecursionError):
                continue  # the labels refuse such a ledger; the cost need not say it twice
            run_id = header.get("run_id") if isinstance(header, dict) else None
            if isinstance(run_id, str):
                out[run_id] = run_usage(ledger.parent)
    return out


def usage_of(usage: Mapping[str, RunUsage], run_id: str) -> RunUsage:
    """A run's usage from a :func:`read_run_usage` map: absent means no provider call."""
    return usage.get(run_id, NO_CALLS)


NO_PROVIDER_CALLS = "0 (no provider calls)"
"""What the table says of tokens and cost when neither side called a provider."""


def _scripted(row: MitigationRow) -> bool:
    return row.cost_pairs > 0 and row.provider_calls_without == row.provider_calls_with == 0


def _interval(interval: Interval, spec: str) -> str:
    if interval.low is None or interval.high is None:
        return ""
    return f" [{interval.low:{spec}}, {interval.high:{spec}}]"


def tokens_text(row: MitigationRow) -> str:
    """``1,204 → 1,530 (+326 [+280, +371])`` per run; ``0 (no provider calls)`` for
    scripted runs; ``–`` with no usage read or no token counts."""
    if _scripted(row):
        return NO_PROVIDER_CALLS
    if row.tokens_without is None or row.tokens_with is None or row.tokens_difference is None:
        return "–"
    return (
        f"{row.tokens_without:,.0f} → {row.tokens_with:,.0f} "
        f"({row.tokens_difference:+,.0f}{_interval(row.tokens_interval, '+,.0f')})"
    )


def usd_text(row: MitigationRow) -> str:
    """``$0.0123 → $0.0150 (+$0.0027 …)`` per run; ``0 (no provider calls)`` for scripted
    runs; ``unpriced`` when calls went out without a price; ``–`` with no usage read."""
    if _scripted(row):
        return NO_PROVIDER_CALLS
    if row.cost_pairs == 0:
        return "–"
    if row.usd_without is None or row.usd_with is None or row.usd_difference is None:
        return "unpriced"
    return (
        f"${row.usd_without:.4f} → ${row.usd_with:.4f} "
        f"({row.usd_difference:+.4f}{_interval(row.usd_interval, '+.4f')})"
    )
