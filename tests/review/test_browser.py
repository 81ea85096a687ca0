"""The annotation page in a real browser (headless Chromium driven by Playwright): two
reviewers with their own tokens, each seeing only their own labels; a page on another
origin whose posts are refused; model text that stays text.

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
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import uvicorn

from sscbench.review.export import export_review
from sscbench.review.server import create_app

sync_api = pytest.importorskip(
    "playwright.sync_api", reason="the playwright package is not installed"
)

INJECTION = 'Done. <script>alert(1)</script> " onerror="alert(2)" <img src=x onerror=alert(3)>'


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


@dataclass(frozen=True)
class Served:
    root: Path
    base: str
    urls: dict[str, str]
    main: list[str]
    calibration: list[str]

    def lines(self, reviewer: str) -> list[dict[str, Any]]:
        path = self.root / "labels" / f"{reviewer}.jsonl"
        return [json.loads(x) for x in path.read_text().splitlines()] if path.exists() else []


@pytest.fixture
def served(review_runs: Path, tmp_path: Path) -> Iterator[Served]:
    port = free_port()
    base = f"http://127.0.0.1:{port}/"
    result = export_review(review_runs, tmp_path, 2, seed=11, calibration=2, serve_url=base)
    assert result.urls is not None
    for path in (tmp_path / "packets").glob("*.json"):  # model text that tries to be HTML
        packet = json.loads(path.read_text())
        first_user = next(s for s in packet["steps"] if s["kind"] == "user_message")
        first_user["content"] = INJECTION
        path.write_text(json.dumps(packet))
    config = uvicorn.Config(
        create_app(tmp_path, port=port), host="127.0.0.1", port=port, log_level="error"
    )
    srv = uvicorn.Server(config)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not srv.started:
        if time.monotonic() > deadline:
            pytest.fail("the annotation server did not start")
        time.sleep(0.02)
    yield Served(
        tmp_path,
        base,
        result.urls,
        sorted(e.packet_id for e in result.entries),
        sorted(e.packet_id for e in result.calibration),
    )
    srv.should_exit = True
    thread.join(timeout=5)


@pytest.fixture
def browser() -> Iterator[Any]:
    executable = chromium()
    with sync_api.sync_playwright() as p:
        try:
            launched = p.chromium.launch(
                executable_path=executable, headless=True, args=["--no-sandbox"]
            )
        except Exception as exc:  # a broken system browser is an environment problem
            pytest.skip(f"Chromium at {executable} does not start headless: {exc}")
        yield launched
        launched.close()


def open_as(browser: Any, url: str, dialogs: list[str]) -> Any:
    """A fresh browser context (own storage) on ``url``, recording dialogs."""
    page = browser.new_context().new_page()
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(url)
    page.locator("#message:not(:empty)").wait_for()
    return page


def wait_message(page: Any, text: str) -> None:
    """Wait for the page's message (selectors, not script: the page's CSP forbids eval)."""
    page.locator("#message", has_text=text).wait_for()


def test_two_reviewers_each_see_only_their_own_labels(browser: Any, served: Served) -> None:
    dialogs: list[str] = []
    a = open_as(browser, served.urls["A"], dialogs)
    assert a.inner_text("#who") == "signed in as reviewer A"
    # Calibration packets come first and say so.
    options = [o.get_attribute("value") for o in a.locator("#packet option").all()]
    assert options[:2] == served.calibration and sorted(options[2:]) == served.main
    assert "calibration" in a.inner_text("#packet option >> nth=0")
    assert a.inner_text("#kind").startswith("Calibration trajectory")
    # Model text stays text: verbatim, no element injected, nothing runs.
    assert INJECTION in a.inner_text("#steps")
    assert a.locator("#steps img, #steps script").count() == 0

    pid = served.main[0]
    a.select_option("#packet", pid)
    wait_message(a, "not labelled yet")
    assert a.inner_text("#kind") == "Review trajectory"
    packet = json.loads((served.root / "packets" / f"{pid}.json").read_text())
    kinds = {s["step"]: s["kind"] for s in packet["steps"]}
    te = next(s for s, k in kinds.items() if k == "tool_observation")
    ts = next(s for s, k in kinds.items() if s > te and k in ("agent_message", "tool_call"))
    a.select_option("#target", "t_e")
    a.click(f"#step-{te} td.n")
    assert (a.input_value("#t_e-status"), a.input_value("#t_e-step")) == ("found", str(te))
    a.select_option("#t_s-status", "found")
    a.fill("#t_s-step", str(ts))
    a.select_option("#t_u-status", "never")
    assert a.is_disabled("#t_u-step")
    a.select_option("#adopted", "no")
    a.fill("#note", "A's reading")
    a.click("#save")
    wait_message(a, "saved")
    assert [(x["reviewer"], x["packet_id"], x["note"]) for x in served.lines("A")] == [
        ("A", pid, "A's reading")
    ]
    assert served.lines("A")[0]["t_e"] == {"status": "found", "step": te}
    assert a.inner_text("#progress").startswith("1 of 2 packets labelled; calibration 0 of 2")

    # A step the packet does not have is refused with the reason; nothing is written.
    a.fill("#t_s-step", "9999")
    a.click("#save")
    wait_message(a, "not saved")
    assert "not a step of this packet" in a.inner_text("#message")
    assert len(served.lines("A")) == 1

    # B opens the same packet: nothing of A's shows, and B's label goes to B's file.
    b = open_as(browser, served.urls["B"], dialogs)
    assert b.inner_text("#who") == "signed in as reviewer B"
    b.select_option("#packet", pid)
    wait_message(b, "not labelled yet")
    assert b.input_value("#note") == "" and b.input_value("#t_e-step") == ""
    assert b.inner_text("#progress").startswith("0 of 2")
    b.select_option("#t_e-status", "never")
    b.select_option("#t_s-status", "none")
    b.select_option("#t_u-status", "never")
    b.select_option("#adopted", "no")
    b.fill("#note", "B's reading")
    b.click("#save")
    wait_message(b, "saved")
    assert [x["note"] for x in served.lines("B")] == ["B's reading"]
    assert [x["note"] for x in served.lines("A")] == ["A's reading"]

    # Reopened, each page shows its own reviewer's last label and nobody else's.
    for page, note in ((a, "A's reading"), (b, "B's reading")):
        page.reload()
        page.wait_for_selector("#steps tr")
        page.select_option("#packet", pid)
        wait_message(page, "last saved")
        assert page.input_value("#note") == note
    assert not dialogs, dialogs

    # Without a token the page loads but gets nothing.
    anon = open_as(browser, served.base, dialogs)
    assert "token" in anon.inner_text("#message")
    assert anon.locator("#packet option").count() == 0


ATTACK = """<!doctype html><html><body><script>
const target = TARGET;
const body = JSON.stringify(BODY);
async function attempt(name, options) {
  try {
    const r = await fetch(target + "api/labels", options);
    return name + ":" + (r.type === "opaque" ? "opaque" : r.status);
  } catch (err) { return name + ":blocked"; }
}
(async () => {
  const results = [
    await attempt("text", {method: "POST", mode: "no-cors",
      headers: {"content-type": "text/plain"}, body: body}),
    await attempt("json", {method: "POST",
      headers: {"content-type": "application/json", "x-review-token": TOKEN}, body: body}),
  ];
  let read = "read:";
  try {
    const r = await fetch(target + "api/packets", {headers: {"x-review-token": TOKEN}});
    read += r.status;
  } catch (err) { read += "blocked"; }
  results.push(read);
  document.title = results.join(" ");
})();
</script></body></html>"""


def attacker_site(html: str) -> tuple[ThreadingHTTPServer, str]:
    """A page on another origin (another port of the same host)."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            data = html.encode()
            self.send_response(200)
            self.send_header("content-type", "text/html; charset=utf-8")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


def test_a_page_on_another_origin_cannot_post_or_read(browser: Any, served: Served) -> None:
    pid = served.main[0]
    label = {
        "packet_id": pid,
        "reviewer": "D",
        "t_e": {"status": "never", "step": None},
        "t_s": {"status": "none", "step": None},
        "t_u": {"status": "never", "step": None},
        "adopted": "no",
    }
    stolen = served.urls["D"].split("#token=")[1]  # even with a leaked token
    html = (
        ATTACK.replace("TARGET", json.dumps(served.base))
        .replace("BODY", json.dumps(label))
        .replace("TOKEN", json.dumps(stolen))
    )
    site, url = attacker_site(html)
    try:
        page = browser.new_context().new_page()
        page.goto(url)
        page.wait_for_function("document.title !== ''", timeout=10_000)
        outcome = page.title()
    finally:
        site.shutdown()
    assert outcome == "text:opaque json:blocked read:blocked", outcome
    assert not (served.root / "labels").exists() or not any((served.root / "labels").iterdir())
