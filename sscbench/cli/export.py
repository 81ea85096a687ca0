"""``sscbench export inspect RUNDIR --out LOGDIR``: runs as Inspect eval logs, one per
configuration, for ``inspect view`` and Inspect's log tools (docs/inspect.md);
``sscbench export results RUNDIR --out BUNDLE``: a results bundle others can compare
(docs/results-bundles.md)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from sscbench.errors import ConfigError


def register(sub: Any) -> None:
    """Add the ``export`` subcommand."""
    p = sub.add_parser(
        "export", help="write runs in another tool's format (Inspect logs), or a results bundle"
    )
    what = p.add_subparsers(dest="format", required=True, metavar="FORMAT")
    inspect = what.add_parser(
        "inspect", help="one Inspect eval log per configuration (needs sscbench[inspect])"
    )
    inspect.add_argument("runs", type=Path, help="a directory of SSCBench runs")
    inspect.add_argument("--out", type=Path, required=True, help="the Inspect log directory")
    inspect.set_defaults(handler=_inspect)
    results = what.add_parser(
        "results", help="a results bundle: configuration cards, case set, labels, analysis"
    )
    results.add_argument("runs", type=Path, help="a directory of labelled SSCBench runs")
    results.add_argument("--out", type=Path, required=True, help="the bundle directory (new)")
    results.add_argument("--cases", type=Path, help="case set directory (default: the shipped one)")
    results.add_argument(
        "--clean",
        type=Path,
        action="append",
        default=[],
        metavar="DIR",
        help="another directory of clean runs (as for `sscbench report`)",
    )
    results.add_argument("--ledgers", action="store_true", help="also copy the runs' ledgers")
    results.set_defaults(handler=_results)
    tau2 = what.add_parser(
        "tau2", help="clean runs as τ²-bench results files (one per domain and configuration)"
    )
    tau2.add_argument("runs", type=Path, help="a directory of SSCBench runs")
    tau2.add_argument("--out", type=Path, required=True, help="the directory of results files")
    tau2.set_defaults(handler=_tau2)


def _tau2(args: argparse.Namespace) -> int:
    from sscbench.imports.tau2_export import export_tau2

    if not args.runs.is_dir():
        raise ConfigError(f"{args.runs} is not a directory of runs")
    summary = export_tau2(args.runs, args.out)
    for path in summary.files:
        print(path)
    left = f"; left out: {summary.faulted} faulted, {summary.unfinished} unfinished"
    print(f"{summary.runs} clean runs in {len(summary.files)} τ² results file(s){left}")
    return 0


def _results(args: argparse.Namespace) -> int:
    from sscbench.analysis.bundle import write_bundle
    from sscbench.analysis.mitigation import read_run_steps
    from sscbench.analysis.mitigation_cost import read_run_usage
    from sscbench.analysis.quantities import analyze
    from sscbench.analysis.task_success import read_clean_outcomes
    from sscbench.cases.caseset import load_case_set
    from sscbench.cli.reconstruct import LABELS_FILE
    from sscbench.reconstruct.labels import read_labels
    from sscbench.reconstruct.run_set import check_labels_current

    root: Path = args.runs
    labels_path = root / LABELS_FILE
    if not labels_path.is_file():
        raise ConfigError(f"{labels_path} not found; run `sscbench reconstruct {root}` first")
    for extra in args.clean:
        if not extra.is_dir():
            raise ConfigError(f"--clean {extra}: not a directory of runs")
    labels = read_labels(labels_path)
    check_labels_current(labels_path, root, labels)
    case_set = load_case_set(args.cases)
    clean = read_clean_outcomes([root, *args.clean])
    result = analyze(
        labels,
        case_set,
        clean=clean or None,
        steps=read_run_steps([root]),
        usage=read_run_usage([root]),
    )
    bundle = write_bundle(
        args.out,
        result,
        labels_path,
        root,
        case_set,
        {label.run_id for label in labels},
        ledgers=args.ledgers,
    )
    print(
        f"bundle: {args.out} ({len(bundle.configurations)} configurations, {len(labels)} runs, "
        f"case set {bundle.case_set.name} {bundle.case_set.version}"
        f"{', ledgers included' if bundle.ledgers else ''})"
    )
    return 0


def _inspect(args: argparse.Namespace) -> int:
    try:
        from sscbench.inspect_task.export import export_inspect
    except ImportError as exc:
        raise ConfigError(
            f"exporting to Inspect needs Inspect AI ({exc.name} is missing): "
            "pip install 'sscbench[inspect]'"
        ) from None
    logs = export_inspect(args.runs, args.out)
    for log in logs:
        print(log)
    print(f"{len(logs)} Inspect log(s) in {args.out}; open them: inspect view --log-dir {args.out}")
    return 0
