"""``sscbench review``: export masked packets, serve the annotation page, compute agreement."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from rich.console import Console

from sscbench.errors import ConfigError
from sscbench.terminal import make_console

WILDCARD = {"0.0.0.0", "::", ""}


DEFAULT_URL = "http://127.0.0.1:8765/"
REVIEWERS = ("A", "B", "C")
ADJUDICATOR = "D"
"""The review package's defaults, written out so that ``--help`` imports none of it (a test
keeps them equal)."""


def _names(text: str) -> tuple[str, ...]:
    return tuple(r.strip() for r in text.split(",") if r.strip())


def _people(parser: Any) -> None:
    parser.add_argument(
        "--reviewers",
        default=",".join(REVIEWERS),
        help=f"first-round reviewers, comma-separated (default {','.join(REVIEWERS)})",
    )
    parser.add_argument("--adjudicator", default=ADJUDICATOR, help=f"default {ADJUDICATOR}")


def register(sub: Any) -> None:
    """Add ``review export``, ``review tokens``, ``review serve`` and ``review agree``."""
    p = sub.add_parser("review", help="human review: masked packets, annotation page, agreement")
    actions = p.add_subparsers(dest="review_command", required=True, metavar="ACTION")

    exp = actions.add_parser("export", help="sample runs and write masked review packets")
    exp.add_argument("rundir", type=Path, help="a directory of runs (with labels.jsonl, or not)")
    exp.add_argument("--sample", type=int, metavar="N", help="packets to write")
    exp.add_argument(
        "--plan",
        type=Path,
        metavar="PLAN.json",
        help="draw the quotas of a `review plan` (per operator, configuration and automatic "
        "cell) instead of --sample",
    )
    exp.add_argument(
        "--order",
        choices=("strata", "confidence"),
        default="strata",
        help="strata: round-robin over (operator, configuration, arrival class), at random "
        "(default); confidence: the N least confident adoption labels first (finds errors; "
        "not a validation sample for the corrected figures)",
    )
    exp.add_argument("--seed", type=int, default=0, help="sampling seed (default 0)")
    exp.add_argument("--out", type=Path, required=True, help="new review directory")
    exp.add_argument(
        "--include-controls",
        action="store_true",
        help="also sample target-value controls (not in the primary adoption analysis)",
    )
    exp.add_argument(
        "--calibration",
        type=int,
        default=5,
        metavar="N",
        help="calibration packets outside the sample, labelled first (default 5; 0: none)",
    )
    _people(exp)
    exp.add_argument(
        "--serve-url",
        default=DEFAULT_URL,
        help=f"address `review serve` will answer at, for the printed URLs (default {DEFAULT_URL})",
    )
    exp.set_defaults(handler=handle_export)

    pln = actions.add_parser(
        "plan", help="how many runs to review, and which, for a target corrected half-width"
    )
    pln.add_argument("rundir", type=Path, help="a directory of runs (with labels.jsonl, or not)")
    pln.add_argument(
        "--half-width",
        type=float,
        default=0.05,
        help="target half-width of each corrected a_s, every operator pooled (default 0.05)",
    )
    pln.add_argument(
        "--error",
        type=float,
        default=0.07,
        help="assumed share of runs whose automatic cell is wrong (default 0.07)",
    )
    pln.add_argument("--out", type=Path, help="write the plan here (for `review export --plan`)")
    pln.set_defaults(handler=handle_plan)

    tok = actions.add_parser("tokens", help="issue new reviewer tokens (old ones stop working)")
    tok.add_argument("dir", type=Path, help="a review directory from `review export`")
    _people(tok)
    tok.add_argument("--serve-url", default=DEFAULT_URL, help=f"default {DEFAULT_URL}")
    tok.set_defaults(handler=handle_tokens)

    srv = actions.add_parser("serve", help="start the local annotation page")
    srv.add_argument("dir", type=Path, help="a review directory from `review export`")
    srv.add_argument("--host", default="127.0.0.1", help="bind address (default: loopback)")
    srv.add_argument("--port", type=int, default=8765, help="port (default 8765)")
    srv.set_defaults(handler=handle_serve)

    agr = actions.add_parser("agree", help="κ, step agreement, reference, automatic vs reference")
    agr.add_argument("dir", type=Path, help="a review directory with reviewers' labels")
    _people(agr)
    agr.add_argument("--mismatches", type=int, default=20, help="mismatches to list (default 20)")
    agr.set_defaults(handler=handle_agree)


def handle_export(args: argparse.Namespace) -> int:
    """Sample, mask, write; print where things went (no per-packet details)."""
    from sscbench.review.export import export_review
    from sscbench.user_files import check_output_dir

    check_output_dir(args.out, "--out")
    if (args.sample is None) == (args.plan is None):
        raise ConfigError("give --sample N or --plan PLAN.json (one of them)")
    if args.plan is not None and args.order != "strata":
        raise ConfigError("--order confidence takes --sample N, not a --plan")
    plan = None
    if args.plan is not None:
        from sscbench.review.plan import read_plan

        plan = read_plan(args.plan)
    result = export_review(
        args.rundir,
        args.out,
        args.sample if plan is None else plan.total,
        args.seed,
        plan=plan,
        order=args.order,
        include_controls=args.include_controls,
        calibration=args.calibration,
        reviewers=_names(args.reviewers),
        adjudicator=args.adjudicator,
        serve_url=args.serve_url,
    )
    console = make_console(highlight=False)
    console.print(
        f"{len(result.entries)} packets (of {result.eligible} reviewable runs) and "
        f"{len(result.calibration)} calibration packets in {result.out / 'packets'}; "
        f"key in {result.out / 'key.jsonl'} — keep it from reviewers"
    )
    left = result.population.get("left_out", {})
    console.print(
        f"sampled from the main-interface runs of r0 (r0 from {result.population.get('r0_from')}); "
        f"left out: {left.get('paired_check_or_arrival_variant', 0)} paired-check or arrival "
        f"variant runs, {left.get('later_repetition', 0)} runs of later repetitions"
    )
    if len(result.entries) < (args.sample or 0):
        console.print(f"[yellow]only {len(result.entries)} runs were eligible[/yellow]")
    if len(result.calibration) < args.calibration:
        console.print(
            f"[yellow]only {len(result.calibration)} runs outside the sample were left "
            "for calibration[/yellow]"
        )
    _print_urls(console, result.urls or {}, args.out)
    return 0


def handle_plan(args: argparse.Namespace) -> int:
    """Print the plan (per operator and cell; the forecast per configuration and stratum)
    and write it when ``--out`` is given."""
    from sscbench.review.export import automatic_labels
    from sscbench.review.plan import plan_review, write_plan
    from sscbench.review.sample import eligible, review_population
    from sscbench.terminal import compact_table

    if not args.rundir.is_dir():
        raise ConfigError(f"{args.rundir} is not a directory of runs")
    labels, _ = automatic_labels(args.rundir)
    population = review_population(labels, args.rundir)
    runs = [x for x in population.runs if eligible(x, include_controls=False)]
    plan = plan_review(runs, args.half_width, args.error)
    console = make_console(highlight=False)
    table = compact_table(
        f"review plan: {plan.total} runs, up to {plan.per_cell} from every automatic cell of "
        f"each operator\n(target half-width {plan.target_half_width}, assumed error "
        f"{plan.assumed_error})",
        ("operator", "cell", "runs", "review"),
        left=("operator", "cell"),
    )
    merged: dict[tuple[str, str], list[int]] = {}
    for q in plan.quotas:
        row = merged.setdefault((q.operator, q.cell), [0, 0])
        row[0] += q.runs
        row[1] += q.review
    for (op, cell), (n, k) in merged.items():
        table.add_row(op, cell, str(n), str(k))
    console.print(table)
    forecast = compact_table(
        "predicted half-width of the corrected a_s, every operator pooled",
        ("configuration", "stratum", "runs", "half-width", "runs only", "note"),
        left=("configuration", "stratum", "note"),
    )
    for f in plan.forecast:
        note = "limited by runs" if f.limited_by_runs else ""
        hw = "–" if f.half_width is None else f"{f.half_width:.3f}"
        floor = "–" if f.runs_only is None else f"{f.runs_only:.3f}"
        forecast.add_row(f.configuration, f.stratum, str(f.runs), hw, floor, note)
    console.print(forecast)
    if args.out is not None:
        write_plan(plan, args.out)
        console.print(
            f"plan → {args.out} (draw it: sscbench review export RUNDIR --plan {args.out})"
        )
    return 0


def _print_urls(console: Console, urls: dict[str, str], out: Path) -> None:
    from sscbench.review.access import URLS_FILE

    console.print("give each reviewer their own URL (it holds their secret token):")
    for name, url in urls.items():
        console.print(f"  {name}: {url}", markup=False)
    console.print(f"(also in {out / URLS_FILE}, readable by you only)")


def handle_tokens(args: argparse.Namespace) -> int:
    """Replace every reviewer token of a review directory (labels are kept)."""
    from sscbench.review.access import issue_tokens
    from sscbench.review.report import packet_ids

    packet_ids(args.dir)
    urls = issue_tokens(args.dir, _names(args.reviewers), args.adjudicator, args.serve_url)
    console = make_console(highlight=False)
    _print_urls(console, urls, args.dir)
    console.print("restart `review serve` for the new tokens to take effect")
    return 0


def handle_serve(args: argparse.Namespace) -> int:
    """Run the annotation server until interrupted."""
    import uvicorn

    from sscbench.review.report import packet_ids
    from sscbench.review.server import create_app

    root: Path = args.dir
    if args.host in WILDCARD:
        raise ConfigError(
            f"--host {args.host!r} binds every interface and no Host header could match it; "
            "give the one address reviewers will use (default 127.0.0.1)"
        )
    if not 0 < args.port < 65536:
        raise ConfigError(f"--port {args.port} is not a TCP port (1–65535)")
    count = len(packet_ids(root))
    app = create_app(root, host=args.host, port=args.port)
    shown = f"[{args.host}]" if ":" in args.host else args.host
    print(
        f"serving {count} packets of {root} at http://{shown}:{args.port}/ (Ctrl-C stops); "
        "reviewers open the URLs `review export` printed"
    )
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning", access_log=False)
    return 0


def handle_agree(args: argparse.Namespace) -> int:
    """Print the agreement tables and write reference.jsonl."""
    from sscbench.review.report import agreement_report, report_tables, write_reference

    reviewers = _names(args.reviewers)
    if not reviewers:
        raise ConfigError("--reviewers needs at least one name")
    report = agreement_report(args.dir, reviewers, args.adjudicator)
    console = make_console()
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
