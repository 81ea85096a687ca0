"""The HTML report: figures, tables, methods and the trajectory viewer, offline.

:func:`write_report` writes into ``out_dir``::

    report.html          figures (base64 SVG), funnel, every table, methods, viewer index
    trajectories.html    the viewer's index on its own page, when there are too many runs
                         to embed it
    runs/<k>/<n>.js      one file per run, loaded by the viewer when the run is opened
    analysis.json        the whole AnalysisResult (machine-readable)
    tables/<name>.csv    one CSV per table
    tables/<name>.tex    one booktabs LaTeX table per table
    figures/<name>.svg   the figures, for papers

The pages load nothing from anywhere else (:mod:`.page`); run text reaches the page only as
text (:mod:`.viewer`). Ledgers are streamed — each parsed once, written to its run file and
dropped — so memory does not grow with the number of runs. The output carries no date or
path, so the same inputs give the same bytes.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from html import escape
from pathlib import Path
from typing import Literal

from sscbench import __version__
from sscbench.analysis.contract_section import contract_label_section
from sscbench.analysis.figures import FIGURES, data_uri, render_all
from sscbench.analysis.methods_text import HOW_TO_READ, METHODS
from sscbench.analysis.page import content_security_policy, page
from sscbench.analysis.results import AnalysisResult, FunnelRow, Rate
from sscbench.analysis.tables import (
    JSON_FILE,
    PRESENTED,
    TableFiles,
    TableRow,
    fmt_share,
    table_rows,
    write_tables,
)
from sscbench.analysis.validation_html import NOT_VALIDATED, validation_section
from sscbench.analysis.viewer import RUNS_DIR, model_of, run_order, viewer_section, write_run_files
from sscbench.errors import ConfigError
from sscbench.reconstruct.labels import RunLabels
from sscbench.records.ledger import Ledger

__all__ = [
    "REPORT_FILE",
    "TRAJECTORIES_FILE",
    "ReportFiles",
    "check_report_dir",
    "content_security_policy",
    "model_of",
    "render_report",
    "write_report",
]

REPORT_FILE = "report.html"
TRAJECTORIES_FILE = "trajectories.html"
REPORT_ENTRIES = frozenset(
    {REPORT_FILE, TRAJECTORIES_FILE, JSON_FILE, "tables", "figures", RUNS_DIR}
)
"""What a report directory holds; anything else there means it is not one."""
EMBED_LIMIT_RUNS = 2000
"""``viewer="auto"`` embeds the viewer's index in ``report.html`` up to this many runs."""

ViewerMode = Literal["auto", "embed", "link"]

# --------------------------------------------------------------------------- tables


def rate_cell(rate: Rate) -> str:
    """A rate as an HTML cell body: share, interval (method), counts n/d/clusters."""
    counts = f'<span class="n">{rate.numerator}/{rate.denominator}/{rate.clusters}</span>'
    if rate.value is None:
        return f'<span class="empty">–</span><br>{counts}'
    low, high = rate.interval.low, rate.interval.high
    ci = ""
    if low is not None and high is not None:
        method = {"wilson": "W", "cluster_bootstrap": "B", "none": ""}[rate.interval.method]
        ci = f' <span class="ci">[{low:.2f}, {high:.2f}]<sup>{method}</sup></span>'
    return f'<span class="v">{fmt_share(rate.value)}</span>{ci}<br>{counts}'


def html_table(result: AnalysisResult, table: str) -> str:
    """One presented table (caption, operator, configuration, value columns)."""
    caption, columns = PRESENTED[table]
    rows = table_rows(result, table)
    head = "".join(f"<th>{escape(c.header)}</th>" for c in columns)
    body: list[str] = []
    for row in rows:
        cells = [
            f'<td class="key">{escape(str(row.operator))}</td>',
            f'<td class="key">{escape(str(row.configuration))}</td>',
        ]
        for column in columns:
            value = column.cell(row)
            cells.append(
                f"<td>{rate_cell(value)}</td>"
                if isinstance(value, Rate)
                else f"<td>{escape(str(value))}</td>"
            )
        body.append(f"<tr>{''.join(cells)}</tr>")
    if table == "funnel" and rows:
        body.append(_funnel_total(rows))
    if not rows:
        body.append(f'<tr><td colspan="{len(columns) + 2}" class="empty">no rows</td></tr>')
    return (
        f'<div class="table-wrap"><table class="data" id="table-{table}">'
        f"<caption>{escape(caption)}</caption>"
        f'<thead><tr><th class="key">operator</th><th class="key">configuration</th>{head}'
        f"</tr></thead><tbody>{''.join(body)}</tbody></table></div>"
    )


def configuration_table(result: AnalysisResult, models: dict[str, str]) -> str:
    """Configurations and the scale of their execution (the paper's Table I)."""
    head = "".join(
        f"<th>{h}</th>"
        for h in (
            "configuration",
            "agent",
            "model and decoding",
            "repetitions",
            "gated",
            "scheduled",
            "observed",
            "triggered",
        )
    )
    body = "".join(
        "<tr>"
        + "".join(
            f"<td>{escape(str(v))}</td>"
            for v in (
                row.configuration,
                row.agent,
                models.get(row.configuration, "—"),
                row.repetitions,
                row.gated,
                row.scheduled,
                row.observed,
                row.triggered,
            )
        )
        + "</tr>"
        for row in result.configurations
    )
    return (
        '<div class="table-wrap"><table class="data" id="table-configurations">'
        "<caption>Configurations and execution scale (faulted runs, every repetition)</caption>"
        f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>"
    )


def _boundary_note(result: AnalysisResult) -> str:
    """The paper's caveat, shown when a cluster-bootstrap interval lies on 0 or 1."""
    rates = [
        rate
        for row in result.adoption
        for rate in (row.a_t, row.a_p, row.a_before, row.a_after, row.a_absent)
        if rate.interval.method == "cluster_bootstrap"
    ]
    if not any(r.interval.low in (0.0, 1.0) and r.interval.high in (0.0, 1.0) for r in rates):
        return ""
    return (
        '<p class="note">A cluster-bootstrap interval on the all-zero or all-one boundary '
        "describes only the observed clusters; it does not mean certainty about the "
        "population.</p>"
    )


def _funnel_total(rows: Sequence[TableRow]) -> str:
    """The funnel's "all" row: every count summed, shown through the funnel's own columns."""
    funnel = [r for r in rows if isinstance(r, FunnelRow)]
    counts = {
        name: sum(getattr(r, name) for r in funnel)
        for name, info in FunnelRow.model_fields.items()
        if info.annotation is int
    }
    total = FunnelRow(operator="all", configuration="", **counts)
    body = "".join(f"<td>{escape(str(c.cell(total)))}</td>" for c in PRESENTED["funnel"][1])
    return f'<tr class="total"><td class="key">all</td><td class="key"></td>{body}</tr>'


# --------------------------------------------------------------------------- report


@dataclass(frozen=True)
class ReportFiles:
    """What :func:`write_report` wrote (paths relative to ``out_dir``)."""

    out_dir: Path
    report: str
    trajectories: str | None
    tables: TableFiles
    figures: dict[str, str]
    problems: tuple[str, ...] = field(default=())

    @property
    def report_path(self) -> Path:
        """The absolute path of ``report.html``."""
        return self.out_dir / self.report


def _figure(name: str, svg: bytes, path: str) -> str:
    title = FIGURES[name][0]
    captions = {
        "adoption_by_arrival": (
            "A_T (triggered runs), A_P (population P) and a_s per arrival stratum, per operator "
            "and configuration, with 95% intervals. Under each bar: adopted / evaluable / "
            "clusters. Empty strata keep their slot (0/0/0, “n/a”)."
        ),
        "q_u": (
            "q_U = P(T_E < T_U | A=1, P) per configuration with 95% intervals; under each bar: "
            "adopted runs refuted before their first reliance / adopted runs / clusters."
        ),
        "reliance_gap": (
            "T_U − T_E per adopted run in P: negative when the agent relied on v′ before the "
            "refutation was complete, positive when it relied on v′ after it; the ∞ bucket "
            "holds adopted runs whose history never refuted v′."
        ),
    }
    return (
        f'<figure id="fig-{name}"><img src="{data_uri(svg)}" alt="{escape(title)}">'
        f"<figcaption><b>{escape(title)}.</b> {escape(captions[name])} "
        f'(<a href="{escape(path)}">SVG</a>)</figcaption></figure>'
    )


def render_report(
    result: AnalysisResult,
    labels: Sequence[RunLabels],
    figures: dict[str, bytes],
    files: TableFiles,
    figure_paths: dict[str, str],
    viewer_html: str | None,
    problems: Sequence[str] = (),
    models: dict[str, str] | None = None,
    validation: str | None = None,
) -> str:
    """The report page. ``viewer_html`` (the viewer's section) is embedded when given,
    otherwise :data:`TRAJECTORIES_FILE` is linked;
    ``models`` names each configuration's model and decoding (from its ledgers);
    ``validation`` is the rendered validation section (Tables II, III(b), V)."""
    toc = [
        ("summary", "Summary"),
        ("funnel", "Funnel"),
        ("adoption", "Adoption by arrival"),
        ("arrival", "Arrival"),
        ("timing", "Reliance timing"),
        ("reformulation", "Reformulations"),
        ("stance", "Y_end"),
        ("noise", "Noise floor"),
        ("validation", "Validation"),
        ("methods", "Methods"),
        ("files", "Files"),
        ("trajectories", "Trajectories"),
    ]
    contracts = contract_label_section(labels)  # "" unless a run has a contract label
    if contracts:
        toc.insert(4, ("contracts", "Observation contracts"))
    nav = "".join(f'<a href="#{k}">{escape(v)}</a>' for k, v in toc)
    repetitions = "every repetition" if result.sensitivity == "all_repetitions" else "r0"
    meta = (
        f"sensitivity: <b>{escape(result.sensitivity)}</b> · population: {repetitions} of each "
        "configuration, target-value controls "
        f"{'included' if result.sensitivity == 'controls_included' else 'kept for arrival only'}"
        f" · bootstrap B = "
        f"{result.bootstrap_replicates} · seed {result.seed} · analysis schema "
        f"{result.schema_version} · sscbench {escape(__version__)}<br>{len(labels)} labelled runs "
        f"(every repetition) in the trajectory viewer; the tables and figures count {repetitions}"
    )
    parts = [
        "<header><h1>SSCBench report</h1>",
        f'<p class="meta">{meta}</p><nav class="toc">{nav}</nav></header><main>',
        f'<section id="summary"><h2>Summary</h2>{HOW_TO_READ}',
    ]
    if problems:
        items = "".join(f"<li>{escape(p)}</li>" for p in problems)
        parts.append(f'<ul class="problems">{items}</ul>')
    parts.append("</section>")
    parts.append(
        '<section id="funnel"><h2>Funnel</h2>'
        f"{configuration_table(result, models or {})}{html_table(result, 'funnel')}</section>"
    )
    parts.append(
        '<section id="adoption"><h2>Adoption by arrival</h2>'
        + _figure(
            "adoption_by_arrival",
            figures["adoption_by_arrival"],
            figure_paths["adoption_by_arrival"],
        )
        + html_table(result, "adoption")
        + _boundary_note(result)
        + "</section>"
    )
    parts.append(f'<section id="arrival"><h2>Arrival</h2>{html_table(result, "arrival")}</section>')
    if contracts:
        parts.append(contracts)
    parts.append(
        '<section id="timing"><h2>Reliance timing</h2>'
        + _figure("q_u", figures["q_u"], figure_paths["q_u"])
        + _figure("reliance_gap", figures["reliance_gap"], figure_paths["reliance_gap"])
        + html_table(result, "timing")
        + "</section>"
    )
    parts.append(
        '<section id="reformulation"><h2>Reformulations</h2>'
        f"{html_table(result, 'reformulation')}</section>"
    )
    parts.append(
        f'<section id="stance"><h2>Y_end</h2>{html_table(result, "stance")}'
        f"{html_table(result, 'stance_by_stratum')}</section>"
    )
    parts.append(f'<section id="noise"><h2>Noise floor</h2>{html_table(result, "noise")}</section>')
    if result.paired:
        parts.append(
            '<section id="paired"><h2>Paired interface checks</h2>'
            f"{html_table(result, 'paired')}</section>"
        )
    parts.append(
        '<section id="validation"><h2>Measurement validation</h2>'
        f"{NOT_VALIDATED if validation is None else validation}</section>"
    )
    parts.append(f'<section id="methods"><h2>Methods</h2>{METHODS}</section>')
    listed = [files.json, *files.csv.values(), *files.latex.values(), *figure_paths.values()]
    file_items = "".join(f'<li><a href="{escape(p)}">{escape(p)}</a></li>' for p in listed)
    parts.append(
        '<section id="files"><h2>Files</h2><p class="note">Beside this page: the whole '
        "analysis as JSON, every table as CSV and as a booktabs LaTeX table, and the figures "
        f'as SVG.</p><ul class="files">{file_items}</ul></section>'
    )
    parts.append('<section id="trajectories"><h2>Trajectories</h2>')
    if viewer_html is not None:
        parts.append(viewer_html)
    else:
        parts.append(
            f'<p>The {len(labels)} labelled runs are on their own page: '
            f'<a href="{TRAJECTORIES_FILE}">{TRAJECTORIES_FILE}</a> (an index that loads each '
            "run when it is opened).</p>"
        )
    parts.append("</section></main>")
    return page(f"SSCBench report — {result.sensitivity}", "".join(parts))


def trajectories_page(viewer_html: str) -> str:
    """The viewer's index as a standalone page (when there are too many runs to embed)."""
    body = (
        "<header><h1>SSCBench trajectories</h1>"
        f'<p class="meta"><a href="{REPORT_FILE}">back to the report</a></p></header>'
        f"<main>{viewer_html}</main>"
    )
    return page("SSCBench trajectories", body)


def _write(path: Path, data: str | bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    if isinstance(data, bytes):
        tmp.write_bytes(data)
    else:
        tmp.write_text(data, encoding="utf-8", newline="\n")
    tmp.replace(path)


def write_report(
    result: AnalysisResult,
    labels: Sequence[RunLabels],
    run_root: Path,
    out_dir: Path,
    *,
    viewer: ViewerMode = "auto",
    ledgers: dict[str, Ledger] | None = None,
) -> ReportFiles:
    """Write the report, its tables and figures into ``out_dir``; return what was written.

    ``run_root`` is searched recursively for the runs' ledgers (by the run id in their
    header), each parsed once; pass ``ledgers`` to reuse already-loaded ones. ``viewer``
    embeds the viewer's index in ``report.html`` (``embed``), writes it to
    ``trajectories.html`` and links it (``link``), or embeds it up to
    :data:`EMBED_LIMIT_RUNS` runs (``auto``). The runs themselves are always per-run files.

    The report is written into a temporary sibling directory and swapped in whole, so a
    killed ``report`` never leaves the page of one run beside the tables of another; an
    existing ``out_dir`` must hold nothing but a previous report (:func:`check_report_dir`).
    """
    check_report_dir(out_dir)
    parent = out_dir.absolute().parent
    parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.", suffix=".tmp", dir=parent))
    try:
        staging.chmod(0o777 & ~_umask())
        files = _write_report_into(staging, result, labels, run_root, viewer, ledgers)
        _swap_in(staging, out_dir)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return replace(files, out_dir=out_dir)


def check_report_dir(out_dir: Path) -> None:
    """Refuse an existing directory that holds anything but a previous report: the report
    replaces its directory as a whole, so anything else in it would be lost."""
    if not out_dir.is_dir():
        return
    foreign = sorted(p.name for p in out_dir.iterdir() if p.name not in REPORT_ENTRIES)
    if foreign:
        raise ConfigError(
            f"{out_dir} is not a report directory (it holds {foreign[0]!r}"
            f"{f' and {len(foreign) - 1} more' if len(foreign) > 1 else ''}); a report "
            "replaces its directory whole: give a new directory or a previous report's"
        )


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _swap_in(staging: Path, out_dir: Path) -> None:
    """Put ``staging`` at ``out_dir``: two renames on one file system, so a reader sees
    the old report or the new one, never a mix (a crash between the renames leaves the
    old report in a hidden ``.NAME.*.old`` sibling)."""
    if not out_dir.exists():
        os.rename(staging, out_dir)
        return
    old = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.", suffix=".old", dir=staging.parent))
    os.rename(out_dir, old)  # onto the empty directory mkdtemp made
    os.rename(staging, out_dir)
    shutil.rmtree(old, ignore_errors=True)


def _write_report_into(
    out_dir: Path,
    result: AnalysisResult,
    labels: Sequence[RunLabels],
    run_root: Path,
    viewer: ViewerMode,
    ledgers: dict[str, Ledger] | None,
) -> ReportFiles:
    order = run_order(labels)
    streamed = write_run_files(out_dir, order, run_root, ledgers)
    problems = list(streamed.problems)
    if streamed.missing:
        problems.append(
            f"{len(streamed.missing)} labelled runs have no readable ledger under the run "
            f"directory (first: {streamed.missing[0]})"
        )
    files = write_tables(result, out_dir)
    figures = render_all(result)
    figure_paths = {name: f"figures/{name}.svg" for name in figures}
    for name, svg in figures.items():
        _write(out_dir / figure_paths[name], svg)
    if viewer == "auto":
        viewer = "embed" if len(order) <= EMBED_LIMIT_RUNS else "link"
    viewer_html = viewer_section(order)
    trajectories: str | None = None
    if viewer == "link":
        trajectories = TRAJECTORIES_FILE
        _write(out_dir / TRAJECTORIES_FILE, trajectories_page(viewer_html))
    html = render_report(
        result,
        labels,
        figures,
        files,
        figure_paths,
        viewer_html if viewer == "embed" else None,
        problems,
        streamed.models,
        validation_section(run_root),
    )
    _write(out_dir / REPORT_FILE, html)
    return ReportFiles(
        out_dir=out_dir,
        report=REPORT_FILE,
        trajectories=trajectories,
        tables=files,
        figures=figure_paths,
        problems=tuple(problems),
    )
