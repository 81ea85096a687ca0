"""The report in a real headless browser: Debian's chromium driven by Playwright.

The page must load without console errors or network requests, its figures must render,
and a script-injection string planted in model text must stay inert: no dialog fires,
no element is injected, the text reads back verbatim. Needs ``/usr/bin/chromium``
(``apt-get install chromium``) and the ``playwright`` Python package; the browser is never
downloaded (``playwright install`` is not used).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sscbench.analysis.report import REPORT_FILE, TRAJECTORIES_FILE, write_report
from sscbench.analysis.results import AnalysisResult
from sscbench.analysis.viewer import slug
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


def test_report_loads_renders_figures_and_keeps_injection_inert(
    report: Path, watched: Watched, tmp_path: Path
) -> None:
    page = watched.page
    injected = (FIXTURE / "injected_run.txt").read_text().strip()
    page.goto((report / "embed" / REPORT_FILE).as_uri())
    page.wait_for_load_state("load")

    # Figures: three embedded SVG images, decoded, with a non-zero laid-out size.
    images = page.locator("figure img")
    assert images.count() == 3
    for i in range(images.count()):
        img = images.nth(i)
        img.scroll_into_view_if_needed()
        natural = img.evaluate("e => [e.complete, e.naturalWidth, e.naturalHeight]")
        assert natural[0] is True and natural[1] > 0 and natural[2] > 0, natural
        box = img.bounding_box()
        assert box is not None and box["width"] > 100 and box["height"] > 100, box

    # Open the injected run through its anchor (the page script opens the details).
    page.goto((report / "embed" / REPORT_FILE).as_uri() + "#" + slug(injected))
    run = page.locator(f'details[id="{slug(injected)}"]')
    assert run.evaluate("e => e.open") is True
    texts = run.locator("pre.text").filter(has_text="onerror")
    assert texts.count() == 2  # the agent message and the tool observation
    agent = texts.first
    assert agent.is_visible()
    assert agent.inner_text() == INJECTION  # shown verbatim, as text
    assert page.evaluate("document.scripts.length") == 1  # only the page's own script
    assert page.locator('img[src="x"]').count() == 0
    assert page.locator("[onerror]").count() == 0
    page.wait_for_timeout(200)  # give any injected handler a chance to fire
    page.screenshot(path=str(tmp_path / "injected-run.png"))
    watched.assert_clean()


def test_viewer_filter_works(report: Path, watched: Watched) -> None:
    page = watched.page
    page.goto((report / "embed" / REPORT_FILE).as_uri())
    runs = page.locator("details.run")
    total = runs.count()
    assert total == len(read_labels(FIXTURE / "labels.jsonl"))
    page.select_option("#run-class", "adopted")
    shown = page.locator("details.run:not([hidden])")
    assert 0 < shown.count() < total
    adopted = shown.evaluate_all("es => es.map(e => e.getAttribute('data-adopted'))")
    assert set(adopted) == {"true"}
    page.select_option("#run-class", "")
    page.fill("#run-filter", "write_effect.airline.18")
    assert page.locator("details.run:not([hidden])").count() == 4
    page.click("#expand-all")
    assert page.locator("details.run[open]:not([hidden])").count() == 4
    watched.assert_clean()


def test_linked_trajectories_page_loads(report: Path, watched: Watched) -> None:
    page = watched.page
    page.goto((report / "link" / REPORT_FILE).as_uri())
    assert page.locator("details.run").count() == 0
    page.click(f'a[href="{TRAJECTORIES_FILE}"]')
    page.wait_for_load_state("load")
    assert page.url.endswith(TRAJECTORIES_FILE)
    assert page.locator("details.run").count() == len(read_labels(FIXTURE / "labels.jsonl"))
    watched.assert_clean()
