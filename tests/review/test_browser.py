"""A reviewer labels a packet in a real browser (headless Chromium driven by Playwright).

Skipped, with the reason, when the ``playwright`` package or a Chromium binary is missing;
the test never downloads a browser (no ``playwright install``): it uses the system
Chromium (``SSCBENCH_CHROMIUM``, else ``chromium`` on the PATH, else /usr/bin/chromium).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn

from sscbench.review.export import export_review
from sscbench.review.server import create_app

sync_api = pytest.importorskip(
    "playwright.sync_api", reason="the playwright package is not installed"
)


def chromium() -> str:
    for candidate in (
        os.environ.get("SSCBENCH_CHROMIUM"),
        shutil.which("chromium"),
        shutil.which("chromium-browser"),
        "/usr/bin/chromium",
    ):
        if candidate and Path(candidate).is_file():
            return candidate
    pytest.skip("no Chromium binary (set SSCBENCH_CHROMIUM); the test never downloads one")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture
def server(review_runs: Path, tmp_path: Path) -> Iterator[tuple[str, Path]]:
    export_review(review_runs, tmp_path, 2, seed=11)
    port = free_port()
    config = uvicorn.Config(create_app(tmp_path), host="127.0.0.1", port=port, log_level="error")
    srv = uvicorn.Server(config)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not srv.started:
        if time.monotonic() > deadline:
            pytest.fail("the annotation server did not start")
        time.sleep(0.02)
    yield f"http://127.0.0.1:{port}/", tmp_path
    srv.should_exit = True
    thread.join(timeout=5)


@pytest.fixture
def page(server: tuple[str, Path]) -> Iterator[Any]:
    executable = chromium()
    with sync_api.sync_playwright() as p:
        try:
            browser = p.chromium.launch(executable_path=executable, headless=True)
        except Exception as exc:  # a broken system browser is an environment problem
            pytest.skip(f"Chromium at {executable} does not start headless: {exc}")
        yield browser.new_page()
        browser.close()


def test_a_reviewer_labels_a_packet_in_the_browser(page: Any, server: tuple[str, Path]) -> None:
    url, root = server
    page.goto(url)
    page.fill("#reviewer", "B")
    page.click("#load")
    page.wait_for_selector("#steps tr")
    pid = page.input_value("#packet")
    packet = json.loads((root / "packets" / f"{pid}.json").read_text())
    assert page.locator("#steps tr").count() == len(packet["steps"])
    assert packet["contract"]["operator"] in page.inner_text("#contract-text")
    assert "not labelled yet" in page.inner_text("#message")

    # T_E by clicking a step number; T_S by typing; T_U never; A no.
    te_step = packet["steps"][2]["step"]
    page.select_option("#target", "t_e")
    page.click(f"#step-{te_step} td.n")
    assert page.input_value("#t_e-status") == "found"
    assert page.input_value("#t_e-step") == str(te_step)
    page.select_option("#t_s-status", "found")
    page.fill("#t_s-step", "4")
    page.select_option("#t_u-status", "never")
    assert page.is_disabled("#t_u-step")
    page.select_option("#adopted", "no")
    page.fill("#note", "browser test")
    page.click("#save")
    page.wait_for_function("document.getElementById('message').textContent.startsWith('saved')")

    lines = (root / "labels" / "B.jsonl").read_text().splitlines()
    assert len(lines) == 1
    saved = json.loads(lines[0])
    assert saved["packet_id"] == pid and saved["reviewer"] == "B"
    assert saved["t_e"] == {"status": "found", "step": te_step}
    assert saved["t_s"] == {"status": "found", "step": 4}
    assert saved["t_u"] == {"status": "never", "step": None}
    assert (saved["adopted"], saved["note"]) == ("no", "browser test")
    assert page.inner_text("#progress").startswith("1 of 2")

    # An inconsistent label is refused with the reason and nothing is written.
    page.select_option("#t_u-status", "found")
    page.fill("#t_u-step", "6")
    page.click("#save")
    page.wait_for_function("document.getElementById('message').textContent.includes('not saved')")
    assert "A = yes" in page.inner_text("#message")
    assert len((root / "labels" / "B.jsonl").read_text().splitlines()) == 1

    # Reopening shows the reviewer's own last label.
    page.reload()
    page.fill("#reviewer", "B")
    page.click("#load")
    page.wait_for_function("document.getElementById('message').textContent.includes('last saved')")
    assert page.input_value("#note") == "browser test"
