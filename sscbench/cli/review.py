"""``sscbench review``: export masked packets, serve the annotation page, compute agreement."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from rich.console import Console

from sscbench.errors import ConfigError
from sscbench.review.agreement import ADJUDICATOR, REVIEWERS


def register(sub: Any) -> None:
    """Add ``review export``, ``review serve`` and ``review agree``."""
    p = sub.add_parser("review", help="human review: masked packets, annotation page, agreement")
    actions = p.add_subparsers(dest="review_command", required=True, metavar="ACTION")

    exp = actions.add_parser("export", help="sample runs and write masked review packets")
    exp.add_argument("rundir", type=Path, help="a directory of runs (with labels.jsonl, or not)")
    exp.add_argument("--sample", type=int, required=True, metavar="N", help="packets to write")
    exp.add_argument("--seed", type=int, default=0, help="sampling seed (default 0)")
    exp.add_argument("--out", type=Path, required=True, help="new review directory")
    exp.add_argument(
        "--include-controls",
        action="store_true",
        help="also sample target-value controls (not in the primary adoption analysis)",
    )
    exp.set_defaults(handler=handle_export)

    srv = actions.add_parser("serve", help="start the local annotation page")
    srv.add_argument("dir", type=Path, help="a review directory from `review export`")
    srv.add_argument("--host", default="127.0.0.1", help="bind address (default: loopback)")
    srv.add_argument("--port", type=int, default=8765, help="port (default 8765)")
    srv.set_defaults(handler=handle_serve)

    agr = actions.add_parser("agree", help="κ, step agreement, reference, automatic vs reference")
    agr.add_argument("dir", type=Path, help="a review directory with reviewers' labels")
    agr.add_argument(
        "--reviewers",
        default=",".join(REVIEWERS),
        help=f"first-round reviewers, comma-separated (default {','.join(REVIEWERS)})",
    )
    agr.add_argument("--adjudicator", default=ADJUDICATOR, help=f"default {ADJUDICATOR}")
    agr.add_argument("--mismatches", type=int, default=20, help="mismatches to list (default 20)")
    agr.set_defaults(handler=handle_agree)


def handle_export(args: argparse.Namespace) -> int:
    """Sample, mask, write; print where things went (no per-packet details)."""
    from sscbench.review.export import export_review

    result = export_review(
        args.rundir, args.out, args.sample, args.seed, include_controls=args.include_controls
    )
    console = Console(soft_wrap=True, width=140)
    console.print(
        f"{len(result.entries)} packets (of {result.eligible} reviewable runs) in "
        f"{result.out / 'packets'}; key in {result.out / 'key.jsonl'} — keep it from reviewers"
    )
    if len(result.entries) < args.sample:
        console.print(f"[yellow]only {len(result.entries)} runs were eligible[/yellow]")
    return 0


def handle_serve(args: argparse.Namespace) -> int:
    """Run the annotation server until interrupted."""
    import uvicorn

    from sscbench.review.report import packet_ids
    from sscbench.review.server import create_app

    root: Path = args.dir
    count = len(packet_ids(root))
    print(f"serving {count} packets of {root} at http://{args.host}:{args.port}/ (Ctrl-C stops)")
    uvicorn.run(create_app(root), host=args.host, port=args.port, log_level="warning")
    return 0


def handle_agree(args: argparse.Namespace) -> int:
    """Print the agreement tables and write reference.jsonl."""
    from sscbench.review.report import agreement_report, report_tables, write_reference

    reviewers = tuple(r.strip() for r in args.reviewers.split(",") if r.strip())
    if not reviewers:
        raise ConfigError("--reviewers needs at least one name")
    report = agreement_report(args.dir, reviewers, args.adjudicator)
    console = Console(soft_wrap=True, width=140)
    for table in report_tables(report):
        console.print(table)
    for pid, quantity, auto, ref in report.comparison.mismatches[: args.mismatches]:
        console.print(f"[red]mismatch[/red] {pid} {quantity}: automatic {auto}, reference {ref}")
    pending = [r for r in report.references if r.status != "accepted"]
    for waiting in pending[: args.mismatches]:
        console.print(f"[yellow]{waiting.status}[/yellow] {waiting.packet_id}: {waiting.note}")
    path = write_reference(args.dir, report)
    console.print(f"reference labels → {path}")
    return 0
