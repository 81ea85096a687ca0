"""Reconstruction accuracy on language the detector was not written against.

    python benchmarks/reconstruction.py [--seeds N] [--out PATH]

Scores event reconstruction, per operator, on four sets:

* **corpus** — 222 counterfactual items built from recorded runs of a real LLM agent,
  labelled by hand in two independent passes (tests/fixtures/reconstruction_corpus);
* **natural** — 75 hand-built runs in the phrasing of LLM agents (questions, flags,
  retractions, lists, tables, JSON, competitors), written apart from the detector
  (tests/fixtures/reconstruction_natural);
* **held-out** — 48 further hand-built runs by another author, in four agent voices
  (tests/fixtures/reconstruction_heldout);
* **blind** and **blind2** — 40 runs each, written by authors who never saw the detector,
  in four other voices each (tests/fixtures/reconstruction_blind, _blind2; blind2 was
  written after the rules had been improved on blind). The natural, held-out and blind sets
  were each scored once on first contact and then used in development; their first-contact
  figures are recorded in docs/reconstruction.md, not recomputed here;
* **paraphrasing agents** — the scripted reference agents speaking through the phrasing
  library (``phrasing=varied``) over every shipped case, against their private ground
  truth; and the same agents with their plain phrasing, which must stay exact.

Figures: adoption precision, recall and agreement; ``T_S`` and ``T_U`` exact and within one
step; ``Z_S`` agreement; undecidable rate; and reconstruction throughput on the scripted
runs. Markdown tables go to stdout, everything to benchmarks/reconstruction-results.json.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from sscbench.accuracy.items import read_items
from sscbench.accuracy.score import Reference, Scores, Tally, score_items, score_runs
from sscbench.cases.caseset import load_case_set
from sscbench.experiments.inline import run_case_set
from sscbench.reconstruct.label import label_dir
from sscbench.reconstruct.validate import ground_truth

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"
OUT = Path(__file__).with_name("reconstruction-results.json")
AGENTS = ("scripted:careful", "scripted:gold", "scripted:hasty", "scripted:mixed")
COLUMNS = (
    ("adoption_precision", "A precision"),
    ("adoption_recall", "A recall"),
    ("adoption_agreement", "A agreement"),
    ("t_s_exact", "T_S exact"),
    ("t_s_within_1", "T_S ±1"),
    ("t_u_exact", "T_U exact"),
    ("t_u_within_1", "T_U ±1"),
    ("z_s_agreement", "Z_S agreement"),
    ("undecidable_rate", "undecidable"),
)


def _cell(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.1f}%"


def table(title: str, scores: Scores) -> str:
    """One markdown table: a row per operator and one for all."""
    head = "| operator | items | " + " | ".join(name for _, name in COLUMNS) + " |"
    rule = "|---|---:|" + "---:|" * len(COLUMNS)
    rows = [f"\n**{title}**\n", head, rule]
    groups: list[tuple[str, Tally]] = sorted(scores.by_operator.items())
    groups.append(("all", scores.overall))
    for name, tally in groups:
        r = tally.ratios()
        cells = " | ".join(_cell(r[key]) for key, _ in COLUMNS)
        rows.append(f"| {name} | {tally.items} | {cells} |")
    return "\n".join(rows)


def scripted(seeds: int, phrasing: str | None) -> tuple[Scores, dict[str, float]]:
    """Run the scripted agents on the shipped set and score against their ground truth."""
    case_set = load_case_set()
    params = {} if phrasing is None else {"phrasing": phrasing}
    scores = Scores()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        run_case_set(case_set, AGENTS, out, seeds=range(seeds), agent_params=params)
        started = time.perf_counter()
        labels = label_dir(out)
        elapsed = time.perf_counter() - started
        by_id = {label.run_id: label for label in labels}
        for run_dir in sorted(p.parent for p in out.glob("*/ledger.jsonl")):
            truth = ground_truth(run_dir)
            if truth is None or not truth.triggered:
                continue
            label = by_id[truth.run_id]
            ref = Reference(
                truth.t_s if truth.t_s is not None else "none",
                truth.t_u if truth.t_u is not None else "none",
                truth.adopted,
            )
            scores.add(label.operator or "clean", label, ref, truth.run_id)
    return scores, {"ledgers": len(labels), "seconds": elapsed, "per_s": len(labels) / elapsed}


def _dump(scores: Scores) -> dict[str, Any]:
    return {
        "overall": {"items": scores.overall.items, **scores.overall.ratios()},
        "by_operator": {
            op: {"items": t.items, **t.ratios()} for op, t in sorted(scores.by_operator.items())
        },
        "errors": scores.overall.errors,
    }


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=2, help="repetitions of the scripted runs")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    results: dict[str, Any] = {"machine": platform.platform(), "python": sys.version.split()[0]}
    corpus = FIXTURES / "reconstruction_corpus"
    sets: list[tuple[str, str, Scores]] = [
        (
            "corpus",
            "Real agent language (counterfactual corpus, 2 annotation passes)",
            score_items(read_items(corpus / "items.jsonl"), corpus / "runs"),
        ),
        (
            "natural",
            "Hand-built natural-language runs",
            score_runs(FIXTURES / "reconstruction_natural"),
        ),
    ]
    sets.append(
        (
            "heldout",
            "Held-out hand-built runs (four voices)",
            score_runs(FIXTURES / "reconstruction_heldout"),
        )
    )
    sets.append(
        (
            "blind",
            "Blind hand-built runs (written apart from the detector, four other voices)",
            score_runs(FIXTURES / "reconstruction_blind"),
        )
    )
    sets.append(
        (
            "blind2",
            "Second blind set (written after the first blind round, four more voices)",
            score_runs(FIXTURES / "reconstruction_blind2"),
        )
    )
    varied, speed_varied = scripted(args.seeds, "varied")
    plain, speed_plain = scripted(args.seeds, None)
    sets.append(("paraphrasing", "Scripted agents, phrasing=varied, vs ground truth", varied))
    sets.append(("scripted", "Scripted agents, plain phrasing, vs ground truth", plain))
    for key, title, scores in sets:
        print(table(title, scores))
        results[key] = _dump(scores)
    results["throughput"] = {"varied": speed_varied, "plain": speed_plain}
    print(
        f"\nreconstruction throughput: {speed_plain['per_s']:.0f} ledgers/s (plain), "
        f"{speed_varied['per_s']:.0f} ledgers/s (varied)"
    )
    args.out.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
