"""``sscbench oracles``: list the registered oracles; score them against a reference."""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sscbench.cli.params import parse_params
from sscbench.cli.rare_gc import collecting_rarely
from sscbench.cli.reconstruct import LABELS_FILE
from sscbench.errors import ConfigError
from sscbench.terminal import make_console

if TYPE_CHECKING:
    from sscbench.reconstruct.labels import LabelIndex


def register(sub: Any) -> None:
    """Add ``oracles list`` and ``oracles evaluate``."""
    p = sub.add_parser(
        "oracles", help="automatic oracles: list them, score them (docs/measurement.md §7)"
    )
    actions = p.add_subparsers(dest="oracles_command", required=True, metavar="ACTION")
    lst = actions.add_parser(
        "list", help="registered oracles and their settings (built-ins and plugins)"
    )
    lst.set_defaults(handler=handle_list)

    ev = actions.add_parser("evaluate", help="score oracles, stratified by operator and arrival")
    ev.add_argument("rundir", type=Path, help="a directory of runs")
    ev.add_argument(
        "--reference",
        default="truth",
        help="a review directory (adjudicated human reference) or 'truth' (scripted agents' "
        "ground truth; default)",
    )
    ev.add_argument(
        "--clean",
        type=Path,
        action="append",
        default=[],
        help="a directory of clean runs for negative controls (repeatable; clean runs in "
        "RUNDIR are used too)",
    )
    ev.add_argument(
        "--oracle",
        action="append",
        default=[],
        help="oracle to score (repeatable; default: every registered oracle)",
    )
    ev.add_argument(
        "--judge-param",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="setting of every LLM-based oracle (B2, B3, B4): provider=openai|anthropic|"
        "openai-compatible, model=..., base_url=..., api_key_env=..., cache_dir=... (repeatable)",
    )
    ev.add_argument("--out", type=Path, help="results directory (default RUNDIR/oracle_eval)")
    ev.set_defaults(handler=handle_evaluate)


def handle_list(args: argparse.Namespace) -> int:
    """Print the settings table of every registered oracle."""
    from sscbench.oracles.base import oracle_names, oracle_setting
    from sscbench.oracles.evaluate import settings_table

    names = oracle_names()
    table = settings_table(names, [oracle_setting(n) for n in names])
    make_console().print(table)
    return 0


def _judge_params(items: list[str], out: Path) -> dict[str, Any]:
    params = parse_params(items, "--judge-param")
    params.setdefault("cache_dir", str(out / "judge_cache"))
    return params


def _labels(rundir: Path) -> LabelIndex | None:
    """The run set's ``labels.jsonl``, checked current and indexed (each label read again
    when its run is judged), or ``None``: then each run is labelled from its ledger."""
    from sscbench.reconstruct.labels import LabelIndex
    from sscbench.reconstruct.run_set import check_labels_current

    path = rundir / LABELS_FILE
    if not path.is_file():
        return None
    labels = LabelIndex(path)
    check_labels_current(path, rundir, labels)
    return labels


@collecting_rarely
def handle_evaluate(args: argparse.Namespace) -> int:
    """Judge the scored set one run at a time with every oracle, print the stratified
    tables, write the results (:mod:`sscbench.oracles.stream`: memory flat in runs)."""
    from sscbench.oracles.base import OracleUnavailable, make_oracle, oracle_names, oracle_setting
    from sscbench.oracles.evaluate import (
        per_operator_table,
        score_table,
        settings_table,
        write_scores,
    )
    from sscbench.oracles.llm_call import LLMOracle
    from sscbench.oracles.stream import Judge, evaluate_streaming
    from sscbench.oracles.validation import (
        COMPARISON_FILE,
        SHOWN,
        comparison_record,
        comparison_table,
    )
    from sscbench.reconstruct.run_set import RULES, labels_classifier
    from sscbench.user_files import check_output_dir

    out: Path = args.out or args.rundir / "oracle_eval"
    # Everything a user typed is checked before the first output line or file.
    if not args.rundir.is_dir():
        raise ConfigError(f"{args.rundir} is not a directory of runs")
    for clean_dir in args.clean:
        if not clean_dir.is_dir():
            raise ConfigError(f"--clean {clean_dir} is not a directory of runs")
    check_output_dir(out, "--out")
    names = args.oracle or oracle_names()
    settings = [oracle_setting(name) for name in names]
    judge_params = _judge_params(args.judge_param, out)
    labels = _labels(args.rundir)
    # The reconstructor oracle is the operators' rules: it takes labels.jsonl's labels only
    # when the rules made them, and labels the runs itself after `--classifier llm`.
    rules = labels is None or labels_classifier(args.rundir / LABELS_FILE) == RULES
    console = make_console()
    started = time.perf_counter()
    judges = []
    for name, setting in zip(names, settings, strict=True):
        try:
            oracle = make_oracle(name, **(judge_params if setting.calls == "llm" else {}))
        except OracleUnavailable as exc:
            judges.append(Judge(name, setting, None, skipped=str(exc)))
            continue
        judges.append(Judge(name, setting, oracle, reuse_labels=rules))
    try:
        shown = SHOWN if args.reference == "truth" else None
        found = evaluate_streaming(args.rundir, args.reference, args.clean, judges, labels, shown)
        kind = found.kind
        console.print(
            f"{found.faulted} faulted runs with a {kind} reference, {found.clean} clean controls"
        )
        if not found.faulted:
            raise ConfigError(
                f"no faulted run under {args.rundir} has a {kind} reference"
                + (
                    " (only scripted agents have ground truth: pass --reference REVIEWDIR)"
                    if kind == "truth"
                    else " (no packet has an accepted label yet: see `sscbench review agree`)"
                )
            )
        assert found.comparison is not None
        record = comparison_record(kind, found.comparison)
        out.mkdir(parents=True, exist_ok=True)
        (out / COMPARISON_FILE).write_text(
            record.model_dump_json(indent=1) + "\n", encoding="utf-8"
        )
        console.print(
            comparison_table(record, f"automatic labels vs {kind} reference (Table III(b))")
        )
        console.print(settings_table(names, settings))
        for j in judges:
            if isinstance(j.oracle, LLMOracle) and j.oracle.provider_calls:
                with (out / "provider_calls.jsonl").open("a", encoding="utf-8") as fh:
                    for call in j.oracle.provider_calls:
                        fh.write(call.model_dump_json() + "\n")
        results = [j.result() for j in judges]
        console.print(score_table(results, f"oracles vs {kind} reference ({args.rundir})"))
        console.print(per_operator_table(results, "adoption F1 / exact T_U, per operator"))
        for result in results:
            if result.skipped is not None:
                console.print(f"[yellow]skipped[/yellow] {result.name}: {result.skipped}")
        with (out / "verdicts.jsonl").open("w", encoding="utf-8") as fh:
            for j in judges:
                j.copy_verdicts(fh)
        write_scores(out, results)
    finally:
        for j in judges:
            j.close()
    console.print(f"verdicts and scores in {out} ({time.perf_counter() - started:.1f} s)")
    return 0
