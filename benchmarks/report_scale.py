"""How ``sscbench report`` and its viewer scale: time and peak memory at 1k / 10k / 100k runs.

For each size a seeded synthetic run set (labels and one small valid ledger per run, over
the shipped case set's real fault contracts) is written, ``sscbench report`` runs on it in
a child process (wall time; peak RSS from the child's rusage), and — when Debian's
chromium and the playwright package are there — the viewer's index page is opened from
disk in headless Chromium: time until its rows are drawn, and time to open one run. The
scaling exponent is the slope of log(time) and log(RSS) against log(runs).

    .venv/bin/python benchmarks/report_scale.py                    # 1k, 10k, 100k
    .venv/bin/python benchmarks/report_scale.py --sizes 1000,10000 # quicker
    .venv/bin/python benchmarks/report_scale.py --work /big/disk   # where run sets go

Writes ``benchmarks/report-scale-results.json``. The 100k set takes about 1.5 GB of disk
(ledgers plus the report's run files); it is deleted afterwards unless ``--keep``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from sscbench.analysis.synthetic import synthetic_labels, write_run_set
from sscbench.cases.caseset import load_case_set

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "report-scale-results.json"
CHROMIUM = Path("/usr/bin/chromium")
CONFIGURATIONS = 10


def _configurations(runs: int, cases: int) -> tuple[tuple[str, int], ...]:
    """Ten configurations with enough repetitions to schedule ``runs`` runs."""
    repetitions = math.ceil(runs / (0.9 * cases * CONFIGURATIONS)) + 1
    return tuple((f"C{i}", repetitions) for i in range(CONFIGURATIONS))


def _generate(root: Path, runs: int) -> float:
    case_set = load_case_set()
    started = time.perf_counter()
    labels = synthetic_labels(
        case_set,
        runs=runs,
        seed=0,
        configurations=_configurations(runs, len(case_set.cases)),
    )
    write_run_set(root, labels, case_set)
    return time.perf_counter() - started


def _report(root: Path) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of ``sscbench report`` on ``root``."""
    command = [sys.executable, "-m", "sscbench.cli.main", "report", str(root), "--viewer", "link"]
    started = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    elapsed = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"sscbench report failed on {root}")
    return elapsed, usage.ru_maxrss / 1024


def _browser(page_path: Path) -> dict[str, float] | None:
    """Seconds until the index's rows are drawn; ms to open the first run (as the page
    measures it: from the click to the drawn history)."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return None
    if not CHROMIUM.exists():
        return None
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        page = browser.new_page()
        started = time.perf_counter()
        page.goto(page_path.as_uri())
        page.wait_for_selector("#run-list details.run")
        opened = time.perf_counter() - started
        timings = []
        for n in range(3):
            run = page.locator("#run-list details.run").nth(n)
            run.locator("summary").click()
            page.wait_for_function(
                "e => e.getAttribute('data-state') === 'shown'", arg=run.element_handle()
            )
            timings.append(float(run.get_attribute("data-ms") or "nan"))
        browser.close()
    return {"open_s": opened, "run_ms": max(timings)}


def _slope(points: list[tuple[int, float]]) -> float | None:
    """Least-squares slope of log(y) on log(runs)."""
    if len(points) < 2:
        return None
    xs = [math.log(n) for n, _ in points]
    ys = [math.log(y) for _, y in points]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum(
        (x - mx) ** 2 for x in xs
    )


def main() -> int:
    """Measure every size, print the table side by side, write the JSON."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000,100000", help="comma-separated run counts")
    parser.add_argument("--work", type=Path, help="where run sets are written (default: temp)")
    parser.add_argument("--keep", action="store_true", help="keep the run sets and reports")
    parser.add_argument("--out", type=Path, default=RESULTS, help="results JSON")
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="sscbench-report-scale-"))
    rows: list[dict[str, Any]] = []
    for runs in (int(x) for x in args.sizes.split(",")):
        root = work / f"runs-{runs}"
        shutil.rmtree(root, ignore_errors=True)
        generate = _generate(root, runs)
        seconds, rss = _report(root)
        report = root / "report"
        index = report / "trajectories.html"
        row: dict[str, Any] = {
            "runs": runs,
            "generate_s": round(generate, 1),
            "report_s": round(seconds, 1),
            "peak_rss_mb": round(rss),
            "index_mb": round(index.stat().st_size / 1e6, 2),
            "report_html_mb": round((report / "report.html").stat().st_size / 1e6, 2),
        }
        browser = _browser(index)
        if browser is not None:
            row["index_open_s"] = round(browser["open_s"], 2)
            row["run_open_ms"] = round(browser["run_ms"], 1)
        rows.append(row)
        print(json.dumps(row), flush=True)
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    if args.work is None and not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    time_slope = _slope([(r["runs"], r["report_s"]) for r in rows])
    rss_slope = _slope([(r["runs"], r["peak_rss_mb"]) for r in rows])
    keys = [
        ("runs", "runs"),
        ("report_s", "report time (s)"),
        ("peak_rss_mb", "peak RSS (MB)"),
        ("index_mb", "index page (MB)"),
        ("index_open_s", "index opens in (s)"),
        ("run_open_ms", "a run opens in (ms)"),
        ("generate_s", "generating the set (s)"),
    ]
    print()
    print("| " + " | ".join(label for _, label in keys) + " |")
    print("|" + "---|" * len(keys))
    for r in rows:
        print("| " + " | ".join(str(r.get(k, "–")) for k, _ in keys) + " |")
    print()
    fmt = "{:.2f}".format
    print(
        f"scaling exponent (log-log slope over {len(rows)} sizes): time "
        f"{fmt(time_slope) if time_slope is not None else '–'}, peak RSS "
        f"{fmt(rss_slope) if rss_slope is not None else '–'}"
    )
    args.out.write_text(
        json.dumps(
            {"rows": rows, "time_exponent": time_slope, "rss_exponent": rss_slope}, indent=2
        )
        + "\n"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
