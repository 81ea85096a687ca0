"""The HTML report: one self-contained file with figures, tables, methods and trajectories.

:func:`write_report` writes into ``out_dir``::

    report.html          figures (base64 SVG), funnel, every table, methods, viewer
    trajectories.html    the viewer on its own page, only when it is too big to embed
    analysis.json        the whole AnalysisResult (machine-readable)
    tables/<name>.csv    one CSV per table
    tables/<name>.tex    one booktabs LaTeX table per table
    figures/<name>.svg   the figures, for papers

The page loads nothing from anywhere: no CDN, no fonts, no fetches. A Content-Security-Policy
allows only ``data:`` images and the page's own inline style and script (by hash), so even
text that escaped escaping could not run. Run text is escaped in :mod:`viewer`. The output
carries no date or path, so the same inputs give the same bytes.
"""

from __future__ import annotations

import base64
import hashlib
import os
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from html import escape
from pathlib import Path
from typing import Literal

from sscbench import __version__
from sscbench.analysis.figures import FIGURES, data_uri, render_all
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
from sscbench.analysis.viewer import VIEWER_CSS, load_ledgers, render_viewer
from sscbench.errors import ConfigError
from sscbench.reconstruct.labels import RunLabels
from sscbench.runs.ledger import Ledger

REPORT_FILE = "report.html"
TRAJECTORIES_FILE = "trajectories.html"
REPORT_ENTRIES = frozenset({REPORT_FILE, TRAJECTORIES_FILE, JSON_FILE, "tables", "figures"})
"""What a report directory holds; anything else there means it is not one."""
EMBED_LIMIT_BYTES = 6_000_000
"""``viewer="auto"`` embeds the trajectories when their ledgers total at most this much."""

ViewerMode = Literal["auto", "embed", "link"]

PAGE_CSS = """
:root{color-scheme:light}
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;
 color:#1a1a1a;background:#fafafa}
header,main{max-width:1180px;margin:0 auto;padding:0 1.2em}
header{padding-top:1em}
h1{font-size:1.5em;margin:.3em 0}
h2{font-size:1.2em;margin-top:2em;border-bottom:1px solid #ddd;padding-bottom:.2em}
h3{font-size:1.05em}
nav.toc{font-size:.9em} nav.toc a{margin-right:1em}
.meta{color:#555;font-size:.9em}
.note{color:#444;font-size:.9em;max-width:60em}
figure{margin:1em 0;background:#fff;border:1px solid #e3e3e3;padding:.5em;overflow-x:auto}
figure img{max-width:100%;height:auto;display:block}
figcaption{font-size:.85em;color:#444;margin-top:.4em}
.table-wrap{overflow-x:auto}
table.data{border-collapse:collapse;font-size:.85em;background:#fff;margin:.5em 0}
table.data th,table.data td{border-bottom:1px solid #e5e5e5;padding:.25em .6em;
 text-align:right;vertical-align:top}
table.data th{border-bottom:2px solid #999;background:#f3f3f3}
table.data td.key,table.data th.key{text-align:left;font-family:ui-monospace,monospace}
table.data tr.total td{border-top:2px solid #999;font-weight:600}
.v{font-weight:600}.ci{color:#555}.n{color:#777;font-size:.9em;font-family:ui-monospace,monospace}
.empty{color:#999}
.files li{font-family:ui-monospace,monospace;font-size:.9em}
dl.defs dt{font-weight:600;margin-top:.6em} dl.defs dd{margin-left:1.2em}
.controls{margin:.5em 0} .controls input,.controls select,.controls button{font-size:.9em}
.problems{color:#8a1c1c}
"""

PAGE_SCRIPT = """(function () {
  "use strict";
  var text = document.getElementById("run-filter");
  var klass = document.getElementById("run-class");
  function apply() {
    var q = text ? text.value.toLowerCase() : "";
    var c = klass ? klass.value : "";
    var groups = document.querySelectorAll("details.runs-group");
    for (var g = 0; g < groups.length; g++) {
      var runs = groups[g].querySelectorAll("details.run");
      var shown = 0;
      for (var i = 0; i < runs.length; i++) {
        var r = runs[i];
        var label = r.querySelector("summary").textContent.toLowerCase();
        var ok = !q || label.indexOf(q) >= 0;
        if (c === "adopted") { ok = ok && r.getAttribute("data-adopted") === "true"; }
        else if (c) { ok = ok && r.getAttribute("data-zs") === c; }
        r.hidden = !ok;
        if (ok) { shown++; }
      }
      groups[g].hidden = shown === 0;
      if (q || c) { groups[g].open = shown > 0; }
    }
  }
  if (text) { text.addEventListener("input", apply); }
  if (klass) { klass.addEventListener("change", apply); }
  function setAll(open) {
    var all = document.querySelectorAll("details.runs-group, details.run");
    for (var i = 0; i < all.length; i++) { if (!all[i].hidden) { all[i].open = open; } }
  }
  var expand = document.getElementById("expand-all");
  var collapse = document.getElementById("collapse-all");
  if (expand) { expand.addEventListener("click", function () { setAll(true); }); }
  if (collapse) { collapse.addEventListener("click", function () { setAll(false); }); }
  function openHash() {
    var id = decodeURIComponent(window.location.hash.slice(1));
    if (!id) { return; }
    var el = document.getElementById(id);
    if (!el || el.tagName !== "DETAILS") { return; }
    for (var p = el; p; p = p.parentElement) { if (p.tagName === "DETAILS") { p.open = true; } }
    el.scrollIntoView();
  }
  window.addEventListener("hashchange", openHash);
  openHash();
})();
"""


def _csp_hash(text: str) -> str:
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return "'sha256-" + base64.b64encode(digest).decode("ascii") + "'"


def content_security_policy(style: str, script: str) -> str:
    """Nothing external; only ``data:`` images and this page's own style and script."""
    return (
        "default-src 'none'; "
        "img-src data:; "
        f"style-src {_csp_hash(style)}; "
        f"script-src {_csp_hash(script)}; "
        "base-uri 'none'; form-action 'none'"
    )


def page(title: str, body: str) -> str:
    """A complete self-contained HTML document around ``body`` (already escaped HTML)."""
    style = PAGE_CSS + VIEWER_CSS
    csp = content_security_policy(style, PAGE_SCRIPT)
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{escape(csp)}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<meta name="referrer" content="no-referrer">'
        '<link rel="icon" href="data:,">'
        f"<title>{escape(title)}</title>"
        f"<style>{style}</style></head>\n<body>\n{body}\n"
        f"<script>{PAGE_SCRIPT}</script>\n</body></html>\n"
    )


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


def model_of(ledger: Ledger) -> str:
    """Model and decoding of a run's agent, as its ledger header records them."""
    params = ledger.header.agent.params
    parts = [str(params["model"])] if params.get("model") else [ledger.header.agent.name]
    for key in ("temperature", "top_p", "max_tokens"):
        if key in params:
            parts.append(f"{key}={params[key]}")
    return ", ".join(parts)


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


# --------------------------------------------------------------------------- methods

METHODS = """
<p class="note">These are the definitions of the measurement document (docs/measurement.md §2,
§6) in plain words. Step numbers count the items of the model-visible history from 0, in the order
the model received them; the trajectory viewer shows the same numbering.</p>
<dl class="defs">
<dt>Injected fault</dt>
<dd>One tool interaction is altered so that it tells the agent something false (v′) about one
fact (an entity, an attribute and a scope — for writes, the claimed effect of one request),
while the real environment says otherwise (v). The observation carrying v′ is the
<em>fault-bearing observation</em>. A run is <em>triggered</em> when the intervention took
effect and that observation was delivered to the model.</dd>
<dt>Model-visible history</dt>
<dd>User and agent messages, tool calls and tool results in the agent's context. Hidden state
and the intervention log are not part of it and never count as evidence.</dd>
<dt>Dependent use</dt>
<dd>An agent message, tool call or hand-off whose content or arguments depend on the affected
fact — correct, hedged and wrong uses all count, derived values too. Merely looking the fact
up is not a use.</dd>
<dt>Erroneous reliance and adoption</dt>
<dd>A dependent use that treats the false value (or something derived from it) as true.
Quoting v′ only to check it is not reliance. A run <em>adopts</em> (A = 1) when it contains
at least one erroneous reliance.</dd>
<dt>Valid refutation</dt>
<dd>An observation, or a set of them, that contradicts v′ and is (1) at least as
authoritative as the fault-bearing source, (2) about the same entity, (3) about the same
scope, (4) untouched by the intervention and (5) enough, with what the task and tools tell
the agent, to contradict v′. Knowledge only the evaluator has never counts; the agent's own
text never refutes.</dd>
<dt>Event times</dt>
<dd><b>T_F</b>: the fault-bearing observation is delivered. <b>T_E</b>: the earliest step at
which a valid refutation is completely in the history (its last required piece; it may come
before T_F; ∞ if never; undecidable if it cannot be determined). <b>T_S</b>: the first
dependent use after the fault — the primary anchor, defined whether or not the run adopts.
<b>T_U</b>: the first erroneous reliance. When decidable, T_F &lt; T_S ≤ T_U. “No dependent
use” is a finding, not the same as “T_S undecidable”.</dd>
<dt>Arrival class Z_S</dt>
<dd>For an included, triggered run with a decidable first use: <em>before</em> if the
refutation was complete before the first use (T_E &lt; T_S), <em>after</em> if it arrived
later (T_S &lt; T_E &lt; ∞), <em>absent</em> if it never arrived (T_E = ∞). An undecidable
arrival is never filed as absent, and a run with no dependent use gets no arrival class.</dd>
<dt>Revealability and inclusion (case level)</dt>
<dd>A case is <em>included</em> only when its fault is valid and a <em>witness</em> exists: a
legal continuation from the moment of the fault, in the same faulted environment, using only
what the agent could see, in which the refutation arrives before the first use. A clean run is
never a witness. No witness means <em>unresolved</em>, not “unrevealable”.</dd>
<dt>Populations and claims</dt>
<dd>The funnel narrows scheduled runs to observed, triggered, runs whose first use is
decidable, and the analysis population <b>P</b>: non-control runs of the primary repetition
with a dependent use and a decidable arrival class. Runs in which the agent never used the
fact have no arrival class; they are counted in their own column (<em>no use</em>), not in P.
<b>A_T</b> is adoption among triggered runs, <b>A_P</b> adoption within P, and <b>a_s</b>
adoption within each arrival stratum s of P, so A_P adds up over the three strata.
Target-value controls (v′ is the value the task asks for) count for arrival only, never for
the primary adoption. The reformulation
table splits adoption into adoption with eventual refutation (A = 1 and T_E &lt; ∞) and
adoption with pre-use refutation (A = 1 and T_E &lt; T_S). Among adopted runs,
<b>q_U</b> = P(T_E &lt; T_U | A = 1, P) is the share in which the refutation was complete before
the first erroneous reliance; runs with T_S &lt; T_E &lt; T_U are counted separately.
<b>Y_end</b> is the last decided, unreplaced explicit stance on v′ in an adopted run (endorse,
retract or undecidable); it is not evidence of repair.</dd>
<dt>Intervals and counts</dt>
<dd>Every share is shown with its 95% interval and its counts
<em>numerator / denominator / clusters</em>. Intervals are Wilson (W) when every contributing
cluster gives one run, otherwise a cluster bootstrap over entity clusters (B). A share on 0/0
is shown as “–” with 0/0/0: empty strata are kept visible, never dropped.</dd>
<dt>Noise floor and comparisons</dt>
<dd>Per configuration, the number of seed–configuration pairs whose arrival class changes
across repetitions is reported beside the claims. Comparisons between strata are
descriptive: the arrival class is observed, not assigned, so a difference between strata is
not a causal effect of arrival.</dd>
</dl>
"""

HOW_TO_READ = """
<p class="note">Read adoption <em>by arrival</em>: a run that adopted although a valid
refutation was already in its history (stratum <em>before</em>) is a different finding from a
run that never saw one (<em>absent</em>). Every number carries the population it was computed
on — check the counts under each bar before comparing bars, and the noise floor before
reading differences between configurations.</p>
"""


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


def _viewer_controls() -> str:
    options = "".join(
        f'<option value="{v}">{label}</option>'
        for v, label in (
            ("", "all runs"),
            ("adopted", "adopted"),
            ("before", "Z_S = before"),
            ("after", "Z_S = after"),
            ("absent", "Z_S = absent"),
            ("none", "no dependent use"),
            ("undecidable", "Z_S undecidable"),
        )
    )
    return (
        '<div class="controls"><label>filter <input id="run-filter" type="search" '
        'placeholder="run id, case, agent"></label> '
        f'<select id="run-class" aria-label="run class">{options}</select> '
        '<button type="button" id="expand-all">expand all</button> '
        '<button type="button" id="collapse-all">collapse all</button></div>'
    )


def _viewer_intro(n_runs: int) -> str:
    return (
        f'<p class="note">{n_runs} labelled runs. Each run lists its numbered model-visible '
        "history; markers show T_F (fault delivered), T_E (refutation complete), T_S (first "
        "dependent use) and T_U (first erroneous reliance), plus the evidence steps behind "
        "them and every classified use. All model, user and tool text is shown as plain "
        "text.</p>"
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
    """The report page. ``viewer_html`` is embedded when given, otherwise linked;
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
    nav = "".join(f'<a href="#{k}">{escape(v)}</a>' for k, v in toc)
    repetitions = "every repetition" if result.sensitivity == "all_repetitions" else "r0"
    meta = (
        f"sensitivity: <b>{escape(result.sensitivity)}</b> · population: {repetitions} of each "
        "configuration, target-value controls "
        f"{'included' if result.sensitivity == 'controls_included' else 'kept for arrival only'}"
        f" · bootstrap B = "
        f"{result.bootstrap_replicates} · seed {result.seed} · analysis schema "
        f"{result.schema_version} · {len(labels)} labelled runs · sscbench {escape(__version__)}"
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
    parts.append(_viewer_intro(len(labels)))
    if viewer_html is not None:
        parts.append(_viewer_controls() + viewer_html)
    else:
        parts.append(
            f'<p>The trajectories are on their own page: <a href="{TRAJECTORIES_FILE}">'
            f"{TRAJECTORIES_FILE}</a> (too large to embed here).</p>"
        )
    parts.append("</section></main>")
    return page(f"SSCBench report — {result.sensitivity}", "".join(parts))


def trajectories_page(labels: Sequence[RunLabels], viewer_html: str) -> str:
    """The viewer as a standalone page (used when it is too big to embed)."""
    body = (
        "<header><h1>SSCBench trajectories</h1>"
        f'<p class="meta"><a href="{REPORT_FILE}">back to the report</a></p></header>'
        f"<main>{_viewer_intro(len(labels))}{_viewer_controls()}{viewer_html}</main>"
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
    header); pass ``ledgers`` to reuse already-loaded ones. ``viewer`` embeds the trajectory
    viewer in ``report.html`` (``embed``), writes it to ``trajectories.html`` and links it
    (``link``), or embeds it when the ledgers total at most :data:`EMBED_LIMIT_BYTES`
    (``auto``).

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
    problems: list[str] = []
    if ledgers is None:
        ledgers = load_ledgers(run_root, problems)
    missing = [x.run_id for x in labels if x.run_id not in ledgers]
    if missing:
        problems.append(
            f"{len(missing)} labelled runs have no readable ledger under the run directory "
            f"(first: {missing[0]})"
        )
    files = write_tables(result, out_dir)
    figures = render_all(result)
    figure_paths = {name: f"figures/{name}.svg" for name in figures}
    for name, svg in figures.items():
        _write(out_dir / figure_paths[name], svg)
    viewer_html = render_viewer(labels, ledgers)
    if viewer == "auto":
        size = sum(ledgers[x.run_id].path.stat().st_size for x in labels if x.run_id in ledgers)
        viewer = "embed" if size <= EMBED_LIMIT_BYTES else "link"
    trajectories: str | None = None
    if viewer == "link":
        trajectories = TRAJECTORIES_FILE
        _write(out_dir / TRAJECTORIES_FILE, trajectories_page(labels, viewer_html))
    models: dict[str, str] = {}
    for label in labels:
        configuration = label.configuration or label.agent
        if configuration not in models and label.run_id in ledgers:
            models[configuration] = model_of(ledgers[label.run_id])
    html = render_report(
        result,
        labels,
        figures,
        files,
        figure_paths,
        viewer_html if viewer == "embed" else None,
        problems,
        models,
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
