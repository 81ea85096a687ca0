"""``sscbench demo``: the offline, keyless main job on the shipped case set.

Runs the scripted reference agents over every shipped case with its fault injected (and
the gold agent on clean negative-control tasks), reconstructs arrival, first use and
adoption for every run, writes the report, and prints the paper's tables: the analysis
(adoption by arrival and the rest), then — with the agents' private ground truth standing
in for the adjudicated human reference — the automatic labels against that reference
(Table III(b)), the oracle settings (Table II) and the offline oracles' scores (Table V).
Re-running resumes: finished runs are kept.

``--local-model`` (opt-in, still keyless and offline) also runs a real model on one case
per operator: SmolLM2-135M-Instruct through a llama.cpp server SSCBench starts and stops
(the ``local`` extra), so the whole LLM path — server, wire format, records, grading,
labels, report — is seen working, beside the scripted agents, before any money is spent.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from sscbench.cli.rare_gc import collecting_rarely
from sscbench.cli.reconstruct import LABELS_FILE
from sscbench.errors import ConfigError
from sscbench.terminal import make_console

EVAL_DIR = "oracle_eval"
NATIVE_FILE = "native.json"
"""The native suite's table, beside the labels."""

if TYPE_CHECKING:
    from collections.abc import Sequence

    from sscbench.analysis.results import AnalysisResult
    from sscbench.cases.caseset import CaseSet
    from sscbench.experiments.load import Experiment
    from sscbench.experiments.plan import ScheduledRun
    from sscbench.experiments.status import RunRecord
    from sscbench.oracles.validation import TruthValidation
    from sscbench.reconstruct.labels import RunLabels
    from sscbench.records.ledger import Ledger

DEMO_AGENTS = (
    "scripted:careful",
    "scripted:eager",
    "scripted:gold",
    "scripted:hasty",
    "scripted:mixed",
)
CONTROLS_PER_OPERATOR = 10
MITIGATED_AGENTS = ("scripted:gold", "scripted:hasty")
DEMO_MITIGATIONS = ("verify_before_write", "read_back_after_write")
"""The reference mitigations, behind the agent that trusts the latest sighting and the one
that trusts the first, at the first seed: each changes one and not the other."""
LOCAL_AGENT = "openai-compatible"
LOCAL_PARAMS: dict[str, Any] = {"model": "smollm2", "server": "llama.cpp", "max_tokens": 256}
"""The opt-in real model: the packaged SmolLM2 on a managed llama.cpp server. Replies are
capped so that a tiny model that rambles still finishes an episode in seconds."""


def register(sub: Any) -> None:
    """Add the ``demo`` subcommand."""
    p = sub.add_parser("demo", help="run the scripted agents on the shipped case set, offline")
    p.add_argument("--out", type=Path, default=Path("runs/demo"), help="output directory")
    p.add_argument("--cases", type=Path, help="case set directory (default: the shipped one)")
    p.add_argument("--seeds", type=int, default=2, help="repetitions per case and agent")
    p.add_argument(
        "--local-model",
        action="store_true",
        help="also run SmolLM2-135M through a local llama.cpp server on one case per operator "
        "(keyless, offline; needs pip install 'sscbench[local]')",
    )
    p.set_defaults(handler=handle)


@collecting_rarely  # a twelfth of the demo's CPU went to re-walking its long-lived data
def handle(args: argparse.Namespace) -> int:
    """Run, reconstruct, validate, summarise."""
    # Imported here so that `sscbench --help` does not pay for matplotlib and τ².
    from sscbench import heartbeat
    from sscbench.analysis.correction_view import correction_table, error_rate_table
    from sscbench.analysis.mitigation import mitigation_rows, read_run_steps
    from sscbench.analysis.mitigation_cost import read_run_usage
    from sscbench.analysis.quantities import analyze
    from sscbench.analysis.report import write_report
    from sscbench.analysis.task_success import read_clean_outcomes
    from sscbench.analysis.terminal import summary_table
    from sscbench.analysis.terminal_reliability import reliability_tables
    from sscbench.analysis.validation_sample import from_truth
    from sscbench.cases.caseset import load_case_set
    from sscbench.experiments.inline import control_tasks, run_case_set, run_clean_tasks
    from sscbench.experiments.session import run_experiment
    from sscbench.native.summary import summarise
    from sscbench.native.summary import summary_table as native_table
    from sscbench.oracles.dataset import ledgers
    from sscbench.oracles.validation import validate_against_truth
    from sscbench.reconstruct.label import label_dir, label_ledger
    from sscbench.reconstruct.run_set import write_labels
    from sscbench.reconstruct.validate import QUANTITIES, validate_dir

    console = make_console(stderr=True)
    case_set = load_case_set(args.cases)
    if args.seeds < 1:
        raise ConfigError(f"--seeds must be at least 1, got {args.seeds}")
    seeds = range(args.seeds)
    controls = control_tasks(case_set, CONTROLS_PER_OPERATOR)
    clean_dir = args.out.with_name(f"{args.out.name}-clean")
    baseline_dir = args.out.with_name(f"{args.out.name}-clean-agents")
    baseline = _baseline(case_set, seeds)
    mitigation_dir = args.out.with_name(f"{args.out.name}-mitigations")
    mitigated = _mitigated(case_set, seeds)
    local = _with_local_model(case_set, seeds, args.out) if args.local_model else None
    scheduled = len(case_set.cases) * len(DEMO_AGENTS) * len(seeds)
    total = (scheduled if local is None else len(local[1])) + len(controls)
    total += len(baseline[1]) + len(mitigated[1])
    started = time.perf_counter()
    failed = executed = 0
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
        heartbeat.phase(f"running {case_set.manifest.name} × {len(DEMO_AGENTS)} agents", total)

        def done(record: RunRecord, ran: bool) -> None:
            nonlocal failed, executed
            failed += record.failed
            executed += ran
            progress.advance(bar)
            heartbeat.advance(record.failed)

        if local is None:
            run_case_set(case_set, DEMO_AGENTS, args.out, seeds=seeds, on_record=done)
        else:
            run_experiment(local[0], args.out, runs=local[1], on_record=done)
        run_clean_tasks(controls, "scripted:gold", clean_dir, on_record=done)
        run_experiment(baseline[0], baseline_dir, runs=baseline[1], on_record=done)
        run_experiment(mitigated[0], mitigation_dir, runs=mitigated[1], on_record=done)
    heartbeat.phase("labelling the runs (reconstruction)")
    # Each ledger is parsed once, here; labelling, the oracles and the report take it.
    runs = ledgers([args.out])
    labels = [label_ledger(run_dir, ledger) for run_dir, ledger in runs]
    hashes = {d.relative_to(args.out).as_posix(): ledger.sha256 for d, ledger in runs}
    write_labels(args.out / LABELS_FILE, labels, args.out, hashes)
    out = make_console()
    heartbeat.phase("validating against the scripted truth, analysing, writing the report")
    with console.status("validating against the scripted truth, analysing, writing the report"):
        validation = validate_against_truth(
            args.out, [clean_dir], labels, args.out / EVAL_DIR, runs=runs
        )
        # The scripted truth stands in for a review's adjudicated reference (and says so).
        sample = from_truth(args.out, labels, runs=runs, truths=validation.truths)
        result = analyze(
            labels, case_set, validation=sample, clean=read_clean_outcomes([baseline_dir])
        )
        result = result.model_copy(
            update={
                "mitigations": mitigation_rows(
                    [*labels, *label_dir(mitigation_dir)],
                    case_set,
                    DEMO_MITIGATIONS,
                    read_run_steps([args.out, mitigation_dir]),
                    usage=read_run_usage([args.out, mitigation_dir]),
                )
            }
        )
        by_id = {ledger.header.run_id: ledger for _, ledger in runs}
        files = write_report(result, labels, args.out, args.out / "report", ledgers=by_id)
        bundle_dir = _bundle(args.out, result, case_set, labels, runs)
    native = summarise(seeds)
    (args.out / NATIVE_FILE).write_text(native.model_dump_json(indent=1) + "\n", encoding="utf-8")
    out.print(
        summary_table(
            result,
            f"adoption by arrival — {len(labels)} runs of {len(case_set.cases)} cases, "
            f"{len(seeds)} repetitions",
        )
    )
    out.print(correction_table(result, skip_uncorrected=True))
    out.print(error_rate_table(result))
    for table in reliability_tables(result):
        out.print(table)
    agreement, compared = validate_dir(args.out, labels, validation.truths)
    checks = ", ".join(f"{q} {agreement.agree[q]}/{agreement.compared[q]}" for q in QUANTITIES)
    out.print(f"reconstruction vs scripted ground truth ({compared} runs):\n  {checks}")
    _truth_tables(out, validation)
    out.print(native_table(native))
    ran = f"{executed} run this session" if executed < total else "all run this session"
    out.print(
        f"{total} runs ({ran}; {failed} failed; {len(controls)} clean controls) in "
        f"{time.perf_counter() - started:.1f} s\n"
        f"  ledgers:  {args.out} (clean controls: {clean_dir})\n"
        f"  clean runs of every agent: {baseline_dir}\n"
        f"  behind the mitigations:    {mitigation_dir}\n"
        f"  labels:   {args.out / LABELS_FILE}\n"
        f"  report:   {files.report_path}\n"
        f"  oracles:  {args.out / EVAL_DIR} (verdicts and scores)\n"
        f"  results bundle: {bundle_dir} (`sscbench compare {bundle_dir} …`)\n"
        f"  native suite:   {args.out / NATIVE_FILE}"
    )
    return 1 if failed or agreement.mismatches or not native.reference_passed else 0


def _bundle(
    out: Path,
    result: AnalysisResult,
    case_set: CaseSet,
    labels: Sequence[RunLabels],
    runs: Sequence[tuple[Path, Ledger]],
) -> Path:
    """The demo's results bundle (as ``sscbench export results`` writes one) in
    ``<out>-results``, rebuilt each time: written whole into a fresh directory first, then put in
    place of the previous one, so an interrupted demo never leaves half a bundle."""
    import shutil
    import tempfile

    from sscbench.analysis.bundle import write_bundle
    from sscbench.runs.episode import LEDGER_FILE

    target = out.with_name(f"{out.name}-results")
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=out.parent))
    write_bundle(
        staging,
        result,
        out / LABELS_FILE,
        out,
        case_set,
        {label.run_id for label in labels},
        parsed=[(run_dir / LEDGER_FILE, ledger) for run_dir, ledger in runs],
    )
    if target.exists():
        shutil.rmtree(target)
    staging.rename(target)
    return target


def _baseline(case_set: CaseSet, seeds: range) -> tuple[Experiment, list[ScheduledRun]]:
    """Every demo agent, every seed, without a fault, on the task of every case: the clean
    side of task success under fault and of pass^k (its own directory, so the oracle
    validation keeps its clean-control pairings)."""
    from sscbench.experiments.inline import clean_runs, command_line_experiment

    experiment = command_line_experiment(
        "clean tasks of every agent", [(agent, {}) for agent in DEMO_AGENTS], seeds=seeds
    )
    tasks = dict.fromkeys((c.contract.domain, c.contract.task_id) for c in case_set.cases)
    return experiment, clean_runs(experiment, list(tasks))


def _mitigated(case_set: CaseSet, seeds: range) -> tuple[Experiment, list[ScheduledRun]]:
    """:data:`MITIGATED_AGENTS` behind each of :data:`DEMO_MITIGATIONS` on every case, first
    seed: compared with the same agents' runs of the main run set (their own directory, so
    the main tables stay those of the five agents)."""
    from sscbench.experiments.inline import command_line_experiment, fault_runs

    experiment = command_line_experiment(
        "reference mitigations",
        [(agent, {}) for agent in MITIGATED_AGENTS],
        seeds=seeds[:1],
        case_set=case_set,
        mitigations=DEMO_MITIGATIONS,
        unmitigated=False,
    )
    return experiment, fault_runs(experiment, [c.contract for c in case_set.cases])


def _with_local_model(
    case_set: CaseSet, seeds: range, out: Path
) -> tuple[Experiment, list[ScheduledRun]]:
    """The demo's experiment with the real model added, and its runs: every scripted run
    (the same keys and run ids as without it) plus the real model on the first case of
    each operator, first seed only. Checked before anything runs (a missing extra or
    model package is one line, exit 2); the server's log is kept beside the runs."""
    from sscbench.experiments.inline import command_line_experiment, fault_runs
    from sscbench.llm.local_server import keep_logs_in

    experiment = command_line_experiment(
        case_set.manifest.name,
        [*((agent, {}) for agent in DEMO_AGENTS), (LOCAL_AGENT, dict(LOCAL_PARAMS))],
        seeds=seeds,
        case_set=case_set,
    )
    chosen: dict[str, str] = {}
    for case in case_set.cases:
        if not case.contract.control:
            chosen.setdefault(case.contract.operator, case.contract.contract_id)
    runs = [
        run
        for run in fault_runs(experiment, [c.contract for c in case_set.cases])
        if run.configuration.agent != LOCAL_AGENT
        or (run.key.seed == seeds[0] and run.key.case in chosen.values())
    ]
    keep_logs_in(out)
    return experiment, runs


def _truth_tables(out: Console, result: TruthValidation) -> None:
    """Print Tables III(b), II and V against the scripted truth."""
    from sscbench.oracles.base import oracle_setting
    from sscbench.oracles.evaluate import per_operator_table, score_table, settings_table
    from sscbench.oracles.validation import comparison_table

    stand_in = "scripted ground truth standing in for the adjudicated reference"
    out.print(
        comparison_table(result.comparison, f"automatic labels vs {stand_in}\n(Table III(b))")
    )
    names = [r.name for r in result.results] + result.not_run
    settings = [r.setting for r in result.results]
    table = settings_table(names, settings + [oracle_setting(n) for n in result.not_run])
    table.title = "oracle settings (Table II); LLM-based ones need a key and are not run here"
    out.print(table)
    clean = sum(i.reference.clean for i in result.items)
    title = (
        f"offline oracles vs {stand_in} (Table V):\n{len(result.items) - clean} faulted runs, "
        f"{clean} clean-control pairings"
    )
    out.print(score_table(result.results, title, only=("all",)))
    out.print(
        per_operator_table(result.results, "adoption F1 / exact T_U, per operator (Table V(c))")
    )
