"""The HTML report: figures, tables, methods and the trajectory viewer, offline.

:func:`write_report` writes into ``out_dir``::

    report.html          figures (base64 SVG), funnel, every table, methods, viewer index
    trajectories.html    the viewer's index on its own page, when there are too many runs
                         to embed it
    runs/<k>.js          the runs' histories, 256 a file, loaded when one of them is opened
    analysis.json        the whole AnalysisResult (machine-readable)
    tables/<name>.csv    one CSV per table
    tables/<name>.tex    one booktabs LaTeX table per table
    figures/<name>.svg   the figures, for papers

The pages load nothing from anywhere else (:mod:`.page`); run text reaches the page only as
text (:mod:`.viewer`). Ledgers are streamed — each parsed once, written into its shard and
dropped — so memory does not grow with the number of runs. The output carries no date or
path, so the same inputs give the same bytes.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal
from urllib.parse import quote, urlencode

from sscbench import __version__
from sscbench.analysis.answer import answer_rows
from sscbench.analysis.arrival import arrival_report_section
from sscbench.analysis.contract_section import TITLE as CONTRACTS_TITLE
from sscbench.analysis.contract_section import contract_label_section
from sscbench.analysis.correction_view import TITLE as CORRECTION_TITLE
from sscbench.analysis.correction_view import by_key, corrected_text, correction_section
from sscbench.analysis.figures import FIGURES, data_uri, render_all
from sscbench.analysis.methods_text import HOW_TO_READ, METHODS
from sscbench.analysis.page import content_security_policy, page
from sscbench.analysis.quantities import POOLED
from sscbench.analysis.reliability_section import TITLE as RELIABILITY_TITLE
from sscbench.analysis.reliability_section import reliability_section
from sscbench.analysis.results import ALL_OPERATORS, AnalysisResult, FunnelRow, Rate
from sscbench.analysis.tables import (
    JSON_FILE,
    PRESENTED,
    TableFiles,
    TableRow,
    fmt_share,
    table_rows,
    write_tables,
)
from sscbench.analysis.templating import Markup, render
from sscbench.analysis.validation_html import NOT_VALIDATED, validation_section
from sscbench.analysis.viewer import RUNS_DIR, model_of, run_order, viewer_section, write_run_files
from sscbench.analysis.viewer.index import viewer_section_parts
from sscbench.errors import ConfigError
from sscbench.reconstruct.labels import LabelView, RunLabels
from sscbench.records.ledger import Ledger

__all__ = [
    "REPORT_FILE",
    "TRAJECTORIES_FILE",
    "ReportFiles",
    "Section",
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
COLLAPSE_ROWS = 12
"""A table with more rows is folded under its caption (the figures carry the same numbers)."""
EMBED_LIMIT_RUNS = 2000
"""``viewer="auto"`` embeds the viewer's index in ``report.html`` up to this many runs."""

ViewerMode = Literal["auto", "embed", "link"]

# --------------------------------------------------------------------------- tables


@dataclass(frozen=True)
class Section:
    """A report section another part of SSCBench adds (its body already rendered, escaped
    by its own template), placed before the validation section and listed in the contents."""

    id: str
    title: str
    body: Markup


def rate_view(rate: Rate) -> dict[str, str | None]:
    """A rate as its cell shows it: share, interval with its method, counts n/d/clusters."""
    counts = f"{rate.numerator}/{rate.denominator}/{rate.clusters}"
    if rate.value is None:
        return {"share": None, "ci": None, "method": None, "counts": counts}
    low, high = rate.interval.low, rate.interval.high
    ci = None if low is None or high is None else f"[{low:.2f}, {high:.2f}]"
    method = {"wilson": "W", "cluster_bootstrap": "B", "none": ""}[rate.interval.method]
    return {"share": fmt_share(rate.value), "ci": ci, "method": method, "counts": counts}


def runs_link(base: str, operator: str, configuration: str) -> str:
    """The viewer, filtered to one operator's (or every operator's) runs of one
    configuration (or of every configuration): ``base`` is ``#`` when the viewer is on this
    page, else its page's name and ``#``."""
    query = {
        key: value
        for key, value in (("configuration", configuration), ("operator", operator))
        if value and value not in (POOLED, ALL_OPERATORS)
    }
    return f"{base}runs?{urlencode(query, quote_via=quote)}"


def table_view(result: AnalysisResult, table: str, viewer_base: str = "#") -> dict[str, Any]:
    """One presented table (caption, operator, configuration, value columns) for the
    ``data_table`` macro, with a viewer link per row; the funnel gets its "all" row."""
    caption, columns = PRESENTED[table]
    rows = table_rows(result, table)
    body = [
        [
            str(row.operator),
            str(row.configuration),
            *(
                rate_view(v) if isinstance(v, Rate) else str(v)
                for v in (column.cell(row) for column in columns)
            ),
        ]
        for row in rows
    ]
    return {
        "id": f"table-{table}",
        "caption": caption,
        "head": ["operator", "configuration", *(c.header for c in columns)],
        "rows": body,
        "links": [
            runs_link(viewer_base, str(row.operator), str(row.configuration)) for row in rows
        ],
        "total": _funnel_total(rows) if table == "funnel" and rows else None,
    }


def configuration_view(
    result: AnalysisResult, models: dict[str, str], viewer_base: str = "#"
) -> dict[str, Any]:
    """Configurations and the scale of their execution (the paper's Table I), each row
    linked to its runs in the viewer."""
    head = ["configuration", "agent", "model and decoding", "repetitions", "gated"]
    head += ["scheduled", "observed", "triggered"]
    rows = [
        [
            str(v)
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
        ]
        for row in result.configurations
    ]
    caption = "Configurations and execution scale (faulted runs, every repetition)"
    links = [
        runs_link(viewer_base, ALL_OPERATORS, row.configuration) for row in result.configurations
    ]
    return {"caption": caption, "head": head, "rows": rows, "links": links}


def _on_boundary(result: AnalysisResult) -> bool:
    """Whether the paper's caveat applies: a cluster-bootstrap interval lies on 0 or 1."""
    rates = [
        rate
        for row in result.adoption
        for rate in (row.a_t, row.a_p, row.a_before, row.a_after, row.a_absent)
        if rate.interval.method == "cluster_bootstrap"
    ]
    return any(r.interval.low in (0.0, 1.0) and r.interval.high in (0.0, 1.0) for r in rates)


def _funnel_total(rows: Sequence[TableRow]) -> list[str]:
    """The funnel's "all" row: every count summed, shown through the funnel's own columns."""
    funnel = [r for r in rows if isinstance(r, FunnelRow)]
    counts = {
        name: sum(getattr(r, name) for r in funnel)
        for name, info in FunnelRow.model_fields.items()
        if info.annotation is int
    }
    total = FunnelRow(operator="all", configuration="", **counts)
    return ["all", "", *(str(c.cell(total)) for c in PRESENTED["funnel"][1])]


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


CAPTIONS = {
    "adoption_overall": (
        "Per configuration, every operator's runs pooled: A_P and a_s per arrival stratum, "
        "dots with 95% intervals; at the right of each row, adopted / evaluable / clusters."
    ),
    "adoption_by_arrival": (
        "A_P and a_s per arrival stratum, one panel per operator, every panel on the same "
        "axes with the configurations in the same order; at the right of each row, adopted / "
        "evaluable / clusters. Empty strata keep their row (0/0/0, “n/a”). A_T is in the "
        "table."
    ),
    "q_u": (
        "q_U = P(T_E < T_U | A=1, P) per configuration with 95% intervals; at the right: "
        "adopted runs refuted before their first reliance / adopted runs / clusters."
    ),
    "reliance_gap": (
        "T_U − T_E per adopted run in P: negative when the agent relied on v′ before the "
        "refutation was complete, positive when it relied on v′ after it; the ∞ bucket "
        "holds adopted runs whose history never refuted v′."
    ),
}
TOC = (
    ("answer", "Answer"),
    ("adoption", "Per operator"),
    ("funnel", "Funnel"),
    ("arrival", "Arrival"),
    ("timing", "Reliance timing"),
    ("reformulation", "Reformulations"),
    ("stance", "Y_end"),
    ("noise", "Noise floor"),
    ("validation", "Validation"),
    ("methods", "Methods"),
    ("files", "Files"),
    ("trajectories", "Trajectories"),
)


def render_report(
    result: AnalysisResult,
    labels: Sequence[LabelView],
    figures: dict[str, bytes],
    files: TableFiles,
    figure_paths: dict[str, str],
    viewer_html: str | None,
    problems: Sequence[str] = (),
    models: dict[str, str] | None = None,
    validation: str | None = None,
    sections: Sequence[Section] = (),
) -> str:
    """The report page. ``viewer_html`` (the viewer's section) is embedded when given,
    otherwise :data:`TRAJECTORIES_FILE` is linked;
    ``models`` names each configuration's model and decoding (from its ledgers);
    ``validation`` is the rendered validation section (Tables II, III(b), V);
    ``sections`` are further sections, placed before the validation."""
    at = [k for k, _ in TOC].index("validation")
    toc = [*TOC[:at], *((x.id, x.title) for x in sections), *TOC[at:]]
    repetitions = "every repetition" if result.sensitivity == "all_repetitions" else "r0"
    controls = "included" if result.sensitivity == "controls_included" else "kept for arrival only"
    presented = ["funnel", "adoption", "arrival", "timing", "reformulation", "stance"]
    presented += ["stance_by_stratum", "noise"] + (["paired"] if result.paired else [])
    presented += ["channels"] if result.channels else []
    presented += ["domains"] if result.domains else []
    base = "#" if viewer_html is not None else f"{TRAJECTORIES_FILE}#"
    tables: dict[str, Any] = {name: table_view(result, name, base) for name in presented}
    tables.setdefault("paired", None)
    tables.setdefault("channels", None)
    tables.setdefault("domains", None)
    answer = [
        {
            "configuration": row.configuration,
            "triggered": row.triggered,
            "decidable": row.decidable,
            "population": row.population,
            "before": rate_view(row.adoption.a_before),
            "after": rate_view(row.adoption.a_after),
            "absent": rate_view(row.adoption.a_absent),
            "reading": row.reading,
            "link": runs_link(base, ALL_OPERATORS, row.configuration),
            "corrected": _corrected_cells(result, row.configuration),
        }
        for row in answer_rows(result)
    ]
    body = render(
        "report.html.j2",
        result=result,
        version=__version__,
        repetitions=repetitions,
        controls=controls,
        n_labels=len(labels),
        toc=toc,
        answer=answer,
        collapse=COLLAPSE_ROWS,
        viewer_href=f"{base}trajectories" if viewer_html is not None else TRAJECTORIES_FILE,
        how_to_read=Markup(HOW_TO_READ),
        problems=list(problems),
        configurations=configuration_view(result, models or {}, base),
        tables=tables,
        figures={
            name: {
                "name": name,
                "title": FIGURES[name][0],
                "caption": CAPTIONS[name],
                "src": data_uri(figures[name]),
                "path": figure_paths[name],
            }
            for name in CAPTIONS
        },
        boundary_note=_on_boundary(result),
        extra_sections=list(sections),
        validation=Markup(NOT_VALIDATED if validation is None else validation),
        methods=Markup(METHODS),
        files=[files.json, *files.csv.values(), *files.latex.values(), *figure_paths.values()],
        viewer=None if viewer_html is None else Markup(viewer_html),
        trajectories_file=TRAJECTORIES_FILE,
    )
    return page(f"SSCBench report — {result.sensitivity}", body)


def _corrected_cells(result: AnalysisResult, configuration: str) -> dict[str, str] | None:
    """The answer table's corrected line per stratum (None without a validation sample)."""
    rows = by_key(result)
    if result.validation is None:
        return None
    return {
        s: corrected_text(rows[(ALL_OPERATORS, configuration, s)])
        for s in ("before", "after", "absent")
        if (ALL_OPERATORS, configuration, s) in rows
    }


def correction_sections(result: AnalysisResult) -> list[Section]:
    """The corrected adoption and the labeller's error rates (or the note that nothing
    was corrected)."""
    return [Section("corrected", CORRECTION_TITLE, Markup(correction_section(result)))]


def trajectories_page(viewer_html: str) -> str:
    """The viewer's index as a standalone page (when there are too many runs to embed)."""
    body = render("trajectories.html.j2", report_file=REPORT_FILE, viewer=Markup(viewer_html))
    return page("SSCBench trajectories", body)


_HOLE = "\x00viewer\x00"
"""Where the viewer goes in :func:`trajectories_page` (no template or text holds a NUL)."""


def trajectories_page_parts(viewer_parts: Iterable[str]) -> Iterator[str]:
    """:func:`trajectories_page` in pieces: the page around the viewer, rendered once
    with a hole, and the viewer's pieces in the hole (the templates insert it verbatim),
    so a page of 100,000 runs is written without its text held whole (several copies of
    about 9 MB each, the last as bytes)."""
    before, after = trajectories_page(_HOLE).split(_HOLE)
    yield before
    yield from viewer_parts
    yield after


def _sections(
    labels: Sequence[LabelView],
    run_root: Path,
    seed: int,
    out_dir: Path,
    result: AnalysisResult | None = None,
) -> list[Section]:
    """The sections only some run sets have: task success and pass^k (an analysis given
    the clean runs), observation-contract labels (Expiry and Transport runs) and the
    arrival intervention (its arms' runs)."""
    out = []
    reliability = "" if result is None else reliability_section(result, COLLAPSE_ROWS)
    if reliability:
        out.append(Section("task-success", RELIABILITY_TITLE, Markup(reliability)))
    contracts = contract_label_section(labels)
    if contracts:
        out.append(Section("contracts", CONTRACTS_TITLE, Markup(contracts)))
    arrival = arrival_report_section(labels, run_root, seed, out_dir)
    if arrival is not None:
        out.append(Section("arrival-intervention", "Arrival intervention", Markup(arrival)))
    return out


def _write(path: Path, data: str | bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    if isinstance(data, bytes):
        tmp.write_bytes(data)
    else:
        tmp.write_text(data, encoding="utf-8", newline="\n")
    tmp.replace(path)


def _write_parts(path: Path, parts: Iterable[str]) -> None:
    """:func:`_write` of the text ``parts`` join to, written a piece at a time."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("w", encoding="utf-8", newline="\n") as fh:
        for part in parts:
            fh.write(part)
    tmp.replace(path)


def write_report(
    result: AnalysisResult,
    labels: Sequence[LabelView],
    run_root: Path,
    out_dir: Path,
    *,
    viewer: ViewerMode = "auto",
    ledgers: dict[str, Ledger] | None = None,
    full: Callable[[str], RunLabels | None] | None = None,
) -> ReportFiles:
    """Write the report, its tables and figures into ``out_dir``; return what was written.

    ``run_root`` is searched recursively for the runs' ledgers (by the run id in their
    header), each parsed once; pass ``ledgers`` to reuse already-loaded ones. ``viewer``
    embeds the viewer's index in ``report.html`` (``embed``), writes it to
    ``trajectories.html`` and links it (``link``), or embeds it up to
    :data:`EMBED_LIMIT_RUNS` runs (``auto``). The runs themselves are always in shard files.
    ``labels`` may be summaries (:class:`~sscbench.reconstruct.labels.LabelSummary`);
    then ``full`` reads each run's full labels for its page, one run at a time.

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
        files = _write_report_into(staging, result, labels, run_root, viewer, ledgers, full)
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
    labels: Sequence[LabelView],
    run_root: Path,
    viewer: ViewerMode,
    ledgers: dict[str, Ledger] | None,
    full: Callable[[str], RunLabels | None] | None = None,
) -> ReportFiles:
    order = run_order(labels)
    streamed = write_run_files(out_dir, order, run_root, ledgers, full)
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
    trajectories: str | None = None
    viewer_html: str | None = None
    if viewer == "link":
        trajectories = TRAJECTORIES_FILE
        _write_parts(
            out_dir / TRAJECTORIES_FILE, trajectories_page_parts(viewer_section_parts(order))
        )
    else:
        viewer_html = viewer_section(order)
    html = render_report(
        result,
        labels,
        figures,
        files,
        figure_paths,
        viewer_html,
        problems,
        streamed.models,
        validation_section(run_root),
        [*correction_sections(result), *_sections(labels, run_root, result.seed, out_dir, result)],
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
