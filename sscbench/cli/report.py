"""``sscbench report RUNDIR``: analyse the labelled runs and write the HTML report.

Reads ``RUNDIR/labels.jsonl`` (from ``sscbench reconstruct``), computes the §7 analysis
(or reads a saved ``AnalysisResult`` with ``--analysis``), and writes ``report.html`` with
``analysis.json``, ``tables/*.csv``, ``tables/*.tex`` and ``figures/*.svg`` beside it.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, cast

from pydantic import ValidationError

from sscbench.analysis.population import SENSITIVITIES, Sensitivity, read_labels, read_schedule
from sscbench.analysis.results import AnalysisResult
from sscbench.errors import ConfigError
from sscbench.reconstruct.labels import RunLabels

LABELS_FILE = "labels.jsonl"
SCHEDULE_FILE = "schedule.jsonl"
REPORT_DIR = "report"


def register(sub: Any) -> None:
    """Add the ``report`` subcommand."""
    p = sub.add_parser("report", help="write the HTML report, tables and figures of a run set")
    p.add_argument("rundir", type=Path, help="a directory of runs with labels.jsonl")
    p.add_argument("--labels", type=Path, help=f"labels file (default: RUNDIR/{LABELS_FILE})")
    p.add_argument("--out", type=Path, help=f"output directory (default: RUNDIR/{REPORT_DIR})")
    p.add_argument(
        "--analysis",
        type=Path,
        help="use a saved analysis.json instead of computing the analysis",
    )
    p.add_argument("--cases", type=Path, help="case set directory (default: the shipped one)")
    p.add_argument(
        "--sensitivity",
        choices=SENSITIVITIES,
        default="primary",
        help="population variant (default: primary)",
    )
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed (default: 0)")
    p.add_argument(
        "--viewer",
        choices=("auto", "embed", "link"),
        default="auto",
        help="embed the trajectory viewer in report.html, put it in trajectories.html, "
        "or decide by size (default)",
    )
    p.set_defaults(handler=handle)


def _analysis(args: argparse.Namespace, labels: list[RunLabels]) -> AnalysisResult:
    if args.analysis is not None:
        try:
            return AnalysisResult.model_validate_json(args.analysis.read_text(encoding="utf-8"))
        except (OSError, ValidationError) as exc:
            raise ConfigError(f"{args.analysis}: not a readable analysis result ({exc})") from exc
    from sscbench.analysis.quantities import analyze
    from sscbench.witnesses.caseset import load_case_set

    schedule = read_schedule(args.rundir / SCHEDULE_FILE)
    return analyze(
        labels,
        load_case_set(args.cases),
        sensitivity=cast(Sensitivity, args.sensitivity),
        seed=args.seed,
        schedule=schedule.runs if schedule else None,
        first_seeds=schedule.first_seeds if schedule else None,
        gated=schedule.gated if schedule else (),
    )


def handle(args: argparse.Namespace) -> int:
    """Analyse (or load the analysis), write the report, print where it is."""
    from sscbench.analysis.report import write_report  # matplotlib: only when used

    root: Path = args.rundir
    if not root.is_dir():
        raise ConfigError(f"{root} is not a directory of runs")
    labels_path: Path = args.labels or root / LABELS_FILE
    if not labels_path.is_file():
        raise ConfigError(f"{labels_path} not found; run `sscbench reconstruct {root}` first")
    labels = read_labels(labels_path)
    result = _analysis(args, labels)
    out: Path = args.out or root / REPORT_DIR
    files = write_report(result, labels, root, out, viewer=args.viewer)
    for problem in files.problems:
        print(f"warning: {problem}")
    print(f"report: {files.report_path}")
    if files.trajectories is not None:
        print(f"trajectories: {out / files.trajectories}")
    print(f"tables: {out / 'tables'} (CSV, LaTeX); analysis: {out / files.tables.json}")
    return 0
