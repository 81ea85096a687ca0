#!/usr/bin/env python
"""The demo's work as it was at a baseline commit, on that commit's runs, side by side.

Since the performance issue measured ``sscbench demo`` (2,816 runs, 58.8 s of CPU on its
machine) the demo has grown: telecom cases, every agent's clean runs, two mitigations, the
native suite, a results bundle. CPU per run over two different demos compares unlike
mixes (clean runs cost half a faulted one), so this benchmark measures the *same* work:

* **baseline**: the baseline commit's own ``sscbench demo`` (``git archive REF`` run with
  this venv, as ``commands.py`` does), on its own shipped case set;
* **current**: this tree doing the stages that demo did, through today's functions, on the
  baseline's case set: the case set × the five scripted agents × two seeds, the clean
  controls, every ledger parsed once and labelled, the labels written, the oracles scored
  against the scripted truth, the analysis, the report (today's, which holds more), the
  reconstruction checked against the truth, the tables printed.

Both are one child process each, CPU time from ``os.wait4``, rounds alternating sides.
The current side also records its CPU per stage (imports, runs, parsing, labelling,
oracles, analysis, the report's figures and the rest of it, the check), so the results
say where its time goes.
The run directories of the two sides must hold the same run ids (checked: the same runs),
and the current side's count is printed beside the baseline's.

``python benchmarks/demo_same_work.py [--baseline eb1de7c] [--rounds 3] [--out FILE]``

``--stages-of REF`` puts commit REF's package through the same stages in place of the
baseline's own demo (on the baseline's case set still): two trees on identical work, which
is how one pass's gain is measured.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from commands import ROOT, compile_tree, summary, timed, unpack

CHILD = """
import gc
import json
import sys
import time
from contextlib import contextmanager
from pathlib import Path

STARTED = time.process_time()
from sscbench.analysis.quantities import analyze
from sscbench.analysis.report import write_report
from sscbench.analysis.terminal import summary_table
from sscbench.cases.caseset import load_case_set
from sscbench.cli.demo import CONTROLS_PER_OPERATOR, DEMO_AGENTS, EVAL_DIR, _truth_tables
from sscbench.cli.rare_gc import rare_collections
from sscbench.cli.reconstruct import LABELS_FILE
from sscbench.experiments.inline import control_tasks, run_case_set, run_clean_tasks
from sscbench.oracles.dataset import ledgers
from sscbench.oracles.validation import validate_against_truth
from sscbench.reconstruct.label import label_ledger
from sscbench.reconstruct.run_set import write_labels
from sscbench.reconstruct.validate import validate_dir
from sscbench.terminal import make_console

import sscbench.analysis.report as report_module

STAGES: dict[str, float] = {"imports": time.process_time() - STARTED}


@contextmanager
def stage(name: str):
    began = time.process_time()
    try:
        yield
    finally:
        STAGES[name] = STAGES.get(name, 0.0) + time.process_time() - began


def _timed_figures(render_all):
    def figures(result):
        with stage("report: figures"):
            return render_all(result)
    return figures


report_module.render_all = _timed_figures(report_module.render_all)


def main(cases: Path, out: Path) -> None:
    with stage("case set"):
        case_set = load_case_set(cases)
    seeds = range(2)
    controls = control_tasks(case_set, CONTROLS_PER_OPERATOR)
    clean_dir = out.with_name(f"{out.name}-clean")
    with stage("runs"):
        run_case_set(case_set, DEMO_AGENTS, out, seeds=seeds)
        run_clean_tasks(controls, "scripted:gold", clean_dir)
    with stage("ledgers parsed"):
        runs = ledgers([out])
    with stage("labelling"):
        labels = [label_ledger(run_dir, ledger) for run_dir, ledger in runs]
        hashes = {d.relative_to(out).as_posix(): ledger.sha256 for d, ledger in runs}
        write_labels(out / LABELS_FILE, labels, out, hashes)
    with stage("oracles"):
        validation = validate_against_truth(out, [clean_dir], labels, out / EVAL_DIR, runs=runs)
    with stage("analysis"):
        result = analyze(labels, case_set)
    with stage("report"):
        by_id = {ledger.header.run_id: ledger for _, ledger in runs}
        write_report(result, labels, out, out / "report", ledgers=by_id)
    with stage("check and tables"):
        console = make_console()
        console.print(summary_table(result, f"adoption by arrival, {len(labels)} runs"))
        agreement, compared = validate_dir(out, labels, validation.truths)
        console.print(f"reconstruction vs scripted ground truth ({compared} runs)")
        _truth_tables(console, validation)


with rare_collections():  # as the demo's handler runs
    main(Path(sys.argv[1]), Path(sys.argv[2]))
# The report's figures are inside its stage: shown apart, counted once.
STAGES["report"] -= STAGES.get("report: figures", 0.0)
Path(sys.argv[3]).write_text(json.dumps(STAGES))
gc.freeze()  # the process ends as the command's does (sscbench.cli.main.entry)
"""


def run_ids(work: Path) -> set[str]:
    """The run directories a side wrote (relative paths of every ledger's folder)."""
    return {p.parent.relative_to(work).as_posix() for p in work.rglob("ledger.jsonl")}


def one(
    side: str, where: Path, baseline_src: Path, stages_src: Path | None = None
) -> tuple[dict[str, Any], set[str]]:
    """One side's demo work into a fresh directory: CPU, wall, peak RSS, runs made.
    ``stages_src``: the baseline side runs this tree's stages on that package instead of
    the baseline's own demo."""
    work = where / side
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    if side == "baseline" and stages_src is None:
        argv = [sys.executable, "-m", "sscbench", "demo", "--out", "demo"]
        result = timed(argv, work, baseline_src)
    else:
        cases = baseline_src / "sscbench" / "data" / "cases"
        stages = work / "stages.json"
        package = stages_src if side == "baseline" else None
        argv = [sys.executable, "-c", CHILD, str(cases), "demo", str(stages)]
        result = timed(argv, work, package)
        result["stages_cpu_s"] = json.loads(stages.read_text())
    ids = run_ids(work)
    result["runs"] = len(ids)
    result["cpu_ms_per_run"] = 1000 * result["cpu_s"] / max(len(ids), 1)
    return result, ids


def main(argv: list[str] | None = None) -> int:
    """Alternate the two sides ``--rounds`` times; print and write the medians and ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--baseline", default="eb1de7c", help="git commit whose demo to redo")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out", type=Path, help="write the results as JSON here")
    parser.add_argument(
        "--stages-of",
        metavar="REF",
        help="instead of the baseline's own demo, run these same stages on commit REF's "
        "package (the baseline's case set still): two trees on identical work",
    )
    args = parser.parse_args(argv)
    results: dict[str, Any] = {
        "baseline_ref": args.baseline,
        "machine": {"nproc": os.cpu_count(), "loadavg_start": list(os.getloadavg())},
    }
    with tempfile.TemporaryDirectory(prefix="sscbench-same-work-") as tmp:
        root = Path(tmp)
        src = unpack(args.baseline, root / "baseline-src")
        compile_tree(src / "sscbench")
        stages_src = None
        if args.stages_of is not None:
            stages_src = unpack(args.stages_of, root / "stages-src")
            compile_tree(stages_src / "sscbench")
            results["stages_of"] = args.stages_of
        compile_tree(ROOT / "sscbench")
        sides: dict[str, list[dict[str, Any]]] = {"baseline": [], "current": []}
        same_runs = True
        for r in range(args.rounds):
            ids: dict[str, set[str]] = {}
            for side in ("baseline", "current") if r % 2 == 0 else ("current", "baseline"):
                measured, ids[side] = one(side, root / f"r{r}", src, stages_src)
                sides[side].append(measured)
                print(f"[same-work] round {r} {side}: {measured}", file=sys.stderr)
            same_runs = same_runs and ids["baseline"] == ids["current"]
    results["machine"]["loadavg_end"] = list(os.getloadavg())
    results["same_run_ids"] = same_runs
    for side, rows in sides.items():
        results[side] = summary(rows)
        if "stages_cpu_s" in rows[0]:
            results[side]["stages_cpu_s_median"] = {
                name: sorted(r["stages_cpu_s"][name] for r in rows)[len(rows) // 2]
                for name in rows[0]["stages_cpu_s"]
            }
    pairs = [
        c["cpu_s"] / b["cpu_s"] for b, c in zip(sides["baseline"], sides["current"], strict=True)
    ]
    results["cpu_ratio_per_round"] = [round(p, 3) for p in pairs]
    results["cpu_ratio_medians"] = (
        results["current"]["cpu_s_median"] / results["baseline"]["cpu_s_median"]
    )
    b, c = results["baseline"], results["current"]
    print(
        f"same runs: {same_runs}; baseline {b['cpu_s_median']:.1f} s, current "
        f"{c['cpu_s_median']:.1f} s CPU (medians); ratio {results['cpu_ratio_medians']:.3f} "
        f"(rounds: {', '.join(f'{p:.3f}' for p in pairs)}); peak RSS "
        f"{b['peak_rss_mib_max']:.0f} / {c['peak_rss_mib_max']:.0f} MiB"
    )
    for side in sides:
        if "stages_cpu_s_median" in results[side]:
            split = ", ".join(
                f"{k} {v:.2f}" for k, v in results[side]["stages_cpu_s_median"].items()
            )
            print(f"{side}, CPU s per stage (medians): {split}")
    if args.out is not None:
        args.out.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
