"""Run oracles over the scored set and tabulate their settings and stratified scores.

An oracle that turns out to be unavailable while judging (a cache miss with no key, say)
is reported as skipped with its reason and scored on nothing — never half-scored. An
oracle whose setting has a ``scope`` judges only those operators' runs (and the clean
controls paired with their contracts); the rest are not its items, not abstentions.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from rich.table import Table

from sscbench.errors import ConfigError
from sscbench.oracles.base import UNDECLARED, Oracle, OracleSetting, Verdict
from sscbench.oracles.dataset import Item
from sscbench.oracles.metrics import (
    OracleScores,
    Ratio,
    Score,
    ScoresFile,
    stratified,
)

SCORES_FILE = "scores.json"


@dataclass
class OracleResult:
    """One oracle's verdicts and stratified scores, or why it was skipped."""

    name: str
    setting: OracleSetting = UNDECLARED
    items: list[Item] = field(default_factory=list)
    verdicts: list[Verdict] = field(default_factory=list)
    scores: list[tuple[str, Score]] = field(default_factory=list)
    skipped: str | None = None


def in_scope(setting: OracleSetting, items: Sequence[Item]) -> list[Item]:
    """The items an oracle with ``setting`` judges."""
    if not setting.scope:
        return list(items)
    return [i for i in items if i.reference.operator in setting.scope]


def run_oracle(
    name: str,
    oracle: Oracle,
    items: Sequence[Item],
    progress: Callable[[], None] | None = None,
    setting: OracleSetting = UNDECLARED,
) -> OracleResult:
    """Judge every item in the oracle's scope and score it as its setting says."""
    result = OracleResult(name, setting, in_scope(setting, items))
    for item in result.items:
        try:
            result.verdicts.append(oracle.judge(item.trajectory))
        except ConfigError as exc:
            return OracleResult(name, setting, skipped=str(exc))
        if progress is not None:
            progress()
    result.scores = stratified(result.items, result.verdicts, setting.output == "step")
    return result


def settings_table(names: Sequence[str], settings: Sequence[OracleSetting]) -> Table:
    """The oracle settings (the paper's Table II)."""
    table = Table(title="oracle settings")
    for column in ("oracle", "baseline", "method", "sees", "positive", "scored on", "calls"):
        table.add_column(column)
    for name, s in zip(names, settings, strict=True):
        scored = "T_U only" if s.output == "step" else "adoption, T_U"
        if s.scope:
            scored += f" ({', '.join(s.scope)} runs)"
        calls = "one LLM call per run" if s.calls == "llm" else "offline"
        table.add_row(name, s.baseline, s.method, s.information, s.positive, scored, calls)
    return table


def _ratio(r: Ratio) -> str:
    return f"{r.value:.2f} ({r.num}/{r.den})" if r.value is not None else f"– ({r.num}/{r.den})"


def score_table(
    results: Sequence[OracleResult], title: str, only: Collection[str] | None = None
) -> Table:
    """The stratified table: one row per oracle × stratum (``only``: just those strata)."""
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
            if only is not None and stratum not in only:
                continue
            operator = stratum.removeprefix("operator=")
            if (
                result.setting.scope
                and operator != stratum
                and operator not in result.setting.scope
            ):
                continue  # out of the oracle's scope: not its items
            adoption = (
                ("n/a",) * 5
                if s.step_only
                else (
                    _ratio(s.precision),
                    _ratio(s.recall),
                    _f1(s),
                    _ratio(s.fpr_clean),
                    _ratio(s.fpr_non_adopted),
                )
            )
            table.add_row(
                result.name,
                stratum,
                str(s.counts.scored),
                *adoption,
                _ratio(s.coverage),
                _ratio(s.t_u_exact),
                _ratio(s.t_u_within_one),
            )
        table.add_section()
    return table


def _f1(s: Score) -> str:
    return "n/a" if s.step_only else f"{s.f1:.2f}" if s.f1 is not None else "–"


def per_operator_table(results: Sequence[OracleResult], title: str) -> Table:
    """Adoption F1 / exact-step accuracy per oracle and operator (the paper's Table V(c))."""
    done = [r for r in results if r.skipped is None]
    operators = [
        stratum.removeprefix("operator=")
        for stratum, _ in (done[0].scores if done else [])
        if stratum.startswith("operator=")
    ]
    table = Table(title=title)
    table.add_column("oracle")
    for operator in operators:
        table.add_column(operator, justify="right")
    for result in done:
        cells = dict(result.scores)
        row = []
        for operator in operators:
            s = cells.get(f"operator={operator}")
            if s is None or (result.setting.scope and operator not in result.setting.scope):
                row.append("not judged")
                continue
            exact = s.t_u_exact
            step = f"{exact.value:.0%}" if exact.value is not None else "–"
            row.append(f"{_f1(s)} / {step}")
        table.add_row(result.name, *row)
    return table


def write_results(out: Path, items: Sequence[Item], results: Sequence[OracleResult]) -> None:
    """``verdicts.jsonl`` (one line per oracle × item) and ``scores.json``."""
    out.mkdir(parents=True, exist_ok=True)
    with (out / "verdicts.jsonl").open("w", encoding="utf-8") as fh:
        for result in results:
            for item, verdict in zip(result.items, result.verdicts, strict=True):
                ref = item.reference
                record = {
                    "oracle": result.name,
                    "item": item.trajectory.item_id,
                    "operator": ref.operator,
                    "reference": {"adopted": ref.adopted, "t_u": ref.t_u, "z_s": ref.z_s},
                    **verdict.model_dump(mode="json"),
                }
                fh.write(json.dumps(record, separators=(",", ":")) + "\n")
    scores = ScoresFile(
        oracles={
            r.name: OracleScores(
                setting=r.setting,
                skipped=r.skipped,
                strata={stratum: s.record() for stratum, s in r.scores},
            )
            for r in results
        }
    )
    (out / SCORES_FILE).write_text(scores.model_dump_json(indent=1) + "\n", encoding="utf-8")
