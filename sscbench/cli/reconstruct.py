"""``sscbench reconstruct RUNDIR``: label every run, write labels.jsonl, print a summary."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from sscbench.cli.params import parse_params
from sscbench.errors import ConfigError
from sscbench.reconstruct.label import label_dir
from sscbench.reconstruct.llm_classifier import LLMClassifier
from sscbench.reconstruct.summary import summary_table
from sscbench.reconstruct.validate import QUANTITIES, validate_dir

LABELS_FILE = "labels.jsonl"
CLASSIFIER_CALLS_FILE = "classifier_calls.jsonl"


def _classifier(args: argparse.Namespace) -> LLMClassifier:
    params = parse_params(args.classifier_param, "--classifier-param")
    provider = params.pop("provider", None)
    if provider is None:
        raise ConfigError("--classifier llm needs --classifier-param provider=openai|anthropic|...")
    return LLMClassifier(provider, **params)


def register(sub: Any) -> None:
    """Add the ``reconstruct`` subcommand."""
    p = sub.add_parser(
        "reconstruct", help="label arrival, first use, reliance and adoption per run"
    )
    p.add_argument("rundir", type=Path, help="a directory of runs (searched recursively)")
    p.add_argument("--out", type=Path, help=f"labels file (default: RUNDIR/{LABELS_FILE})")
    p.add_argument(
        "--validate", action="store_true", help="compare with scripted agents' ground truth"
    )
    p.add_argument(
        "--classifier",
        choices=("rules", "llm"),
        default="rules",
        help="pass 2: the operators' rules (default, offline) or an LLM",
    )
    p.add_argument(
        "--classifier-param",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="LLM classifier setting: provider=openai|anthropic|openai-compatible, model=..., "
        "base_url=..., api_key_env=..., cache_dir=... (repeatable)",
    )
    p.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    """Label, write and summarise; optionally validate."""
    root: Path = args.rundir
    if not root.is_dir():
        raise ConfigError(f"{root} is not a directory of runs")
    classifier = _classifier(args) if args.classifier == "llm" else None
    labels = label_dir(root, classifier)
    if classifier is not None:
        with (root / CLASSIFIER_CALLS_FILE).open("a", encoding="utf-8") as fh:
            for call in classifier.provider_calls:
                fh.write(call.model_dump_json() + "\n")
    out: Path = args.out or root / LABELS_FILE
    tmp = out.with_suffix(".tmp")
    with tmp.open("w", encoding="utf-8") as fh:
        for label in labels:
            fh.write(label.model_dump_json() + "\n")
    tmp.replace(out)
    console = Console(soft_wrap=True, width=140)
    table = summary_table(labels, f"{len(labels)} runs → {out}")
    console.print(table)
    if args.validate:
        agreement, runs = validate_dir(root, labels)
        check = Table(title=f"agreement with scripted ground truth ({runs} faulted scripted runs)")
        for column in ("quantity", "agree", "compared", "undecidable"):
            check.add_column(column)
        for q in QUANTITIES:
            check.add_row(
                q,
                str(agreement.agree[q]),
                str(agreement.compared[q]),
                str(agreement.undecidable[q]),
            )
        console.print(check)
        for run_id, quantity, ours, truth in agreement.mismatches[:20]:
            console.print(
                f"[red]mismatch[/red] {run_id} {quantity}: reconstructed {ours}, truth {truth}"
            )
        return 1 if agreement.mismatches else 0
    return 0
