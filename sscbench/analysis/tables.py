"""Every table of an :class:`AnalysisResult` as CSV, JSON and LaTeX (booktabs).

* **JSON** — ``analysis.json`` is the whole result (``AnalysisResult.model_validate_json``
  reads it back unchanged).
* **CSV** — one file per table, one row per record, nested fields flattened with dots
  (``a_p.interval.low``). Missing values (a rate on 0/0, an open interval) are empty cells;
  ``gaps`` is a JSON list in one cell (``null`` = ``T_E = ∞``). Floats are written with
  full precision, so :func:`read_csv_table` gives back exactly the rows that were written.
* **LaTeX** — one ``table`` environment per table for papers; needs only ``booktabs``.
  Rates read ``0.42 [0.30, 0.55]`` then ``adopted/evaluable/clusters``; a rate on 0/0
  prints as an en dash with ``0/0/0`` — empty strata stay in the table.
"""

from __future__ import annotations

import csv
import io
import json
import types
import typing
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Union

from pydantic import BaseModel

from sscbench.analysis.mitigation_cost import tokens_text, usd_text
from sscbench.analysis.results import (
    AdoptionRow,
    AnalysisResult,
    ArrivalRow,
    ChannelRow,
    DomainAdoptionRow,
    FunnelRow,
    Interval,
    MitigationRow,
    NoiseRow,
    PairedRow,
    PassKRow,
    Rate,
    ReformulationRow,
    RelianceTimingRow,
    StanceRow,
    StanceStratumRow,
    TaskSuccessRow,
)

TABLE_MODELS: dict[str, type[BaseModel]] = {
    "funnel": FunnelRow,
    "arrival": ArrivalRow,
    "adoption": AdoptionRow,
    "timing": RelianceTimingRow,
    "reformulation": ReformulationRow,
    "stance": StanceRow,
    "stance_by_stratum": StanceStratumRow,
    "noise": NoiseRow,
    "paired": PairedRow,
}
"""Field name of each table in :class:`AnalysisResult` → its row model, in report order."""

OPTIONAL_TABLES: dict[str, type[BaseModel]] = {
    "domains": DomainAdoptionRow,
    "channels": ChannelRow,
    "task_success": TaskSuccessRow,
    "pass_k": PassKRow,
    "mitigations": MitigationRow,
}
"""Tables an analysis has only when its runs allow them (a refutation through the user,
graded runs, repetitions, a mitigation arm): written as CSV and LaTeX when they have
rows, and no file otherwise."""
EXPORTED: dict[str, type[BaseModel]] = TABLE_MODELS | OPTIONAL_TABLES

JSON_FILE = "analysis.json"

TableRow = (
    FunnelRow
    | ArrivalRow
    | AdoptionRow
    | RelianceTimingRow
    | ReformulationRow
    | StanceRow
    | StanceStratumRow
    | NoiseRow
    | PairedRow
    | ChannelRow
    | DomainAdoptionRow
    | TaskSuccessRow
    | PassKRow
    | MitigationRow
)


def table_rows(result: AnalysisResult, table: str) -> tuple[TableRow, ...]:
    """The rows of one named table."""
    if table not in EXPORTED:
        raise KeyError(f"no table {table!r}; tables: {', '.join(EXPORTED)}")
    rows: tuple[TableRow, ...] = getattr(result, table)
    return rows


# --------------------------------------------------------------------------- CSV


def _flatten(prefix: str, value: Any, out: dict[str, Any]) -> None:
    if isinstance(value, dict):
        for key, sub in value.items():
            _flatten(f"{prefix}.{key}" if prefix else key, sub, out)
    else:
        out[prefix] = value


def flat_row(row: BaseModel) -> dict[str, Any]:
    """One record as ``{dotted.column: value}`` in field order."""
    out: dict[str, Any] = {}
    _flatten("", row.model_dump(mode="python"), out)
    return out


def _leaf_types(model: type[BaseModel], prefix: str = "") -> dict[str, Any]:
    """Dotted column → annotation of the leaf field, in field order."""
    out: dict[str, Any] = {}
    for name, info in model.model_fields.items():
        key = f"{prefix}{name}"
        ann = info.annotation
        if isinstance(ann, type) and issubclass(ann, BaseModel):
            out.update(_leaf_types(ann, key + "."))
        else:
            out[key] = ann
    return out


def csv_columns(table: str) -> list[str]:
    """The header of one table's CSV."""
    return list(_leaf_types(EXPORTED[table]))


def _is_tuple(ann: Any) -> bool:
    return typing.get_origin(ann) is tuple


def _admits_none(ann: Any) -> bool:
    origin = typing.get_origin(ann)
    if origin is Union or origin is types.UnionType:
        return type(None) in typing.get_args(ann)
    return ann is None or ann is type(None)


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, tuple | list):
        return json.dumps(list(value))
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    return str(value)


def csv_text(result: AnalysisResult, table: str) -> str:
    """One table as CSV text (``\\n`` line ends, header first)."""
    columns = csv_columns(table)
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(columns)
    for row in table_rows(result, table):
        flat = flat_row(row)
        writer.writerow([_cell(flat[c]) for c in columns])
    return buf.getvalue()


def _unflatten(flat: dict[str, Any]) -> dict[str, Any]:
    nested: dict[str, Any] = {}
    for key, value in flat.items():
        node = nested
        *parents, leaf = key.split(".")
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = value
    return nested


def read_csv_table(path: Path | str, table: str) -> list[BaseModel]:
    """Read a CSV written by :func:`csv_text` back into validated row models."""
    model = EXPORTED[table]
    types_ = _leaf_types(model)
    with Path(path).open(newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        if reader.fieldnames != list(types_):
            raise ValueError(f"{path}: columns {reader.fieldnames} are not those of {table!r}")
        rows: list[BaseModel] = []
        for raw in reader:
            flat: dict[str, Any] = {}
            for key, text in raw.items():
                ann = types_[key]
                if text == "" and _admits_none(ann):
                    flat[key] = None
                elif _is_tuple(ann):
                    flat[key] = tuple(json.loads(text))
                else:
                    flat[key] = text
            rows.append(model.model_validate(_unflatten(flat)))
    return rows


# --------------------------------------------------------------------------- LaTeX

_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
}


def latex_escape(text: str) -> str:
    """Escape LaTeX's special characters in plain text."""
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in text)


def fmt_share(value: float | None) -> str:
    """A proportion with two decimals; ``–`` on 0/0."""
    return "–" if value is None else f"{value:.2f}"


def rate_text(rate: Rate) -> str:
    """``0.42 [0.30, 0.55] 12/52/20`` (plain text; ``– 0/0/0`` when empty)."""
    head = fmt_share(rate.value)
    low, high = rate.interval.low, rate.interval.high
    if rate.value is not None and low is not None and high is not None:
        head += f" [{low:.2f}, {high:.2f}]"
    return f"{head} {rate.numerator}/{rate.denominator}/{rate.clusters}"


def _latex_rate(rate: Rate) -> str:
    low, high = rate.interval.low, rate.interval.high
    mark = {"wilson": "w", "cluster_bootstrap": "b", "none": ""}[rate.interval.method]
    if rate.value is None:
        head = "--"
    else:
        head = f"{rate.value:.2f}"
        if low is not None and high is not None:
            head += f" [{low:.2f}, {high:.2f}]"
        if mark:
            head += f"$^{{\\mathrm{{{mark}}}}}$"
    return f"{head} {{\\scriptsize {rate.numerator}/{rate.denominator}/{rate.clusters}}}"


@dataclass(frozen=True)
class Column:
    """One presented column: header (plain text), LaTeX header, and how to render a row."""

    header: str
    latex: str
    cell: Callable[[Any], str | Rate | int]


def _c(header: str, latex: str, field: str) -> Column:
    return Column(header, latex, lambda row: getattr(row, field))


def _difference(value: float | None, interval: Interval) -> str:
    """``+0.25 [0.10, 0.40]``; ``–`` with no pairs."""
    if value is None:
        return "–"
    text = f"{value:+.2f}"
    if interval.low is not None and interval.high is not None:
        text += f" [{interval.low:+.2f}, {interval.high:+.2f}]"
    return text


def _d(header: str, latex: str, field: str, interval: str) -> Column:
    return Column(
        header, latex, lambda row: _difference(getattr(row, field), getattr(row, interval))
    )


def _mean(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}"


ADOPTION_COLUMNS = (
    _c("A_T", "$A_T$", "a_t"),
    _c("A_P", "$A_P$", "a_p"),
    _c("a_before", "$a_{\\mathrm{before}}$", "a_before"),
    _c("a_after", "$a_{\\mathrm{after}}$", "a_after"),
    _c("a_absent", "$a_{\\mathrm{absent}}$", "a_absent"),
)
"""Adoption's value columns, shared by the per-operator and the per-domain tables."""

PRESENTED: dict[str, tuple[str, tuple[Column, ...]]] = {
    "funnel": (
        "Funnel: (gated) scheduled → observed → triggered → dependent use decidable → population P",
        (
            _c("gated", "gated", "gated"),
            _c("scheduled", "scheduled", "scheduled"),
            _c("observed", "observed", "observed"),
            _c("missing", "missing", "missing"),
            _c("triggered", "triggered", "triggered"),
            _c("not triggered", "not trig.", "not_triggered"),
            _c("use decidable", "$T_S$ decidable", "decidable_use"),
            _c("no use", "no use", "no_use"),
            Column(
                "n_Z / u_Z",
                "$n_Z/u_Z$",
                lambda row: f"{row.arrival_decided}/{row.arrival_undecidable}",
            ),
            _c("population P", "$|P|$", "population"),
            _c("controls", "controls", "controls"),
        ),
    ),
    "arrival": (
        "Arrival shares on runs with decidable Z_S (controls included)",
        (
            _c("before", "before", "before"),
            _c("after", "after", "after"),
            _c("absent", "absent", "absent"),
            _c("no dependent use", "no use", "no_use"),
            _c("undecidable", "undec.", "undecidable"),
        ),
    ),
    "adoption": (
        "Adoption: A_T (triggered), A_P (population P), a_s per arrival stratum",
        ADOPTION_COLUMNS,
    ),
    "timing": (
        "Reliance timing: q_U = P(T_E < T_U | A=1, P) and runs with T_S < T_E < T_U",
        (
            _c("q_U", "$q_U$", "q_u"),
            _c("u_q (order undecidable)", "$u_q$", "order_undecidable"),
            _c("T_S = T_U", "$T_S{=}T_U$", "first_use_is_reliance"),
            _c("T_S < T_E < T_U", "$T_S<T_E<T_U$", "refuted_between_use_and_reliance"),
            Column(
                "adopted runs with T_E = ∞",
                "$T_E=\\infty$",
                lambda row: sum(g is None for g in row.gaps),
            ),
        ),
    ),
    "reformulation": (
        "Reformulations within P: adoption, with eventual refutation, with pre-use refutation",
        (
            _c("A=1", "$A{=}1$", "adoption"),
            _c("A=1 ∧ T_E<∞", "$A{=}1 \\wedge T_E{<}\\infty$", "adoption_eventually_refuted"),
            _c("A=1 ∧ T_E<T_S", "$A{=}1 \\wedge T_E{<}T_S$", "adoption_refuted_before_use"),
        ),
    ),
    "stance": (
        "Y_end among adopted runs in P (not evidence of repair)",
        (
            _c("endorse", "endorse", "endorse"),
            _c("retract", "retract", "retract"),
            _c("undecidable", "undecidable", "undecidable"),
        ),
    ),
    "stance_by_stratum": (
        "Y_end among adopted runs in P, per arrival stratum",
        (
            _c("stratum", "stratum", "stratum"),
            _c("endorse", "endorse", "endorse"),
            _c("retract", "retract", "retract"),
            _c("undecidable", "undecidable", "undecidable"),
        ),
    ),
    "noise": (
        "Noise floor: seed–configuration pairs whose arrival class changes across repetitions",
        (
            _c("pairs", "pairs", "pairs"),
            _c("with repetitions", "repeated", "pairs_with_repetitions"),
            _c("changed class", "changed", "changed"),
        ),
    ),
    "paired": (
        "Paired interface checks: the same case, configuration and repetition on the main "
        "interface and under the variant",
        (
            _c("check", "check", "check"),
            _c("pairs", "pairs", "pairs"),
            Column(
                "read-back main → variant",
                "read-back",
                lambda row: (
                    f"{row.read_back_main}/{row.pairs} → {row.read_back_variant}/{row.pairs}"
                ),
            ),
            Column(
                "adopted main → variant",
                "adopted",
                lambda row: (
                    f"{row.adopted_main}/{row.adoption_pairs} → "
                    f"{row.adopted_variant}/{row.adoption_pairs}"
                ),
            ),
            Column(
                "discordant (main only / variant only)",
                "discordant",
                lambda row: f"{row.adopted_main_only} / {row.adopted_variant_only}",
            ),
        ),
    ),
    "domains": (
        "Adoption per τ² domain, every operator of the domain pooled (A_T on triggered runs, "
        "A_P within P, and per arrival stratum)",
        (
            _c("domain", "domain", "domain"),
            _c("triggered", "triggered", "triggered"),
            *ADOPTION_COLUMNS,
        ),
    ),
    "channels": (
        "How the refutation reached the agent, beside Z_S: an agent tool observation, or "
        "the user relaying a device reading (runs with a decided Z_S and a refutation)",
        (
            _c("channel", "channel", "channel"),
            _c("before", "before", "before"),
            _c("after", "after", "after"),
        ),
    ),
    "task_success": (
        "Task success under fault (τ² reward) beside the same task's clean run, paired "
        "difference faulted − clean, and faulted success by adoption and arrival stratum",
        (
            _c("faulted", "faulted", "fault"),
            Column("pairs (unpaired)", "pairs", lambda row: f"{row.pairs} ({row.unpaired})"),
            _c("faulted, paired", "faulted (paired)", "fault_paired"),
            _c("clean", "clean", "clean"),
            _d("difference", "$\\Delta$", "difference", "difference_interval"),
            _c("adopted", "adopted", "fault_adopted"),
            _c("not adopted", "not adopted", "fault_not_adopted"),
            _c("before", "before", "fault_before"),
            _c("after", "after", "fault_after"),
            _c("absent", "absent", "fault_absent"),
        ),
    ),
    "pass_k": (
        "pass^k over trials (τ²'s unbiased estimator) of clean and faulted runs, and "
        "adoption^k: the chance that all k repetitions of a case avoid adoption",
        (
            _c("metric", "metric", "metric"),
            _c("condition", "condition", "condition"),
            _c("k", "$k$", "k"),
            Column("units / clusters", "units", lambda row: f"{row.units}/{row.clusters}"),
            Column(
                "value [95% interval]",
                "value",
                lambda row: (
                    "–"
                    if row.value is None
                    else f"{row.value:.2f}"
                    + (
                        f" [{row.interval.low:.2f}, {row.interval.high:.2f}]"
                        if row.interval.low is not None and row.interval.high is not None
                        else ""
                    )
                ),
            ),
        ),
    ),
    "mitigations": (
        "Mitigations on the same cases and seeds: adoption, task success, steps, tokens and "
        "USD without and with each mitigation, paired differences with − without",
        (
            _c("mitigation", "mitigation", "mitigation"),
            _c("adopted without", "adopted w/o", "adopted_without"),
            _c("adopted with", "adopted with", "adopted_with"),
            _d("adoption Δ", "adoption $\\Delta$", "adoption_difference", "adoption_interval"),
            _c("success without", "success w/o", "success_without"),
            _c("success with", "success with", "success_with"),
            _d("success Δ", "success $\\Delta$", "success_difference", "success_interval"),
            Column(
                "steps without → with",
                "steps",
                lambda row: f"{_mean(row.steps_without)} → {_mean(row.steps_with)}",
            ),
            _d("steps Δ", "steps $\\Delta$", "steps_difference", "steps_interval"),
            Column("tokens per run", "tokens", tokens_text),
            Column("USD per run", "USD", usd_text),
        ),
    ),
}
"""How each table is presented (HTML and LaTeX): caption and value columns after
``operator`` and ``configuration``."""


def latex_table(result: AnalysisResult, table: str) -> str:
    """One table as a LaTeX ``table`` with a booktabs ``tabular``."""
    caption, columns = PRESENTED[table]
    rows = table_rows(result, table)
    spec = "ll" + "r" * len(columns)
    has_rates = any(isinstance(c.cell(r), Rate) for r in rows for c in columns)
    note = ""
    if has_rates:
        note = (
            " Cells: share [95\\% interval] then numerator/denominator/clusters;"
            " $^{\\mathrm{w}}$ Wilson, $^{\\mathrm{b}}$ cluster bootstrap"
            f" ($B={result.bootstrap_replicates}$); -- on 0/0."
        )
    lines = [
        "% Generated by sscbench; requires \\usepackage{booktabs}.",
        "\\begin{table}[t]",
        "\\centering",
        "\\small",
        f"\\caption{{{latex_escape(caption)} "
        f"(sensitivity: {latex_escape(result.sensitivity)}).{note}}}",
        f"\\label{{tab:sscbench-{table}}}",
        f"\\begin{{tabular}}{{{spec}}}",
        "\\toprule",
        " & ".join(["operator", "configuration", *(c.latex for c in columns)]) + " \\\\",
        "\\midrule",
    ]
    previous: str | None = None
    for row in rows:
        operator, configuration = row.operator, row.configuration
        if previous is not None and operator != previous:
            lines.append("\\addlinespace")
        cells = [
            latex_escape(operator) if operator != previous else "",
            latex_escape(configuration),
        ]
        for column in columns:
            value = column.cell(row)
            cells.append(
                _latex_rate(value) if isinstance(value, Rate) else latex_escape(str(value))
            )
        lines.append(" & ".join(cells) + " \\\\")
        previous = operator
    if not rows:
        lines.append(f"\\multicolumn{{{len(columns) + 2}}}{{c}}{{(no rows)}} \\\\")
    lines += ["\\bottomrule", "\\end{tabular}", "\\end{table}", ""]
    return "\n".join(lines)


# --------------------------------------------------------------------------- files


@dataclass(frozen=True)
class TableFiles:
    """Paths written by :func:`write_tables` (relative to its ``out_dir``)."""

    json: str
    csv: dict[str, str]
    latex: dict[str, str]

    def all(self) -> list[str]:
        """Every written path, JSON first."""
        return [self.json, *self.csv.values(), *self.latex.values()]


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8", newline="\n")


def present_tables(result: AnalysisResult) -> list[str]:
    """The tables a result writes: every standard one, and each optional one with rows."""
    return [*TABLE_MODELS, *(t for t in OPTIONAL_TABLES if getattr(result, t))]


def write_tables(
    result: AnalysisResult, out_dir: Path, tables: Iterable[str] | None = None
) -> TableFiles:
    """Write ``analysis.json``, ``tables/<name>.csv`` and ``tables/<name>.tex`` (by
    default for :func:`present_tables`)."""
    if tables is None:
        tables = present_tables(result)
    _write(out_dir / JSON_FILE, result.model_dump_json(indent=2) + "\n")
    csv_paths: dict[str, str] = {}
    tex_paths: dict[str, str] = {}
    for table in tables:
        csv_paths[table] = f"tables/{table}.csv"
        tex_paths[table] = f"tables/{table}.tex"
        _write(out_dir / csv_paths[table], csv_text(result, table))
        _write(out_dir / tex_paths[table], latex_table(result, table))
    return TableFiles(json=JSON_FILE, csv=csv_paths, latex=tex_paths)


def read_tables(out_dir: Path, template: AnalysisResult) -> AnalysisResult:
    """Rebuild a result from the CSVs in ``out_dir/tables`` (metadata from ``template``;
    an optional table without a file has no rows)."""
    update: dict[str, Sequence[BaseModel]] = {
        table: tuple(read_csv_table(out_dir / "tables" / f"{table}.csv", table))
        for table in EXPORTED
        if table in TABLE_MODELS or (out_dir / "tables" / f"{table}.csv").exists()
    }
    update |= {t: () for t in OPTIONAL_TABLES if t not in update}
    return template.model_copy(update=update)
