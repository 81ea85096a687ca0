"""``sscbench demo``: the offline, keyless main job on the shipped case set.

Runs the scripted reference agents over every shipped case with its fault injected,
reconstructs arrival, first use and adoption for every run, checks the reconstruction
against the agents' private ground truth, and prints the adoption-by-arrival table.
Re-running resumes: finished runs are kept.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from sscbench.cli.reconstruct import LABELS_FILE

if TYPE_CHECKING:
    from sscbench.runs.runner import EpisodeOutcome

DEMO_AGENTS = ("scripted:careful", "scripted:gold", "scripted:hasty", "scripted:mixed")


def register(sub: Any) -> None:
    """Add the ``demo`` subcommand."""
    p = sub.add_parser("demo", help="run the scripted agents on the shipped case set, offline")
    p.add_argument("--out", type=Path, default=Path("runs/demo"), help="output directory")
    p.add_argument("--cases", type=Path, help="case set directory (default: the shipped one)")
    p.add_argument("--seeds", type=int, default=2, help="repetitions per case and agent")
    p.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    """Run, reconstruct, validate, summarise."""
    # Imported here so that `sscbench --help` does not pay for matplotlib and τ².
    from sscbench.analysis.quantities import analyze
    from sscbench.analysis.report import write_report
    from sscbench.analysis.terminal import summary_table
    from sscbench.reconstruct.label import label_dir
    from sscbench.reconstruct.validate import QUANTITIES, validate_dir
    from sscbench.runs.cases import run_cases
    from sscbench.witnesses.caseset import load_case_set

    console = Console(stderr=True, soft_wrap=True, width=140)
    case_set = load_case_set(args.cases)
    seeds = range(args.seeds)
    total = len(case_set.cases) * len(DEMO_AGENTS) * len(seeds)
    started = time.perf_counter()
    failed = 0
    with Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=console,
        transient=True,
    ) as progress:
        bar = progress.add_task(
            f"{case_set.manifest.name} × {len(DEMO_AGENTS)} agents", total=total
        )

        def done(outcome: EpisodeOutcome) -> None:
            nonlocal failed
            failed += outcome.end.termination == "harness_error"
            progress.advance(bar)

        run_cases(case_set, DEMO_AGENTS, args.out, seeds=seeds, on_done=done)
    labels = label_dir(args.out)
    with (args.out / LABELS_FILE).open("w", encoding="utf-8") as fh:
        for label in labels:
            fh.write(label.model_dump_json() + "\n")
    out = Console(soft_wrap=True, width=140)
    with console.status("analysing and writing the report"):
        result = analyze(labels, case_set)
        files = write_report(result, labels, args.out, args.out / "report")
    out.print(
        summary_table(
            result,
            f"adoption by arrival — {len(labels)} runs of {len(case_set.cases)} cases, "
            f"{len(seeds)} repetitions",
        )
    )
    agreement, runs = validate_dir(args.out, labels)
    checks = ", ".join(f"{q} {agreement.agree[q]}/{agreement.compared[q]}" for q in QUANTITIES)
    out.print(f"reconstruction vs scripted ground truth ({runs} runs): {checks}")
    out.print(
        f"{total} runs ({failed} harness errors) in {time.perf_counter() - started:.1f} s; "
        f"ledgers under {args.out}, labels in {args.out / LABELS_FILE}"
    )
    out.print(f"report: {files.report_path}")
    return 1 if failed or agreement.mismatches else 0
