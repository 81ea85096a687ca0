"""The corrected adoption on the terminal and in the report, beside the uncorrected one.

Every corrected figure is shown with the uncorrected figure it corrects; where the
validation sample was too small the cell says so and shows only the uncorrected figure
(never a silent correction); without a validation sample the section says nothing was
corrected and how to give one.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

from rich.table import Table

from sscbench.analysis.correction_records import CorrectedRow, ErrorRateRow, Share
from sscbench.analysis.population import STRATA
from sscbench.analysis.results import ALL_OPERATORS, AnalysisResult
from sscbench.analysis.templating import render
from sscbench.terminal import compact_table

TITLE = "Corrected for the labeller's error"
WRAP = 96
"""Line width of the notes printed on the terminal (which is 100 columns)."""
NO_VALIDATION = (
    "Not corrected for the reconstructor's error: no validation sample was given "
    "(`sscbench report RUNDIR --validation REVIEWDIR`, or `--validation truth` for scripted "
    "agents); the figures are the automatic labels' own."
)


def _num(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}"


def corrected_text(row: CorrectedRow) -> str:
    """``→0.41 [0.30,0.52]`` (the corrected figure and its interval), or why there is none:
    ``→ too small`` (validation sample too small: the uncorrected figure stands alone) or
    ``→ –`` (no run estimated in the stratum)."""
    if row.status == "too_small":
        return "→ too small"
    if row.status == "no_runs" or row.value is None:
        return "→ –"
    return f"→{row.value:.2f} [{_num(row.low)},{_num(row.high)}]"


def by_key(result: AnalysisResult) -> dict[tuple[str, str, str], CorrectedRow]:
    """(operator, configuration, stratum) → its corrected row."""
    return {(r.operator, r.configuration, r.stratum): r for r in result.corrected}


def validation_line(result: AnalysisResult) -> str:
    """Which validation sample the correction used (or that there was none), wrapped to
    the terminal's 100 columns."""
    info = result.validation
    if info is None:
        return textwrap.fill(NO_VALIDATION, WRAP)
    return textwrap.fill(
        f"corrected for the reconstructor's error ({info.method}); validation sample: "
        f"{info.description}, {info.validated} runs of this analysis",
        WRAP,
    )


def correction_table(
    result: AnalysisResult, operators: bool = True, skip_uncorrected: bool = False
) -> Table | None:
    """Per group: each stratum's uncorrected figure (counts) and corrected figure with its
    interval (or the reason there is none); None without a validation sample.
    ``skip_uncorrected`` leaves out the operators that could not be corrected at all (the
    caption names them; the error-rate table gives the reason)."""
    if result.validation is None:
        return None
    table = compact_table(
        "adoption by arrival: uncorrected adopted/evaluable, then → corrected [95% interval]"
        f"\n{validation_line(result)}",
        ("operator", "configuration", *STRATA),
        left=("operator", "configuration"),
    )
    rows = by_key(result)
    keys = sorted(
        {(r.operator, r.configuration) for r in result.corrected},
        key=lambda k: (k[0] != ALL_OPERATORS, k),
    )
    skipped = sorted(
        {r.operator for r in result.error_rates if not r.sufficient} if skip_uncorrected else ()
    )
    if skipped:
        table.caption = f"not corrected (validation sample too small): {', '.join(skipped)}"
    for op, conf in keys:
        if (op != ALL_OPERATORS and not operators) or op in skipped:
            continue
        cells = []
        for stratum in STRATA:
            row = rows[(op, conf, stratum)]
            cells.append(f"{_num(row.uncorrected)} {row.uncorrected_counts}\n{corrected_text(row)}")
        table.add_row(op, conf, *cells)
    return table


def error_rate_table(result: AnalysisResult) -> Table | None:
    """Per operator: A's sensitivity, specificity and undecidable rate, Z_S agreement."""
    if result.validation is None:
        return None
    table = compact_table(
        "the reconstructor's error, per operator, on the validation sample",
        ("operator", "validated", "sensitivity", "specificity", "A undec.", "Z_S agree", "note"),
        left=("operator", "note"),
    )
    for row in result.error_rates:
        table.add_row(*_error_cells(row))
    return table


def _share(share: Share) -> str:
    return f"{_num(share.value)} ({share.numerator}/{share.denominator})"


def _error_cells(row: ErrorRateRow) -> list[str]:
    return [
        row.operator,
        str(row.validated),
        _share(row.sensitivity),
        _share(row.specificity),
        _share(row.undecidable),
        _share(row.z_agreement),
        "" if row.sufficient else f"too small: {row.reason}",
    ]


def _confusion(row: ErrorRateRow) -> str:
    """The Z_S confusion as ``reference→automatic n`` for the off-diagonal cells."""
    off = [
        f"{ref}→{auto} {n}"
        for ref, autos in row.z_confusion.items()
        for auto, n in autos.items()
        if n and ref != auto
    ]
    return ", ".join(off) or "none"


def correction_section(result: AnalysisResult) -> str:
    """The report section's body (``templates/correction.html.j2``)."""
    if result.validation is None:
        return render("correction.html.j2", info=None, note=NO_VALIDATION).strip()
    rows = by_key(result)
    keys = sorted(
        {(r.operator, r.configuration) for r in result.corrected},
        key=lambda k: (k[0] != ALL_OPERATORS, k),
    )
    corrected: list[list[str]] = []
    for op, conf in keys:
        line = [op, conf]
        for stratum in STRATA:
            row = rows[(op, conf, stratum)]
            line += [f"{_num(row.uncorrected)} ({row.uncorrected_counts})", corrected_text(row)]
        corrected.append(line)
    warnings: Sequence[str] = sorted({r.warning for r in result.corrected if r.warning is not None})
    errors = [[*_error_cells(r)[:6], _confusion(r), _error_cells(r)[6]] for r in result.error_rates]
    return render(
        "correction.html.j2",
        info=result.validation,
        note=validation_line(result),
        warnings=list(warnings),
        corrected_head=[
            "operator",
            "configuration",
            *(f"{s} {kind}" for s in STRATA for kind in ("uncorrected", "corrected")),
        ],
        corrected=corrected,
        errors_head=[
            "operator",
            "validated",
            "A sensitivity",
            "A specificity",
            "A undecidable",
            "Z_S agreement",
            "Z_S confusion (reference→automatic)",
            "note",
        ],
        errors=errors,
    ).strip()
