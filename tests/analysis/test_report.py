"""The report offline: escaping, table round-trips, deterministic figures, empty strata kept.

Inputs are hand-made: ``tests/fixtures/analysis`` holds a few real scripted runs (ledgers
and labels from ``sscbench demo``), one of them with a script-injection string planted in an
agent message and a tool observation, and a hand-computed ``analysis.json``.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from sscbench.analysis import figures, tables
from sscbench.analysis import report as report_module
from sscbench.analysis.report import (
    REPORT_FILE,
    TRAJECTORIES_FILE,
    content_security_policy,
    write_report,
)
from sscbench.analysis.results import AdoptionRow, AnalysisResult, Interval, Rate
from sscbench.analysis.viewer import load_ledgers, run_file, run_order, run_payload, step_marks
from sscbench.analysis.viewer.index import INDEX_ID
from sscbench.analysis.viewer.shards import SHARD, read_shard, shard_file
from sscbench.cli import report as report_cmd
from sscbench.reconstruct.labels import RunLabels, read_labels

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "analysis"
RUNS = FIXTURE / "runs"
INJECTION = 'Done. <script>alert(1)</script> " onerror="alert(2)" <img src=x onerror=alert(3)>'


def _result() -> AnalysisResult:
    return AnalysisResult.model_validate_json((FIXTURE / "analysis.json").read_text())


def _labels() -> list[RunLabels]:
    return read_labels(FIXTURE / "labels.jsonl")


def _injected_run() -> str:
    return (FIXTURE / "injected_run.txt").read_text().strip()


EMPTY = Rate(
    numerator=0,
    denominator=0,
    clusters=0,
    value=None,
    interval=Interval(low=None, high=None, method="none"),
)


def _rate(k: int, n: int, c: int, low: float, high: float, method: str = "wilson") -> Rate:
    return Rate(
        numerator=k,
        denominator=n,
        clusters=c,
        value=k / n,
        interval=Interval.model_validate({"low": low, "high": high, "method": method}),
    )


_SVG_CACHE: dict[str, dict[str, bytes]] = {}


def _cached_render_all(result: AnalysisResult) -> dict[str, bytes]:
    key = result.model_dump_json()
    if key not in _SVG_CACHE:
        _SVG_CACHE[key] = figures.render_all(result)
    return _SVG_CACHE[key]


@pytest.fixture(autouse=True, scope="module")
def _reuse_figures() -> Iterator[None]:
    """Figures are deterministic (tested below), so reports of one result share them."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(report_module, "render_all", _cached_render_all)
        yield


@pytest.fixture(scope="module")
def report_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("report")
    write_report(_result(), _labels(), RUNS, out, viewer="embed")
    return out


@pytest.fixture(scope="module")
def html(report_dir: Path) -> str:
    return (report_dir / REPORT_FILE).read_text(encoding="utf-8")


# --------------------------------------------------------------------------- escaping


def test_fixture_really_carries_the_injection() -> None:
    ledger = (RUNS / _injected_run() / "ledger.jsonl").read_text()
    assert json.dumps(INJECTION)[1:-1] in ledger


def _run_files(report_dir: Path) -> dict[int, dict[str, object]]:
    """Every run's payload by index row, from the shard files: each checked to be one call
    of the page's callback with JSON literals (data only: no other code can be in it),
    named after its shard and holding exactly that shard's rows."""
    out: dict[int, dict[str, object]] = {}
    for path in sorted((report_dir / "runs").rglob("*.js")):
        k, rows = read_shard(path.read_text(encoding="utf-8"))
        assert path.relative_to(report_dir).as_posix() == shard_file(k)
        assert list(rows) == list(range(k * SHARD, k * SHARD + len(rows)))
        assert all(run_file(n) == shard_file(k) for n in rows)
        out.update(rows)
    return out


def test_run_text_is_data_never_markup(report_dir: Path, html: str) -> None:
    assert "alert(" not in html  # run text is not in the page at all
    payloads = _run_files(report_dir)
    assert len(payloads) == len({x.run_id for x in _labels()})
    (injected,) = [p for p in payloads.values() if p["id"] == _injected_run()]
    texts = [e[3] for e in injected["events"]]  # type: ignore[attr-defined]
    assert texts.count(INJECTION) == 1  # the agent message, verbatim
    assert sum(INJECTION in t for t in texts) == 2  # and inside the tool observation


def test_index_cannot_be_closed_by_run_text(tmp_path: Path) -> None:
    evil = _labels()[0].model_copy(update={"run_id": "x</script><script>alert(1)</script>"})
    write_report(_result(), [evil], RUNS, tmp_path, viewer="embed")
    page = (tmp_path / REPORT_FILE).read_text()
    data = page.split(f'id="{INDEX_ID}">')[1].split("</script>")[0]
    assert "<" not in data and json.loads(data)["runs"][0][0] == evil.run_id


def test_no_python_literals_reach_the_page(report_dir: Path, html: str) -> None:
    pattern = re.compile(r"\b(None|True|False)\b")
    data = html.split(f'id="{INDEX_ID}">')[1].split("</script>")[0]
    assert not pattern.search(data)
    for payload in _run_files(report_dir).values():
        for key, value in payload["meta"]:  # type: ignore[attr-defined]
            assert not pattern.search(value), (key, value)


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def test_page_structure_has_no_injected_elements_or_handlers(html: str) -> None:
    parser = _Collector()
    parser.feed(html)
    scripts = [a for t, a in parser.tags if t == "script"]
    code = [a for a in scripts if a.get("type") != "application/json"]
    assert code == [{}]  # only the page's own inline script; the index is JSON data
    assert len(scripts) == 2
    for tag, attrs in parser.tags:
        assert not any(k.startswith("on") for k in attrs), (tag, attrs)
        if tag == "img":
            assert (attrs.get("src") or "").startswith("data:image/svg+xml;base64,")


def test_no_external_resources(html: str) -> None:
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html)
    assert "@import" not in html and "url(" not in html
    csp = content_security_policy("a", "b")
    assert "default-src 'none'" in csp and "img-src data:" in csp
    assert 'http-equiv="Content-Security-Policy"' in html


def test_names_in_tables_are_escaped_in_html_and_latex(tmp_path: Path) -> None:
    result = _result()
    evil = result.model_copy(
        update={
            "adoption": tuple(
                row.model_copy(update={"configuration": "<b>x</b>_50%&$"})
                for row in result.adoption
            )
        }
    )
    write_report(evil, [], RUNS, tmp_path, viewer="embed")
    page = (tmp_path / REPORT_FILE).read_text()
    assert "<b>x</b>" not in page and "&lt;b&gt;x&lt;/b&gt;_50%&amp;$" in page
    tex = (tmp_path / "tables" / "adoption.tex").read_text()
    assert r"\textless{}b\textgreater{}x\textless{}/b\textgreater{}\_50\%\&\$" in tex


# --------------------------------------------------------------------------- tables


def test_json_round_trip(report_dir: Path) -> None:
    text = (report_dir / tables.JSON_FILE).read_text()
    assert AnalysisResult.model_validate_json(text) == _result()


def test_csv_round_trip(report_dir: Path) -> None:
    assert tables.read_tables(report_dir, _result()) == _result()


def test_csv_round_trip_keeps_awkward_values(tmp_path: Path) -> None:
    row = AdoptionRow(
        operator='op,with "quotes"',
        configuration="conf\nnewline",
        a_t=_rate(1, 3, 2, 0.061490484, 0.79234, "cluster_bootstrap"),
        a_p=_rate(2, 7, 7, 1 / 3, 2 / 3),
        a_before=EMPTY,
        a_after=EMPTY,
        a_absent=Rate(
            numerator=0,
            denominator=4,
            clusters=1,
            value=0.0,
            interval=Interval(low=0.0, high=None, method="none"),
        ),
    )
    result = _result().model_copy(update={"adoption": (row,)})
    tables.write_tables(result, tmp_path)
    assert tables.read_csv_table(tmp_path / "tables" / "adoption.csv", "adoption") == [row]
    assert tables.read_tables(tmp_path, result) == result


def test_csv_columns_and_gaps(report_dir: Path) -> None:
    header = (report_dir / "tables" / "adoption.csv").read_text().splitlines()[0]
    assert header.startswith("operator,configuration,a_t.numerator,a_t.denominator")
    assert "a_absent.interval.method" in header
    timing = (report_dir / "tables" / "timing.csv").read_text()
    assert '"[null, null, null, null]"' in timing  # T_E = ∞ for every adopted run


def test_latex_tables_are_booktabs(report_dir: Path) -> None:
    for name in tables.TABLE_MODELS:
        tex = (report_dir / "tables" / f"{name}.tex").read_text()
        assert "\\toprule" in tex and "\\midrule" in tex and "\\bottomrule" in tex
        assert tex.count("\\begin{tabular}") == 1 and tex.count("\\end{tabular}") == 1
        body = tex.split("\\midrule")[1].split("\\bottomrule")[0]
        columns = len(tables.PRESENTED[name][1]) + 2
        for line in body.strip().splitlines():
            if "(no rows)" in line:  # an empty table (no paired checks in the fixture)
                assert f"\\multicolumn{{{columns}}}" in line and name == "paired", line
            elif line.strip() != "\\addlinespace":
                assert line.count(" & ") == columns - 1, line
    adoption = (report_dir / "tables" / "adoption.tex").read_text()
    assert "-- {\\scriptsize 0/0/0}" in adoption


# --------------------------------------------------------------------------- figures


def test_figures_are_deterministic_within_and_across_processes() -> None:
    result = _result()
    first = _cached_render_all(result)
    assert figures.render_svg(result, "adoption_by_arrival") == first["adoption_by_arrival"]
    assert figures.render_svg(result, "reliance_gap") == first["reliance_gap"]
    for svg in first.values():
        assert svg.startswith(b"<?xml") and b"<dc:date>" not in svg
    code = (
        "import sys, hashlib;"
        "from pathlib import Path;"
        "from sscbench.analysis import figures;"
        "from sscbench.analysis.results import AnalysisResult;"
        "r = AnalysisResult.model_validate_json(Path(sys.argv[1]).read_text());"
        "print(hashlib.sha256(figures.render_svg(r, 'adoption_by_arrival')).hexdigest())"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(FIXTURE / "analysis.json")],
        capture_output=True,
        text=True,
        check=True,
    )
    import hashlib

    assert out.stdout.strip() == hashlib.sha256(first["adoption_by_arrival"]).hexdigest()


def test_figures_are_written_and_embedded(report_dir: Path, html: str) -> None:
    for name in figures.FIGURES:
        svg = (report_dir / "figures" / f"{name}.svg").read_bytes()
        assert figures.data_uri(svg) in html


def _texts(fig: object, gid: str) -> list[list[str]]:
    """Per panel that is drawn, its texts of one kind (``count`` labels, ``group`` names)."""
    from matplotlib.figure import Figure

    assert isinstance(fig, Figure)
    return [[t.get_text() for t in ax.texts if t.get_gid() == gid] for ax in fig.axes if ax.axison]


def test_empty_strata_are_shown_as_zero_counts() -> None:
    result = _result()
    fig = figures.adoption_figure(result)
    by_op: dict[str, list[AdoptionRow]] = {}
    for row in result.adoption:
        by_op.setdefault(row.operator, []).append(row)
    configurations = sorted({r.configuration for r in result.adoption})
    counts = _texts(fig, "count")
    assert len(counts) == len(by_op)  # one panel per operator, none dropped
    for panel, rows in zip(counts, by_op.values(), strict=True):
        own = {r.configuration: r for r in rows}
        expected = [
            figures.counts_label(rate) if c in own else "0/0/0"
            for c in configurations
            for rate in (
                (own[c].a_p, own[c].a_before, own[c].a_after, own[c].a_absent)
                if c in own
                else (None,) * 4
            )
        ]
        assert panel == expected  # four rows per configuration, in every panel
    assert all(g == configurations for g in _texts(fig, "group"))  # comparable panels
    # pay_source × scripted:gold never triggered: every row is there, as 0/0/0.
    gold = configurations.index("scripted:gold")
    assert counts[list(by_op).index("pay_source")][4 * gold : 4 * gold + 4] == ["0/0/0"] * 4
    na = [t.get_text() for ax in fig.axes for t in ax.texts if t.get_text() == "n/a"]
    empties = sum(
        rate.value is None
        for r in result.adoption
        for rate in (r.a_p, r.a_before, r.a_after, r.a_absent)
    )
    assert len(na) == empties > 0


@pytest.mark.parametrize("name", sorted(figures.FIGURES))
def test_figure_labels_are_horizontal_and_at_least_11_px(name: str) -> None:
    """At the figure's natural size (1 pt = 4/3 px), no text of a figure is under 11 px or
    rotated: the report shows every figure at that size."""
    import matplotlib

    result = _result()
    with matplotlib.rc_context(figures.RC):
        fig = figures.FIGURES[name][1](result)
        texts = [t for t in fig.findobj(matplotlib.text.Text) if t.get_text().strip()]
    assert texts
    for text in texts:
        assert text.get_rotation() == 0, (name, text.get_text())
        assert text.get_fontsize() * 4 / 3 >= 11, (name, text.get_text(), text.get_fontsize())


def test_empty_strata_in_html_table(html: str) -> None:
    table = html.split('id="table-adoption"')[1].split("</table>")[0]
    rows = table.split("<tr>")[2:]
    assert len(rows) == len(_result().adoption)
    assert all(row.count('<td class="key">') == 3 for row in rows)  # operator, config, runs
    assert table.count('<span class="n">0/0/0</span>') == sum(
        rate.denominator == 0
        for r in _result().adoption
        for rate in (r.a_t, r.a_p, r.a_before, r.a_after, r.a_absent)
    )


def test_titles_are_where_automatic_placement_puts_them(monkeypatch: pytest.MonkeyPatch) -> None:
    """Panel titles are placed at y=1.0, which spares matplotlib its automatic placement (a
    pass over every y tick label per panel): every figure has the same bytes as with the
    automatic placement, also with a gap bar of over a million runs, whose y offset text
    ("1e6") above the panel moves an automatic title up."""
    from matplotlib.axes import Axes

    from sscbench.analysis.quantities import POOLED

    result = _result()
    rows = list(result.timing)
    k = next(i for i, row in enumerate(rows) if row.configuration != POOLED)
    rows[k] = rows[k].model_copy(update={"gaps": (*[0] * 1_200_000, 3, None)})
    tall = result.model_copy(update={"timing": tuple(rows)})
    cases = [(result, name) for name in figures.FIGURES] + [(tall, "reliance_gap")]
    explicit = [figures.render_svg(r, name) for r, name in cases]
    set_title = Axes.set_title

    def automatic(self: Axes, *args: Any, y: float | None = None, **kwargs: Any) -> Any:
        return set_title(self, *args, **kwargs)

    monkeypatch.setattr(Axes, "set_title", automatic)
    assert [figures.render_svg(r, name) for r, name in cases] == explicit


def _saved(fig: Any) -> bytes:
    """The figure as ``savefig`` writes it under the figures' settings."""
    import io

    import matplotlib

    buf = io.BytesIO()
    with matplotlib.rc_context(figures.RC):
        fig.savefig(buf, format="svg", metadata=figures.SVG_METADATA)
    return buf.getvalue()


def test_one_draw_gives_savefigs_bytes() -> None:
    """The figures are drawn once, the layout engine borrowing the writing renderer: the
    bytes are ``savefig``'s (which draws twice) for every figure of a full, an empty and a
    result whose gap bar carries an offset text; and the figure is left at its own dpi."""
    import matplotlib

    result = _result()
    empty = result.model_copy(
        update={k: () for k in ("funnel", "arrival", "adoption", "timing", "reformulation")}
    )
    rows = list(result.timing)
    rows[0] = rows[0].model_copy(update={"gaps": (*[0] * 1_200_000, 3, None)})
    tall = result.model_copy(update={"timing": tuple(rows)})
    for r in (result, empty, tall):
        for name, (_, draw) in figures.FIGURES.items():
            with matplotlib.rc_context(figures.RC):
                ours, theirs = draw(r), draw(r)
            dpi = ours.dpi
            assert figures.svg_bytes(ours) == _saved(theirs), name
            assert ours.dpi == dpi


def test_figures_of_an_empty_result_still_render() -> None:
    empty = _result().model_copy(
        update={k: () for k in ("funnel", "arrival", "adoption", "timing", "reformulation")}
    )
    for svg in figures.render_all(empty).values():
        assert svg.startswith(b"<?xml")


def test_gap_buckets() -> None:
    small = figures.gap_buckets([-2, 3, None, 3])
    assert small.labels == ["-2", "-1", "0", "1", "2", "3", "∞"]
    assert [small.index(g) for g in (-2, 3, None)] == [0, 5, 6]
    wide = figures.gap_buckets([-5, 200])
    assert len(wide.labels) <= figures.GAP_MAX_BUCKETS + 1
    assert wide.index(200) == len(wide.bins) - 1 and wide.labels[-1] == "∞"
    assert figures.gap_buckets([]).labels == ["0", "∞"]


# --------------------------------------------------------------------------- viewer


def test_viewer_marks_event_times() -> None:
    ledgers = load_ledgers(RUNS)
    labels = {x.run_id: x for x in _labels()}
    assert set(ledgers) == set(labels)
    run_id = _injected_run()
    lab = labels[run_id]
    payload = run_payload(run_id, ledgers[run_id], lab)
    by_step = {e[0]: e for e in payload["events"]}
    assert list(by_step) == list(range(len(ledgers[run_id].events)))
    for name in ("t_f", "t_e", "t_s", "t_u"):
        step = getattr(lab, name).step
        assert step is not None
        assert f"m-{name}" in [t[0] for t in by_step[step][4]]
    marks = step_marks(lab)
    assert set(marks.uses) == {int(str(u["step"])) for u in lab.uses}
    meta = dict(payload["meta"])
    fault = ledgers[run_id].header.fault or {}
    assert meta["true v"] == fault["authoritative_value"]
    assert meta["injected v′"] == fault["injected_value"]


def test_viewer_link_mode_and_auto(tmp_path: Path) -> None:
    files = write_report(_result(), _labels(), RUNS, tmp_path, viewer="link")
    assert files.trajectories == TRAJECTORIES_FILE
    page = (tmp_path / REPORT_FILE).read_text()
    traj = (tmp_path / TRAJECTORIES_FILE).read_text()
    assert f'href="{TRAJECTORIES_FILE}"' in page and f'id="{INDEX_ID}"' not in page
    index = json.loads(traj.split(f'id="{INDEX_ID}">')[1].split("</script>")[0])
    assert [r[0] for r in index["runs"]] == [x.run_id for x in run_order(_labels())]
    files = write_report(_result(), _labels(), RUNS, tmp_path)  # auto: small, so embedded
    assert files.trajectories is None and not (tmp_path / TRAJECTORIES_FILE).exists()


def test_linked_index_is_written_a_row_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The trajectories page of ``--viewer link`` (every large run set) is the page the
    whole viewer text gave, byte for byte, written from pieces: the section is never built
    whole and each row is encoded as it is written (at 100,000 runs the whole text and its
    rows were about 80 MiB at once)."""
    from sscbench.analysis.viewer import index

    evil = _labels()[0].model_copy(update={"run_id": "x</script>&<b>"})
    labels = [evil, *_labels()[1:]]
    order = run_order(labels)
    whole = report_module.trajectories_page(index.viewer_section(order))
    assert index.index_json(index.index_document(order)) in whole
    calls: list[str] = []
    monkeypatch.setattr(report_module, "viewer_section", lambda o: calls.append("whole") or "")
    write_report(_result(), labels, RUNS, tmp_path, viewer="link")
    assert calls == []
    assert (tmp_path / TRAJECTORIES_FILE).read_text(encoding="utf-8") == whole
    encoded: list[object] = []
    real = index._dumps
    monkeypatch.setattr(index, "_dumps", lambda v: encoded.append(v) or real(v))
    parts = index.index_json_parts(order)
    while not next(parts).startswith(',"runs"'):
        pass
    before = len(encoded)
    assert next(parts).startswith('["')  # the first row
    assert len(encoded) == before + 1  # encoded as it is yielded, not all rows first


def test_missing_ledgers_are_reported_not_fatal(tmp_path: Path) -> None:
    files = write_report(_result(), _labels(), tmp_path, tmp_path / "out", viewer="embed")
    assert files.problems and "no readable ledger" in files.problems[0]
    payloads = _run_files(tmp_path / "out")
    assert all(
        p.get("missing") == "ledger not found under the run directory" for p in payloads.values()
    )


def test_each_ledger_is_parsed_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from sscbench.analysis.viewer import runfiles

    parsed: list[Path] = []
    real = runfiles.read_ledger

    def counting(path: Path) -> object:
        parsed.append(path)
        return real(path)

    monkeypatch.setattr(runfiles, "read_ledger", counting)
    write_report(_result(), _labels(), RUNS, tmp_path, viewer="link")
    assert sorted(parsed) == sorted(RUNS.rglob("ledger.jsonl"))


def test_report_is_deterministic(tmp_path: Path, report_dir: Path, html: str) -> None:
    write_report(_result(), _labels(), RUNS, tmp_path, viewer="embed")
    assert (tmp_path / REPORT_FILE).read_text() == html
    assert _run_files(tmp_path) == _run_files(report_dir)
    for path in (report_dir / "runs").rglob("*.js"):
        assert (tmp_path / path.relative_to(report_dir)).read_bytes() == path.read_bytes()


def test_methods_section_defines_the_quantities(html: str) -> None:
    methods = html.split('id="methods"')[1].split("</section>")[0]
    for term in ("T_F", "T_E", "T_S", "T_U", "Z_S", "A_T", "A_P", "q_U", "Y_end", "witness"):
        assert term in methods
    assert "Wilson" in methods and "cluster bootstrap" in methods and "0/0/0" in methods


# --------------------------------------------------------------------------- CLI


def _cli(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    report_cmd.register(parser.add_subparsers())
    args = parser.parse_args(["report", *argv])
    code: int = args.handler(args)
    return code


def test_cli_with_saved_analysis(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "rep"
    code = _cli(
        [
            str(RUNS),
            "--labels",
            str(FIXTURE / "labels.jsonl"),
            "--analysis",
            str(FIXTURE / "analysis.json"),
            "--out",
            str(out),
        ]
    )
    assert code == 0
    assert (out / REPORT_FILE).is_file() and (out / "tables" / "funnel.csv").is_file()
    assert f"report: {out / REPORT_FILE}" in capsys.readouterr().out


def test_cli_computes_the_analysis(tmp_path: Path) -> None:
    out = tmp_path / "rep"
    assert _cli([str(RUNS), "--labels", str(FIXTURE / "labels.jsonl"), "--out", str(out)]) == 0
    result = AnalysisResult.model_validate_json((out / tables.JSON_FILE).read_text())
    assert result.sensitivity == "primary"
    assert {r.operator for r in result.adoption} == {r.operator for r in _result().adoption}


def test_cli_without_labels_is_a_config_error(tmp_path: Path) -> None:
    from sscbench.errors import ConfigError

    with pytest.raises(ConfigError, match="reconstruct"):
        _cli([str(tmp_path)])


def test_the_page_states_population_and_configurations(html: str) -> None:
    assert "population: r0 of each configuration" in html
    assert 'id="table-configurations"' in html
    table = html.split('id="table-configurations"')[1].split("</table>")[0]
    # one row per configuration, with its agent as the model of a scripted run
    assert table.count("<tr>") == 1 + len({x.agent for x in _labels()})
    assert "scripted:careful" in table


def test_the_funnel_total_row_sums_every_column(html: str) -> None:
    funnel = _result().funnel
    table = html.split('id="table-funnel"')[1].split("</table>")[0]
    total = table.split('<tr class="total">')[1].split("</tr>")[0]
    cells = [c.split("</td>")[0] for c in total.split("<td>")[1:]]
    expected = [
        str(sum(r.gated for r in funnel)),
        str(sum(r.scheduled for r in funnel)),
        str(sum(r.observed for r in funnel)),
        str(sum(r.missing for r in funnel)),
        str(sum(r.triggered for r in funnel)),
        str(sum(r.not_triggered for r in funnel)),
        str(sum(r.decidable_use for r in funnel)),
        str(sum(r.no_use for r in funnel)),
        f"{sum(r.arrival_decided for r in funnel)}/{sum(r.arrival_undecidable for r in funnel)}",
        str(sum(r.population for r in funnel)),
        str(sum(r.controls for r in funnel)),
    ]
    assert cells == expected
