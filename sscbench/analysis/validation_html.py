"""The report's measurement-validation section: Tables II, III(b) and V from saved files.

Validation is computed by ``sscbench oracles evaluate`` (and by ``sscbench demo``), which
write ``oracle_eval/scores.json`` and ``oracle_eval/comparison.json`` beside the runs; the
report only renders them, so it never re-judges anything and never needs a key. Which
reference the numbers are against (an adjudicated human review, or the scripted agents'
truth standing in for one) is stated above the tables. The markup is a template
(``templates/validation.html.j2``); every value is escaped.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import ValidationError

from sscbench.analysis.templating import Markup, render
from sscbench.oracles.evaluate import SCORES_FILE
from sscbench.oracles.metrics import OracleScores, ScoresFile, StratumScore
from sscbench.oracles.validation import COMPARISON_FILE, ComparisonRecord

EVAL_DIR = "oracle_eval"
NOT_VALIDATED = (
    '<p class="note">No validation yet. <code>sscbench oracles evaluate RUNDIR --reference '
    "REVIEWDIR --clean CLEANDIR</code> scores the oracles against an adjudicated review and "
    "compares the automatic labels with it (Tables II, III(b), V); the report shows them here "
    "once written.</p>"
)
REFERENCE = {
    "truth": "the scripted agents' recorded truth, standing in for an adjudicated human reference",
    "review": "the adjudicated human reference (unanimous or adjudicated review labels)",
}


def _share(num: int, den: int) -> str:
    return f"{num / den:.2f} ({num}/{den})" if den else f"– ({num}/{den})"


Table = dict[str, Any]
"""A table for the ``data_table`` macro: caption, head, rows of text cells."""


def _table(caption: str, head: list[str], rows: list[list[str]]) -> Table:
    return {"caption": caption, "head": head, "rows": rows}


def _comparison(record: ComparisonRecord) -> tuple[dict[str, Any], Table]:
    rows = [
        [q, str(a.agree), str(a.compared), _share(a.agree, a.compared)]
        for q, a in record.quantities.items()
    ]
    note = {
        "reference": REFERENCE[record.reference],
        "truth": record.reference == "truth",
        "mismatches": len(record.mismatches),
        "file": f"{EVAL_DIR}/{COMPARISON_FILE}",
    }
    head = ["quantity", "agree", "compared", "agreement"]
    return note, _table("Table III(b) — automatic labels against the reference", head, rows)


def _settings(scores: ScoresFile) -> Table:
    rows = []
    for name, entry in scores.oracles.items():
        s = entry.setting
        scored = "T_U only" if s.output == "step" else "adoption, T_U"
        if s.scope:
            scored += f" ({', '.join(s.scope)})"
        state = f"skipped: {entry.skipped}" if entry.skipped else "scored"
        rows.append([name, s.baseline, s.method, s.information, s.positive, scored, state])
    head = ["oracle", "paper", "method", "sees", "positive", "scored on", "this run set"]
    return _table("Table II — oracle settings", head, rows)


def _f1(s: StratumScore) -> str:
    return "n/a" if s.step_only else f"{s.f1:.2f}" if s.f1 is not None else "–"


def _row(name: str, stratum: str, s: StratumScore) -> list[str]:
    adoption = ["n/a"] * 5
    if not s.step_only:
        adoption = [
            _share(s.tp, s.tp + s.fp_faulted + s.fp_clean),
            _share(s.tp, s.positives),
            _f1(s),
            _share(s.fp_clean, s.clean),
            _share(s.fp_faulted, s.negatives_faulted),
        ]
    return [
        name,
        stratum,
        str(s.scored),
        *adoption,
        _share(s.answered, s.scored),
        _share(s.exact, s.localisable),
        _share(s.within_one, s.localisable),
    ]


def _scored(scores: ScoresFile) -> dict[str, OracleScores]:
    return {n: e for n, e in scores.oracles.items() if not e.skipped}


def _scores(scores: ScoresFile) -> Table:
    head = ["oracle", "stratum", "scored", "precision", "recall", "F1", "FPR clean"]
    head += ["FPR non-adopted", "coverage", "T_U exact", "T_U ±1"]
    rows = [
        _row(name, stratum, s)
        for name, entry in _scored(scores).items()
        for stratum, s in entry.strata.items()
        if not stratum.startswith("operator=") and (stratum == "all" or s.scored)
    ]
    caption = "Table V(a, b) — adoption identification and T_U localisation, by arrival"
    return _table(caption, head, rows)


def _per_operator(scores: ScoresFile) -> Table:
    done = _scored(scores)
    operators = list(
        dict.fromkeys(
            k.removeprefix("operator=")
            for e in done.values()
            for k in e.strata
            if k.startswith("operator=")
        )
    )
    rows = []
    for name, entry in done.items():
        row = [name]
        for op in operators:
            s = entry.strata.get(f"operator={op}")
            if s is None or (entry.setting.scope and op not in entry.setting.scope):
                row.append("not judged")
                continue
            exact = f"{s.exact / s.localisable:.0%}" if s.localisable else "–"
            row.append(f"{_f1(s)} / {exact}")
        rows.append(row)
    caption = "Table V(c) — adoption F1 / exact T_U, per operator"
    return _table(caption, ["oracle", *operators], rows)


def validation_section(run_root: Path) -> str:
    """The section body: the three tables, or how to produce them."""
    directory = run_root / EVAL_DIR
    comparison: dict[str, Any] | None = None
    tables: list[Table] = []
    problem: str | None = None
    try:
        path = directory / COMPARISON_FILE
        if path.is_file():
            comparison, table = _comparison(ComparisonRecord.model_validate_json(path.read_bytes()))
            tables.append(table)
        path = directory / SCORES_FILE
        if path.is_file():
            scores = ScoresFile.model_validate_json(path.read_bytes())
            tables += [_settings(scores), _scores(scores), _per_operator(scores)]
    except (OSError, ValidationError) as exc:
        problem = f"{directory} is unreadable: {str(exc).splitlines()[0][:300]}"
    return render(
        "validation.html.j2",
        problem=problem,
        comparison=comparison,
        tables=tables,
        not_validated=Markup(NOT_VALIDATED),
    ).strip()
