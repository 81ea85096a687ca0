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

from rich.console import Group
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
from sscbench.terminal import compact_table

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
    """The oracle settings (the paper's Table II), one oracle per row with its setting
    stacked in one cell, so the table fits 100 columns."""
    table = compact_table("oracle settings", ("oracle", "setting"), left=("oracle", "setting"))
    for name, s in zip(names, settings, strict=True):
        scored = "T_U only" if s.output == "step" else "adoption, T_U"
        if s.scope:
            scored += f" ({', '.join(s.scope)} runs)"
        calls = "one LLM call per run" if s.calls == "llm" else "offline"
        table.add_row(
            f"{name}\n{s.baseline}",
            f"{s.method} · scored on {scored} · {calls}\n"
            f"sees: {s.information}\npositive: {s.positive}",
        )
        table.add_section()
    return table


def _ratio(r: Ratio) -> str:
    return f"{r.value:.2f} ({r.num}/{r.den})" if r.value is not None else f"– ({r.num}/{r.den})"


ADOPTION_COLUMNS = ("scored", "precision", "recall", "F1", "FPR clean", "FPR non-adopted")
STEP_COLUMNS = ("coverage", "T_U exact", "T_U ±1")


def score_table(
    results: Sequence[OracleResult], title: str, only: Collection[str] | None = None
) -> Group:
    """The stratified scores: one block per oracle, one row per stratum (``only``: just
    those strata); adoption metrics in one table, coverage and localisation in a second,
    so each fits 100 columns."""
    adoption = compact_table(
        title, ("oracle · stratum", *ADOPTION_COLUMNS), left=("oracle · stratum",)
    )
    steps = compact_table(None, ("oracle · stratum", *STEP_COLUMNS), left=("oracle · stratum",))
    for result in results:
        if result.skipped is not None:
            continue
        rows = [
            (stratum, s)
            for stratum, s in result.scores
            if (only is None or stratum in only) and _in_scope(result, stratum)
        ]
        for stratum, s in rows:
            key = (
                result.name if only is not None and len(only) == 1 else f"{result.name} · {stratum}"
            )
            scores = (
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
            adoption.add_row(key, str(s.counts.scored), *scores)
            steps.add_row(key, _ratio(s.coverage), _ratio(s.t_u_exact), _ratio(s.t_u_within_one))
        if len(rows) > 1:
            adoption.add_section()
            steps.add_section()
    return Group(adoption, steps)


def _in_scope(result: OracleResult, stratum: str) -> bool:
    """Whether a stratum holds the oracle's items (an operator outside its scope does not)."""
    operator = stratum.removeprefix("operator=")
    scope = result.setting.scope
    return not (scope and operator != stratum and operator not in scope)


def _f1(s: Score) -> str:
    return "n/a" if s.step_only else f"{s.f1:.2f}" if s.f1 is not None else "–"


def per_operator_table(results: Sequence[OracleResult], title: str) -> Table:
    """Adoption F1 / exact-step accuracy per operator (rows) and oracle (columns, by
    baseline id; the paper's Table V(c), transposed so that eleven operators fit)."""
    done = [r for r in results if r.skipped is None]
    operators = [
        stratum.removeprefix("operator=")
        for stratum, _ in (done[0].scores if done else [])
        if stratum.startswith("operator=")
    ]
    heads = [r.setting.baseline if r.setting.baseline not in ("", "—") else r.name for r in done]
    table = compact_table(title, ("operator", *heads), left=("operator",))
    cells = [dict(r.scores) for r in done]
    for operator in operators:
        row = []
        for result, scores in zip(done, cells, strict=True):
            s = scores.get(f"operator={operator}")
            if s is None or (result.setting.scope and operator not in result.setting.scope):
                row.append("not judged")
                continue
            exact = s.t_u_exact
            step = f"{exact.value:.0%}" if exact.value is not None else "–"
            row.append(f"{_f1(s)} / {step}")
        table.add_row(operator, *row)
    legend = ", ".join(f"{h} = {r.name}" for h, r in zip(heads, done, strict=True) if h != r.name)
    if legend:
        table.caption = legend
        table.caption_justify = "left"
    return table


def verdict_line(name: str, item: Item, verdict: Verdict) -> str:
    """One line of ``verdicts.jsonl``: the oracle, the item, its reference and the verdict."""
    ref = item.reference
    record = {
        "oracle": name,
        "item": item.trajectory.item_id,
        "operator": ref.operator,
        "reference": {"adopted": ref.adopted, "t_u": ref.t_u, "z_s": ref.z_s},
        **verdict.model_dump(mode="json"),
    }
    return json.dumps(record, separators=(",", ":")) + "\n"


def write_results(out: Path, items: Sequence[Item], results: Sequence[OracleResult]) -> None:
    """``verdicts.jsonl`` (one line per oracle × item) and ``scores.json``."""
    out.mkdir(parents=True, exist_ok=True)
    with (out / "verdicts.jsonl").open("w", encoding="utf-8") as fh:
        for result in results:
            for item, verdict in zip(result.items, result.verdicts, strict=True):
                fh.write(verdict_line(result.name, item, verdict))
    write_scores(out, results)


def write_scores(out: Path, results: Sequence[OracleResult]) -> None:
    """``scores.json``: every oracle's setting and stratified scores, or why it was skipped."""
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
