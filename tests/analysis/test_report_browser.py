"""The report in a real headless browser: Debian's chromium driven by Playwright.

Every page is opened from disk (``file://``), as a reader would open it. The page must load
without console errors or network requests, its figures must render, runs must load on
demand from their shard files (256 runs a file, each loaded once), every filter must work
(and say so when nothing matches), and a script-injection string planted in model text
must stay inert: no dialog fires, no element is injected, the text reads back verbatim.
A 1,500-run synthetic set checks the timing budget (index drawn < 3 s, a run opened
< 200 ms) and that a run beyond the first shard loads the second one. Needs
``/usr/bin/chromium`` (``apt-get install chromium``) and the ``playwright`` Python package;
the browser is never downloaded (``playwright install`` is not used).
"""

from __future__ import annotations

import json
import math
import re
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sscbench.analysis import figures
from sscbench.analysis.report import REPORT_FILE, TRAJECTORIES_FILE, write_report
from sscbench.analysis.results import AnalysisResult
from sscbench.analysis.synthetic import synthetic_labels, write_run_set
from sscbench.analysis.viewer import slug
from sscbench.analysis.viewer.index import INDEX_ID
from sscbench.cases.caseset import load_case_set
from sscbench.reconstruct.labels import read_labels

CHROMIUM = Path("/usr/bin/chromium")
if not CHROMIUM.exists():
    pytest.skip(
        f"{CHROMIUM} not found: install Debian's chromium (apt-get install chromium)",
        allow_module_level=True,
    )
sync_api = pytest.importorskip(
    "playwright.sync_api", reason="the playwright Python package is not installed"
)

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "analysis"
INJECTION = 'Done. <script>alert(1)</script> " onerror="alert(2)" <img src=x onerror=alert(3)>'
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


SCALE_RUNS = 1500


@pytest.fixture(autouse=True, scope="module")
def _figures_once() -> Iterator[None]:
    """Every report here draws the same analysis: draw its figures once."""
    from sscbench.analysis import report as report_module

    drawn: dict[str, dict[str, bytes]] = {}

    def render_all(result: AnalysisResult) -> dict[str, bytes]:
        key = result.model_dump_json()
        if key not in drawn:
            drawn[key] = figures.render_all(result)
        return drawn[key]

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(report_module, "render_all", render_all)
        yield


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("browser-report")
    result = AnalysisResult.model_validate_json((FIXTURE / "analysis.json").read_text())
    labels = read_labels(FIXTURE / "labels.jsonl")
    write_report(result, labels, FIXTURE / "runs", out / "embed", viewer="embed")
    write_report(result, labels, FIXTURE / "runs", out / "link", viewer="link")
    return out


class Watched:
    """A page plus everything it reported: console messages, errors, dialogs, requests."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.console: list[tuple[str, str]] = []
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        self.requests: list[str] = []
        page.on("console", lambda m: self.console.append((m.type, m.text)))
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        page.on("dialog", self._dialog)
        page.on("request", lambda r: self.requests.append(r.url))

    def _dialog(self, dialog: Any) -> None:
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def assert_clean(self) -> None:
        assert not self.errors, self.errors
        assert not [m for m in self.console if m[0] in ("error", "warning")], self.console
        assert not self.dialogs, f"a dialog fired: {self.dialogs}"
        external = [u for u in self.requests if not u.startswith(("file:", "data:"))]
        assert not external, external


@pytest.fixture(scope="module")
def browser_context(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    profile = tmp_path_factory.mktemp("chromium-profile")
    with sync_api.sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(profile),
            executable_path=str(CHROMIUM),
            headless=True,
            args=ARGS,
            viewport={"width": 1280, "height": 900},
        )
        try:
            yield context
        finally:
            context.close()
    shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture
def watched(browser_context: Any) -> Iterator[Watched]:
    page = browser_context.new_page()
    try:
        yield Watched(page)
    finally:
        page.close()


def _open(page: Any, run: Any) -> Any:
    """Open a run row and wait until its history is drawn."""
    run.locator("summary").click()
    page.wait_for_function(
        "e => e.getAttribute('data-state') === 'shown'", arg=run.element_handle()
    )
    return run


def test_report_loads_renders_figures_and_keeps_injection_inert(
    report: Path, watched: Watched, tmp_path: Path
) -> None:
    page = watched.page
    injected = (FIXTURE / "injected_run.txt").read_text().strip()
    page.goto((report / "embed" / REPORT_FILE).as_uri())
    page.wait_for_load_state("load")

    # Figures: every embedded SVG image decoded, with a non-zero laid-out size.
    images = page.locator("figure img")
    assert images.count() == len(figures.FIGURES)
    for i in range(images.count()):
        img = images.nth(i)
        img.scroll_into_view_if_needed()
        natural = img.evaluate("e => [e.complete, e.naturalWidth, e.naturalHeight]")
        assert natural[0] is True and natural[1] > 0 and natural[2] > 0, natural
        box = img.bounding_box()
        assert box is not None and box["width"] > 100 and box["height"] > 100, box

    # Open the injected run through its anchor: the page finds it, loads its run file.
    page.goto((report / "embed" / REPORT_FILE).as_uri() + "#" + slug(injected))
    run = page.locator(f'details[id="{slug(injected)}"]')
    page.wait_for_function(
        "e => e.getAttribute('data-state') === 'shown'", arg=run.element_handle()
    )
    assert run.evaluate("e => e.open") is True
    texts = run.locator("pre.text").filter(has_text="onerror")
    assert texts.count() == 2  # the agent message and the tool observation
    agent = texts.first
    assert agent.is_visible()
    assert agent.inner_text() == INJECTION  # shown verbatim, as text
    # Only the page's own script and its JSON index: the run file's script element is gone.
    assert page.evaluate("document.scripts.length") == 2
    assert page.evaluate("document.querySelectorAll('script:not([type])').length") == 1
    assert page.locator('img[src="x"]').count() == 0
    assert page.locator("[onerror]").count() == 0
    page.wait_for_timeout(200)  # give any injected handler a chance to fire
    page.screenshot(path=str(tmp_path / "injected-run.png"))
    watched.assert_clean()


def _shown(page: Any) -> list[str]:
    return page.locator("#run-list details.run .rid").all_inner_texts()  # type: ignore[no-any-return]


def test_viewer_filters(report: Path, watched: Watched) -> None:
    page = watched.page
    labels = read_labels(FIXTURE / "labels.jsonl")
    page.goto((report / "embed" / REPORT_FILE).as_uri())
    assert sorted(_shown(page)) == sorted(x.run_id for x in labels)
    none = page.locator("#run-none")
    assert not none.is_visible()

    def check(selector: str, label: str, expected: set[str]) -> None:
        page.select_option(selector, label=label)
        assert set(_shown(page)) == expected, (selector, label)
        page.select_option(selector, "")

    check(
        "#run-configuration",
        "scripted:gold",
        {x.run_id for x in labels if x.agent == "scripted:gold"},
    )
    check("#run-operator", "item_option", {x.run_id for x in labels if x.operator == "item_option"})
    case = labels[0].case_id
    assert case is not None
    check("#run-case", case, {x.run_id for x in labels if x.case_id == case})
    check("#run-class", "Z_S = before", {x.run_id for x in labels if x.z_s == "before"})
    check("#run-adopted", "adopted", {x.run_id for x in labels if x.adopted})
    shown = page.locator("#run-list details.run")
    assert set(shown.evaluate_all("es => es.map(e => e.dataset.adopted)")) >= {"true", "false"}

    # Free text: a configuration name and a case id exactly as written on the command line.
    page.fill("#run-filter", "scripted:gold")
    assert set(_shown(page)) == {x.run_id for x in labels if x.agent == "scripted:gold"}
    page.fill("#run-filter", case)  # a substring: the case's target-value control matches too
    assert set(_shown(page)) == {x.run_id for x in labels if case in (x.case_id or "")}
    page.click("#expand-all")
    page.wait_for_function(
        "n => document.querySelectorAll('#run-list details.run[data-state=shown]').length === n",
        arg=len(_shown(page)),
    )

    # Nothing matches: the list is empty and says so.
    page.fill("#run-filter", "no-such-run-anywhere")
    assert _shown(page) == []
    assert none.is_visible() and none.inner_text() == "No run matches these filters."
    assert page.locator("#run-count").inner_text().startswith("0 of ")
    page.fill("#run-filter", "")
    page.select_option("#run-configuration", label="scripted:gold")
    page.select_option("#run-operator", label="pay_source")
    assert none.is_visible() == (
        not any(x.agent == "scripted:gold" and x.operator == "pay_source" for x in labels)
    )
    watched.assert_clean()


def test_a_run_shows_true_and_injected_values_and_no_python_literals(
    report: Path, watched: Watched
) -> None:
    page = watched.page
    page.goto((report / "embed" / REPORT_FILE).as_uri())
    run = _open(page, page.locator("#run-list details.run").first)
    meta = run.locator("dl.run-meta").inner_text()
    assert "true v" in meta and "injected v′" in meta
    page.click("#expand-all")
    page.wait_for_function(
        "n => document.querySelectorAll('#run-list details.run[data-state=shown]').length === n",
        arg=page.locator("#run-list details.run").count(),
    )
    labels = page.locator("#run-list dl.run-meta").all_inner_texts()
    summaries = page.locator("#run-list summary").all_inner_texts()
    for text in labels + summaries:
        assert not re.search(r"\b(None|True|False)\b", text), text
    watched.assert_clean()


def test_linked_trajectories_page_loads(report: Path, watched: Watched) -> None:
    page = watched.page
    page.goto((report / "link" / REPORT_FILE).as_uri())
    assert page.locator("details.run").count() == 0
    page.click(f'a[href="{TRAJECTORIES_FILE}"]')
    page.wait_for_load_state("load")
    assert page.url.endswith(TRAJECTORIES_FILE)
    assert page.locator("details.run").count() == len(read_labels(FIXTURE / "labels.jsonl"))
    _open(page, page.locator("details.run").first)
    watched.assert_clean()


def test_phone_width_has_no_sideways_scrolling(report: Path, browser_context: Any) -> None:
    page = browser_context.new_page()
    try:
        page.set_viewport_size({"width": 375, "height": 740})
        page.goto((report / "embed" / REPORT_FILE).as_uri())
        _open(page, page.locator("#run-list details.run").first)
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 375, width
    finally:
        page.close()


@pytest.fixture(scope="module")
def scale_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("scale")
    case_set = load_case_set()
    configurations = tuple((f"C{i}", 2) for i in range(8))
    labels = synthetic_labels(case_set, runs=SCALE_RUNS, configurations=configurations)
    write_run_set(root, labels, case_set)
    result = AnalysisResult.model_validate_json((FIXTURE / "analysis.json").read_text())
    write_report(result, labels, root, root / "report", viewer="link")
    return root / "report"


def test_index_of_many_runs_opens_fast_and_a_run_in_under_200_ms(
    scale_report: Path, watched: Watched
) -> None:
    page = watched.page
    started = time.perf_counter()
    page.goto((scale_report / TRAJECTORIES_FILE).as_uri())
    page.wait_for_selector("#run-list details.run")
    assert time.perf_counter() - started < 3.0
    assert page.locator("#run-list details.run").count() == 100  # one page of rows
    assert f"of {SCALE_RUNS} matching runs" in page.locator("#run-count").inner_text()
    page.click("#run-more")
    assert page.locator("#run-list details.run").count() == 200
    for n in (0, 150):
        run = _open(page, page.locator("#run-list details.run").nth(n))
        assert float(run.get_attribute("data-ms")) < 200
    # "expand shown" opens 200 runs in batches: the page keeps answering meanwhile.
    page.click("#expand-all")
    assert page.evaluate("1 + 1") == 2
    page.wait_for_function(
        "() => document.querySelectorAll('#run-list details.run[data-state=shown]').length === 200"
    )
    # The 200 runs are rows 0-199: all from the first shard, loaded once, then cached.
    assert _shards_requested(watched) == ["runs/0.js"]
    # A run of row 300 (by its anchor) loads the second shard, and only it.
    index = json.loads(page.locator(f"#{INDEX_ID}").text_content())
    rid = index["runs"][300][0]
    page.evaluate("h => { window.location.hash = h; }", "#" + slug(rid))
    run = page.locator(f'details[id="{slug(rid)}"]')
    page.wait_for_function(
        "e => e.getAttribute('data-state') === 'shown'", arg=run.element_handle()
    )
    assert run.locator("summary .rid").inner_text() == rid
    assert run.locator("ol.history li").count() > 0  # drawn from the shard's data
    assert _shards_requested(watched) == ["runs/0.js", "runs/1.js"]
    files = [p for p in (scale_report / "runs").rglob("*") if p.is_file()]
    assert len(files) == math.ceil(SCALE_RUNS / 256) == 6
    watched.assert_clean()


def _shards_requested(watched: Watched) -> list[str]:
    """The run data files the page asked for, relative to its folder, in order."""
    return [re.sub(r"^.*/(runs/[^/]+)$", r"\1", u) for u in watched.requests if "/runs/" in u]


@pytest.fixture(scope="module")
def study_report(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, AnalysisResult]:
    """A study-sized report (3 configurations over the shipped case set), analysed fresh."""
    from sscbench.analysis.quantities import analyze

    root = tmp_path_factory.mktemp("study")
    case_set = load_case_set()
    configurations = (("gpt-x", 2), ("claude-y", 2), ("local-z", 1))
    labels = synthetic_labels(case_set, runs=1200, configurations=configurations)
    write_run_set(root, labels, case_set)
    result = analyze(labels, case_set)
    write_report(result, labels, root, root / "report", viewer="embed")
    return root / "report", result


FIRST_VIEWPORT = {"width": 1366, "height": 768}


def _shot_dir(tmp_path: Path) -> Path:
    """Where the first-viewport screenshot goes: SSCBENCH_SCREENSHOTS if set (to look at
    it), else the test's own directory."""
    import os

    where = Path(os.environ.get("SSCBENCH_SCREENSHOTS") or tmp_path)
    where.mkdir(parents=True, exist_ok=True)
    return where


def test_the_first_viewport_holds_the_answer_and_the_first_figure(
    study_report: tuple[Path, AnalysisResult], browser_context: Any, tmp_path: Path
) -> None:
    """At 1366×768, before any scrolling: per configuration the triggered / decidable
    counts and a_s per stratum with its interval, the one-sentence readings, and the whole
    first figure, shown at its natural size (so its 12 px count labels stay 12 px)."""
    from sscbench.analysis.tables import fmt_share

    report, result = study_report
    page = browser_context.new_page()
    watched = Watched(page)
    try:
        page.set_viewport_size(FIRST_VIEWPORT)
        page.goto((report / REPORT_FILE).as_uri())
        page.wait_for_load_state("load")
        page.screenshot(path=str(_shot_dir(tmp_path) / "first-viewport.png"))

        def in_view(locator: Any) -> None:
            box = locator.bounding_box()
            assert box is not None, locator
            assert box["y"] >= 0 and box["y"] + box["height"] <= FIRST_VIEWPORT["height"], box
            assert box["x"] >= 0 and box["x"] + box["width"] <= FIRST_VIEWPORT["width"], box

        rows = page.locator("#table-answer tbody tr")
        assert rows.count() == len(result.overall_adoption) == 3
        funnel = {f.configuration: f for f in result.overall_funnel}
        for i, row in enumerate(result.overall_adoption):
            cells = rows.nth(i).locator("td")
            in_view(rows.nth(i))
            assert cells.nth(0).inner_text() == row.configuration
            f = funnel[row.configuration]
            assert cells.nth(1).inner_text() == f"{f.triggered} / {f.decidable_use}"
            for k, rate in enumerate((row.a_before, row.a_after, row.a_absent)):
                text = cells.nth(3 + k).inner_text()
                assert text.startswith(fmt_share(rate.value)), text
                assert f"{rate.numerator}/{rate.denominator}/{rate.clusters}" in text
                if rate.interval.low is not None:
                    assert f"[{rate.interval.low:.2f}, {rate.interval.high:.2f}]" in text
        readings = page.locator("#readings li")
        assert readings.count() == 3
        for i in range(3):
            in_view(readings.nth(i))
        figure = page.locator("figure").first
        assert figure.get_attribute("id") == "fig-adoption_overall"
        image = figure.locator("img")
        in_view(image)
        natural, shown = image.evaluate("e => [e.naturalWidth, e.getBoundingClientRect().width]")
        assert abs(shown - natural) <= 1, (natural, shown)  # not scaled down
        assert page.locator("nav a.viewer-link").first.is_visible()
        watched.assert_clean()
    finally:
        page.close()


def test_every_table_row_that_names_runs_opens_them_in_the_viewer(
    study_report: tuple[Path, AnalysisResult], watched: Watched
) -> None:
    report, result = study_report
    page = watched.page
    page.goto((report / REPORT_FILE).as_uri())
    first = result.overall_adoption[0].configuration
    page.locator("#table-answer tbody tr").first.locator("a.runs").click()
    page.wait_for_function(
        "n => document.querySelector('#run-configuration').selectedOptions[0].text === n",
        arg=first,
    )
    count = page.locator("#run-count").inner_text()
    n = sum(1 for _ in page.locator("#run-list details.run").all())
    assert n > 0 and "matching runs" in count
    badges = page.locator("#run-list details.run .badge").all_inner_texts()
    assert first in badges and not {"claude-y", "gpt-x", "local-z"} - {first} & set(badges)
    # A per-operator row (its long table folded until opened): both filters set.
    page.locator("details.long:has(#table-adoption) > summary").click()
    link = page.locator("#table-adoption tbody tr").first.locator("a.runs")
    href = link.get_attribute("href")
    assert href is not None and href.startswith("#runs?configuration=")
    link.click()
    page.wait_for_function("() => document.querySelector('#run-operator').value !== ''")
    watched.assert_clean()
