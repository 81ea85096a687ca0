"""``sscbench audit grader|matrix``: audit a grader, or inject defects into all three."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from sscbench.terminal import make_console


def register(sub: Any) -> None:
    """Add the ``audit`` subcommand with ``grader`` and ``matrix``."""
    p = sub.add_parser("audit", help="audit a grader: integrity checks and injected defects")
    kinds = p.add_subparsers(dest="audit", required=True, metavar="WHAT")
    g = kinds.add_parser(
        "grader",
        help="run the eight oracle-integrity checks on one target's grader",
        description="INV-1..5 and CTL-1..3 on the target's own grader, per task; writes "
        "audit.json and audit.html (docs/grader-audit.md).",
    )
    g.add_argument("--target", required=True, help="sscbench | tau2 | synthetic")
    g.add_argument("--domain", help="airline or retail (default airline; not for synthetic)")
    g.add_argument("--tasks", help="comma-separated task ids (default: the target's sample)")
    g.add_argument("--out", type=Path, default=Path("audit-out"), help="output directory")
    g.set_defaults(handler=handle_grader)
    m = kinds.add_parser(
        "matrix",
        help="inject the 23 defect variants into all three targets' graders",
        description="Differential probe, detection per class and check, ablation; writes "
        "matrix.json and matrix.html.",
    )
    m.add_argument("--domain", default="airline", help="domain of the sscbench target")
    m.add_argument("--tau2-domain", default="retail", help="domain of the tau2 target")
    m.add_argument("--tasks", type=int, default=2, help="tasks per real target (default 2)")
    m.add_argument("--out", type=Path, default=Path("audit-out"), help="output directory")
    m.set_defaults(handler=handle_matrix)


def handle_grader(args: argparse.Namespace) -> int:
    """Run the checks, write JSON and HTML, print the summary."""
    from sscbench.audit.report import audit_html, to_json, write_outputs
    from sscbench.audit.runner import audit_grader, make_target, select_tasks

    target = make_target(args.target, args.domain)
    tasks = select_tasks(target, args.tasks)
    record = audit_grader(target, tasks)
    paths = write_outputs(
        args.out, {"audit.json": to_json(record), "audit.html": audit_html(record)}
    )
    console = make_console(highlight=False)
    console.print(f"{record.grader} on {record.domain}, tasks {', '.join(tasks)}")
    for check, counts in record.summary.items():
        console.print(
            f"  {check}: {counts['pass']} pass, {counts['violated']} violated, "
            f"{counts['not_applicable']} not applicable"
        )
    console.print("wrote " + ", ".join(str(p) for p in paths))
    return 0


def handle_matrix(args: argparse.Namespace) -> int:
    """Run the matrix, write JSON and HTML, print per-class detection."""
    from sscbench.audit.report import matrix_html, to_json, write_outputs
    from sscbench.audit.runner import default_matrix_runs, injection_matrix
    from sscbench.errors import ConfigError

    if args.tasks < 1:
        raise ConfigError(f"--tasks must be at least 1, got {args.tasks}")
    runs = default_matrix_runs(args.domain, args.tau2_domain, args.tasks)
    console = make_console(stderr=True, highlight=False)
    record = injection_matrix(runs, on_progress=lambda s: console.print(s, style="dim"))
    paths = write_outputs(
        args.out, {"matrix.json": to_json(record), "matrix.html": matrix_html(record)}
    )
    out = make_console(highlight=False)
    for row in record.classes:
        out.print(
            f"{row.description}: detected {row.detected_of_distinguishable}/"
            f"{row.distinguishable} distinguishable ({row.combinations} combinations); "
            f"necessary: {', '.join(row.necessary) or 'none'}"
        )
    d, n = record.detected_of_distinguishable
    a, m = record.detected_of_all
    out.print(
        f"detected {d}/{n} distinguishable, {a}/{m} of all; missed: "
        + (", ".join(record.missed) or "none")
    )
    out.print("wrote " + ", ".join(str(p) for p in paths))
    return 0
