"""Run oracles over the scored set and tabulate their stratified scores.

An oracle that turns out to be unavailable while judging (a cache miss with no key, say)
is reported as skipped with its reason and scored on nothing — never half-scored.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from rich.table import Table

from sscbench.errors import ConfigError
from sscbench.oracles.base import Oracle, Verdict
from sscbench.oracles.dataset import Item
from sscbench.oracles.metrics import Ratio, Score, stratified


@dataclass
class OracleResult:
    """One oracle's verdicts and stratified scores, or why it was skipped."""

    name: str
    verdicts: list[Verdict] = field(default_factory=list)
    scores: list[tuple[str, Score]] = field(default_factory=list)
    skipped: str | None = None


def run_oracle(
    name: str,
    oracle: Oracle,
    items: Sequence[Item],
    progress: Callable[[], None] | None = None,
) -> OracleResult:
    """Judge every item with ``oracle`` and score it."""
    result = OracleResult(name)
    for item in items:
        try:
            result.verdicts.append(oracle.judge(item.trajectory))
        except ConfigError as exc:
            return OracleResult(name, skipped=str(exc))
        if progress is not None:
            progress()
    result.scores = stratified(items, result.verdicts)
    return result


def _ratio(r: Ratio) -> str:
    return f"{r.value:.2f} ({r.num}/{r.den})" if r.value is not None else f"– ({r.num}/{r.den})"


def score_table(results: Sequence[OracleResult], title: str) -> Table:
    """The stratified table: one row per oracle × stratum."""
    table = Table(title=title)
    columns = (
        "oracle",
        "stratum",
        "scored",
        "precision",
        "recall",
        "F1",
        "FPR clean",
        "FPR non-adopted",
        "coverage",
        "T_U exact",
        "T_U ±1",
    )
    for column in columns:
        table.add_column(column, justify="left" if column in ("oracle", "stratum") else "right")
    for result in results:
        if result.skipped is not None:
            continue
        for stratum, s in result.scores:
            table.add_row(
                result.name,
                stratum,
                str(s.counts.scored),
                _ratio(s.precision),
                _ratio(s.recall),
                f"{s.f1:.2f}" if s.f1 is not None else "–",
                _ratio(s.fpr_clean),
                _ratio(s.fpr_non_adopted),
                _ratio(s.coverage),
                _ratio(s.t_u_exact),
                _ratio(s.t_u_within_one),
            )
        table.add_section()
    return table


def write_results(out: Path, items: Sequence[Item], results: Sequence[OracleResult]) -> None:
    """``verdicts.jsonl`` (one line per oracle × item) and ``scores.json``."""
    out.mkdir(parents=True, exist_ok=True)
    with (out / "verdicts.jsonl").open("w", encoding="utf-8") as fh:
        for result in results:
            for item, verdict in zip(items, result.verdicts, strict=False):
                ref = item.reference
                record = {
                    "oracle": result.name,
                    "item": item.trajectory.item_id,
                    "operator": ref.operator,
                    "reference": {"adopted": ref.adopted, "t_u": ref.t_u, "z_s": ref.z_s},
                    **verdict.model_dump(mode="json"),
                }
                fh.write(json.dumps(record, separators=(",", ":")) + "\n")
    scores = {
        r.name: {"skipped": r.skipped}
        if r.skipped is not None
        else {stratum: s.as_dict() for stratum, s in r.scores}
        for r in results
    }
    (out / "scores.json").write_text(json.dumps(scores, indent=1) + "\n", encoding="utf-8")
