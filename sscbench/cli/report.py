"""``sscbench report RUNDIR``: analyse the labelled runs and write the HTML report.

Reads ``RUNDIR/labels.jsonl`` (from ``sscbench reconstruct``), computes the §7 analysis
(or reads a saved ``AnalysisResult`` with ``--analysis``), and writes ``report.html`` with
``analysis.json``, ``tables/*.csv``, ``tables/*.tex`` and ``figures/*.svg`` beside it.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from pydantic import ValidationError

from sscbench.cli.params import executor_choice
from sscbench.cli.rare_gc import collecting_rarely
from sscbench.cli.reconstruct import LABELS_FILE
from sscbench.errors import ConfigError, OutputError

if TYPE_CHECKING:
    from collections.abc import Sequence

    from sscbench.analysis.correction import ValidationSample
    from sscbench.analysis.results import AnalysisResult
    from sscbench.reconstruct.labels import LabelView

SCHEDULE_FILE = "schedule.jsonl"
REPORT_DIR = "report"
SENSITIVITY_CHOICES = (
    "primary",
    "common_seeds",
    "all_repetitions",
    "strict_item_option",
    "controls_included",
)
"""``analysis.population.SENSITIVITIES``, written out so that ``--help`` imports no numpy (a
test keeps them equal)."""


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
        choices=SENSITIVITY_CHOICES,
        default="primary",
        help="population variant (default: primary)",
    )
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed (default: 0)")
    p.add_argument(
        "--validation",
        metavar="REVIEWDIR|truth",
        help="correct adoption for the reconstructor's error, measured on a validation "
        "sample: a review directory's adjudicated reference, or `truth` (scripted agents' "
        "ground truth standing in for it)",
    )
    p.add_argument(
        "--clean",
        type=Path,
        action="append",
        default=[],
        metavar="DIR",
        help="another directory of clean runs to pair the faulted runs with, for task "
        "success under fault and pass^k (RUNDIR's own clean runs are always read; "
        "repeatable; sscbench demo keeps them in OUT-clean-agents)",
    )
    p.add_argument(
        "--viewer",
        choices=("auto", "embed", "link"),
        default="auto",
        help="put the trajectory viewer's run index in report.html (embed), on its own page "
        "trajectories.html (link), or embed it up to 2,000 runs (auto, the default); runs "
        "always load on demand from shard files in runs/ (256 runs a file)",
    )
    p.add_argument(
        "--executor",
        type=executor_choice,
        default=("local", None),
        metavar="local|ray[=ADDRESS]",
        help="compute the bootstrap intervals here (default), or as Ray tasks — a local "
        "cluster, or the one at ADDRESS (same numbers)",
    )
    p.set_defaults(handler=handle)


def _analysis(args: argparse.Namespace, labels: Sequence[LabelView]) -> AnalysisResult:
    from sscbench.analysis.population import AnalysisWarning, Sensitivity, read_schedule
    from sscbench.analysis.results import AnalysisResult
    from sscbench.records.ledger import TruncatedLineWarning
    from sscbench.user_files import read_user_bytes, validation_problem

    if args.analysis is not None:
        try:
            text = read_user_bytes(args.analysis, "--analysis").decode("utf-8")
            return AnalysisResult.model_validate_json(text)
        except UnicodeDecodeError as exc:
            raise ConfigError(
                f"{args.analysis}: not valid UTF-8 (byte {exc.start}); give the analysis.json "
                "a previous `sscbench report` wrote"
            ) from None
        except ValidationError as exc:
            raise ConfigError(
                f"{args.analysis}: not an analysis result ({validation_problem(exc)}); give "
                "the analysis.json a previous `sscbench report` wrote"
            ) from None
    from sscbench.analysis.mitigation import read_run_steps
    from sscbench.analysis.mitigation_cost import read_run_usage
    from sscbench.analysis.quantities import analyze
    from sscbench.analysis.task_success import read_clean_outcomes
    from sscbench.cases.caseset import load_case_set

    for extra in args.clean:
        if not extra.is_dir():
            raise ConfigError(f"--clean {extra}: not a directory of runs")

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", TruncatedLineWarning)
        schedule = read_schedule(args.rundir / SCHEDULE_FILE)
        clean = read_clean_outcomes([args.rundir, *args.clean])
        steps = read_run_steps([args.rundir])
        usage = read_run_usage([args.rundir])
    # a crash cut the last line: say so in one line (once per file), carry on
    for message in dict.fromkeys(str(w.message) for w in caught):
        print(f"warning: {message}", file=sys.stderr)
    sample = _validation(args, labels)
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always", AnalysisWarning)
        case_set = load_case_set(args.cases)

        def run() -> AnalysisResult:
            return analyze(
                labels,
                case_set,
                sensitivity=cast(Sensitivity, args.sensitivity),
                seed=args.seed,
                schedule=schedule.runs if schedule else None,
                first_seeds=schedule.first_seeds if schedule else None,
                gated=schedule.gated if schedule else (),
                validation=sample,
                clean=clean or None,
                steps=steps,
                usage=usage,
            )

        if args.executor[0] == "ray":
            from sscbench.analysis.fanout import with_bootstrap_on_ray

            result = with_bootstrap_on_ray(run, args.executor[1])
        else:
            result = run()
    for message in dict.fromkeys(str(w.message) for w in said):  # one line each, once
        print(f"warning: {message}", file=sys.stderr)
    return result


def _validation(args: argparse.Namespace, labels: Sequence[LabelView]) -> ValidationSample | None:
    """The validation sample ``--validation`` names (None when not given)."""
    from sscbench.analysis.validation_sample import from_review, from_truth

    if args.validation is None:
        return None
    if args.validation == "truth":
        return from_truth(args.rundir, labels)
    review = Path(args.validation)
    if not review.is_dir():
        raise ConfigError(
            f"--validation {review}: not a directory; give a review directory from "
            "`sscbench review export` (labelled and agreed) or `truth`"
        )
    return from_review(review)


def _print_answer(result: AnalysisResult) -> None:
    """The report's first table and its readings, on the terminal."""
    from sscbench.analysis.terminal import answer_readings, answer_table
    from sscbench.terminal import make_console

    table = answer_table(result)
    if table is None:
        return
    out = make_console(highlight=False)
    out.print(table)
    for line in answer_readings(result):
        out.print(line, soft_wrap=False)


@collecting_rarely
def handle(args: argparse.Namespace) -> int:
    """Analyse (or load the analysis), write the report, print where it is."""
    from sscbench import heartbeat
    from sscbench.analysis.report import (  # matplotlib: only when used
        check_report_dir,
        write_report,
    )
    from sscbench.reconstruct.labels import LabelIndex, LabelSummary
    from sscbench.reconstruct.run_set import check_labels_current
    from sscbench.user_files import check_output_dir

    root: Path = args.rundir
    if not root.is_dir():
        raise ConfigError(f"{root} is not a directory of runs")
    labels_path: Path = args.labels or root / LABELS_FILE
    if not labels_path.is_file():
        raise ConfigError(f"{labels_path} not found; run `sscbench reconstruct {root}` first")
    out: Path = args.out or root / REPORT_DIR
    check_output_dir(out, "--out")
    check_report_dir(out)
    # One read of the labels file: a small summary of each run for the analysis, and
    # where each run's line is, to read its full labels again for its page.
    labels: list[LabelSummary] = []
    index = LabelIndex(labels_path, labels)
    if not labels:
        raise ConfigError(
            f"{labels_path} holds no run labels; run `sscbench reconstruct {root}` first"
        )
    check_labels_current(labels_path, root, index)
    heartbeat.phase(f"analysing {len(labels):,} labelled runs")
    result = _analysis(args, labels)
    heartbeat.phase("writing the report (figures, tables, the runs in shards of 256)")
    try:
        files = write_report(result, labels, root, out, viewer=args.viewer, full=index.get)
    except OSError as exc:  # a full disk: the staging directory is gone, the old report stays
        raise OutputError(exc.filename or out, exc) from None
    for problem in files.problems:
        print(f"warning: {problem}")
    _print_answer(result)
    print(f"report: {files.report_path}")
    if files.trajectories is not None:
        print(f"trajectories: {out / files.trajectories}")
    print(f"tables: {out / 'tables'} (CSV, LaTeX); analysis: {out / files.tables.json}")
    return 0
