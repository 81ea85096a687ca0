"""``sscbench reconstruct RUNDIR``: label every run, write labels.jsonl, print a summary."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.table import Table

from sscbench.cli.params import executor_choice, parse_params
from sscbench.cli.rare_gc import rare_collections
from sscbench.errors import ConfigError
from sscbench.terminal import make_console

if TYPE_CHECKING:
    from sscbench.reconstruct.adjudicate import Adjudicator
    from sscbench.reconstruct.labels import RunLabels
    from sscbench.reconstruct.llm_classifier import LLMClassifier
    from sscbench.reconstruct.validate import Agreement
    from sscbench.records.ledger import Ledger

LABELS_FILE = "labels.jsonl"
CLASSIFIER_CALLS_FILE = "classifier_calls.jsonl"


def _classifier(args: argparse.Namespace) -> LLMClassifier:
    from sscbench.reconstruct.llm_classifier import LLMClassifier

    params = parse_params(args.classifier_param, "--classifier-param")
    provider = params.pop("provider", None)
    if provider is None:
        raise ConfigError(
            f"--classifier {args.classifier} needs --classifier-param "
            "provider=openai|anthropic|openai-compatible"
        )
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
        choices=("rules", "llm", "rules+llm"),
        default="rules",
        help="pass 2: the operators' rules (default, offline), an LLM, or the rules with "
        "an LLM adjudicating only the uses of labels less confident than --adjudicate-below",
    )
    p.add_argument(
        "--adjudicate-below",
        type=float,
        default=None,
        metavar="CONFIDENCE",
        help="rules+llm: send a run's uses to the model when its adoption label's confidence "
        "is below this (default 0.9; an undecided label always goes)",
    )
    p.add_argument(
        "--classifier-param",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="LLM classifier setting: provider=openai|anthropic|openai-compatible, model=..., "
        "base_url=..., api_key_env=..., cache_dir=... (repeatable)",
    )
    p.add_argument(
        "--executor",
        type=executor_choice,
        default=("local", None),
        metavar="local|ray[=ADDRESS]",
        help="label in this process (default), or as Ray tasks — a local cluster, or the one "
        "at ADDRESS (rules classifier; same labels)",
    )
    p.add_argument(
        "--workers",
        type=int,
        default=1,
        metavar="N",
        help="label in N processes of this machine (rules classifier; same labels, same "
        "order); each process pays the imports once, so it pays off on large run sets",
    )
    p.set_defaults(handler=handle)


def validate_run(
    run_dir: Path, ledger: Ledger | None, label: RunLabels, agreement: Agreement
) -> bool:
    """Compare one labelled run with its scripted ground truth, if it has one (``ledger``:
    the run's already parsed ledger, when the labelling had it); whether it was compared."""
    from sscbench.reconstruct.validate import compare, ground_truth

    truth = ground_truth(run_dir, ledger)
    if truth is None:
        return False
    compare(label, truth, agreement)
    return True


def _labelled(
    root: Path,
    classifier: LLMClassifier | None,
    second_pass: Adjudicator | None,
) -> Iterator[tuple[Path, Ledger | None, RunLabels | None, str | None]]:
    """Each run under ``root`` in path order, labelled in this process: (run directory,
    its parsed ledger, its labels or ``None``, the one-line problem that kept it from
    being labelled or ``None``) — :func:`~sscbench.reconstruct.label.label_dir_or_skip`
    one run at a time, so nothing but the current run is held."""
    from sscbench.reconstruct.label import label_ledger, run_dirs
    from sscbench.records.ledger import read_ledger
    from sscbench.runs.episode import LEDGER_FILE

    for run_dir in run_dirs(root):
        ledger = None
        try:
            ledger = read_ledger(run_dir / LEDGER_FILE)
            yield run_dir, ledger, label_ledger(run_dir, ledger, classifier, second_pass), None
        except ConfigError as exc:
            yield run_dir, ledger, None, str(exc)


def _run_key(run_dir: Path, root: Path) -> str:
    """``run_dir.relative_to(root).as_posix()``, the run's key in the run-set record, cut
    from the path's text where the run lies below ``root`` on a POSIX system (the walk
    joins each run's path onto the root's text; ``relative_to`` re-parses both)."""
    text, prefix = str(run_dir), str(root) + "/"
    if os.sep == "/" and text.startswith(prefix) and len(text) > len(prefix):
        return text[len(prefix) :]
    return run_dir.relative_to(root).as_posix()


def handle(args: argparse.Namespace) -> int:
    """Label, write and summarise; optionally validate."""
    from sscbench import heartbeat
    from sscbench.reconstruct.run_set import LabelsWriter, ledger_sha256
    from sscbench.reconstruct.summary import SummaryCounts
    from sscbench.user_files import check_output_file

    root: Path = args.rundir
    if not root.is_dir():
        raise ConfigError(f"{root} is not a directory of runs")
    out: Path = args.out or root / LABELS_FILE
    check_output_file(out, "--out")
    if args.adjudicate_below is not None and args.classifier != "rules+llm":
        raise ConfigError("--adjudicate-below is for --classifier rules+llm; drop it")
    # The model's calls are written beside the labels whichever way it is used.
    classifier_calls = _classifier(args) if args.classifier in ("llm", "rules+llm") else None
    classifier = classifier_calls if args.classifier == "llm" else None
    second_pass: Adjudicator | None = None
    if args.classifier == "rules+llm" and classifier_calls is not None:
        from sscbench.reconstruct.adjudicate import DEFAULT_THRESHOLD, Adjudicator

        threshold = DEFAULT_THRESHOLD if args.adjudicate_below is None else args.adjudicate_below
        if not 0.0 <= threshold <= 1.0:
            raise ConfigError(f"--adjudicate-below must be between 0 and 1, got {threshold}")
        second_pass = Adjudicator(classifier_calls, threshold)
    heartbeat.phase(f"labelling the runs under {root}")
    kind, address = args.executor
    if args.workers < 1:
        raise ConfigError(f"--workers must be at least 1, got {args.workers}")
    if args.workers > 1 and (classifier_calls is not None or kind == "ray"):
        raise ConfigError(
            "--workers labels in local processes with the rules classifier; drop --workers "
            "or the other option (--classifier llm or rules+llm, --executor ray)"
        )
    if args.workers > 1:
        from sscbench.experiments.fanout import iter_labels_in_processes

        runs: Iterator[tuple[Path, Ledger | None, RunLabels | None, str | None]] = (
            (run_dir, None, label, problem)
            for run_dir, label, problem in iter_labels_in_processes(root, args.workers)
        )
    elif kind == "ray":
        if classifier_calls is not None:
            raise ConfigError("--executor ray labels with the rules classifier; drop one of them")
        from sscbench.experiments.fanout import iter_labels_on_ray

        runs = (
            (run_dir, None, label, problem)
            for run_dir, label, problem in iter_labels_on_ray(root, address)
        )
    else:
        runs = _labelled(root, classifier, second_pass)
    # One run at a time: its label goes to the labels file (a temporary sibling until
    # everything is computed), the summary's counts and the validation; none is held.
    problems: list[str] = []
    counts = SummaryCounts()
    agreement: Agreement | None = None
    if args.validate:  # the validation module is imported only when it is used
        from sscbench.reconstruct.validate import Agreement

        agreement = Agreement()
    compared = 0
    hashes: dict[str, str] = {}  # of the bytes labelled, where this process read them
    with rare_collections(), LabelsWriter(out, root, classifier=args.classifier) as writer:
        for run_dir, ledger, label, problem in runs:
            hashes[_run_key(run_dir, root)] = (
                ledger.sha256 if ledger is not None else ledger_sha256(run_dir)
            )
            if label is None:
                problems.append(str(problem))
                continue
            writer.add(label)
            counts.add(label)
            if agreement is not None:
                compared += validate_run(run_dir, ledger, label, agreement)
        if not writer.count and not problems:
            raise ConfigError(f"no runs under {root} (no ledger.jsonl found); give a run directory")
        if classifier_calls is not None:
            from sscbench.records.ledger import JsonlWriter

            with JsonlWriter(root / CLASSIFIER_CALLS_FILE) as calls:  # append-only, crash-safe
                for call in classifier_calls.provider_calls:
                    calls.append(call)
        writer.commit(hashes)  # only once everything is computed
    n = writer.count
    console = make_console()
    table = counts.table(f"{n} run{'' if n == 1 else 's'} → {out}")
    console.print(table)
    for problem in problems:
        print(f"warning: not labelled: {problem}", file=sys.stderr)
    if problems:
        print(
            f"{len(problems)} run(s) not labelled (left out of {out}; the report counts them "
            "missing)",
            file=sys.stderr,
        )
    if agreement is not None:
        from sscbench.reconstruct.validate import QUANTITIES

        check = Table(
            title=f"agreement with scripted ground truth ({compared} faulted scripted runs)"
        )
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
        return 1 if agreement.mismatches or problems else 0
    return 1 if problems else 0
