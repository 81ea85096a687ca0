"""Accuracy against coverage of the adoption label's confidence, on the labelled corpora.

    python benchmarks/abstention.py [--out PATH]

Every item of the project's hand-labelled sets (the counterfactual corpus from recorded
runs of a real LLM agent, and the natural, held-out and two blind hand-built sets —
benchmarks/reconstruction.py describes them) is reconstructed; each decided automatic
``A`` gets its confidence (``sscbench.reconstruct.confidence``). Sorted most confident
first, the curve gives the accuracy of ``A`` (against the items' reference) among the most
confident share of decided labels, at several coverages, and the operating points: the
largest coverage at 98% and at 99% accuracy. A table per deciding rule gives the runs,
the accuracy and the mean confidence (calibration). Figures print as markdown and go to
benchmarks/abstention-results.json.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from sscbench.accuracy.items import read_items
from sscbench.accuracy.score import label_items
from sscbench.reconstruct.confidence import label_confidence
from sscbench.reconstruct.label import label_run
from sscbench.reconstruct.labels import RunLabels
from sscbench.records.ledger import iter_jsonl

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"
OUT = Path(__file__).with_name("abstention-results.json")
SETS: tuple[str, ...] = (
    "reconstruction_natural",
    "reconstruction_heldout",
    "reconstruction_blind",
    "reconstruction_blind2",
)
COVERAGES = (1.0, 0.95, 0.9, 0.85, 0.8, 0.7, 0.6, 0.5)


def _pairs() -> list[tuple[str, RunLabels, bool | str]]:
    """(set, automatic labels, reference adoption) for every item of every set."""
    out: list[tuple[str, RunLabels, bool | str]] = []
    corpus = FIXTURES / "reconstruction_corpus"
    items = read_items(corpus / "items.jsonl")
    with tempfile.TemporaryDirectory() as tmp:
        labelled = label_items(items, corpus / "runs", Path(tmp))
    for item, labels in zip(items, labelled, strict=True):
        if item.reference is not None:
            out.append(("corpus", labels, item.reference.adopted))
    for name in SETS:
        root = FIXTURES / name
        for _, obj in iter_jsonl(root / "labels.jsonl"):
            adopted = obj["adopted"]
            assert isinstance(adopted, bool | str)
            out.append(
                (name.removeprefix("reconstruction_"), label_run(root / str(obj["run"])), adopted)
            )
    return out


def curve(scored: list[tuple[float, bool]]) -> list[dict[str, Any]]:
    """Accuracy among the most confident share of decided labels, per coverage."""
    ranked = sorted(scored, key=lambda x: -x[0])
    rows = []
    for c in COVERAGES:
        n = max(1, round(c * len(ranked)))
        top = ranked[:n]
        rows.append(
            {
                "coverage": c,
                "labels": n,
                "correct": sum(ok for _, ok in top),
                "accuracy": sum(ok for _, ok in top) / n,
                "threshold": top[-1][0],
            }
        )
    return rows


def operating_point(scored: list[tuple[float, bool]], accuracy: float) -> dict[str, Any]:
    """The largest coverage whose most confident labels reach ``accuracy``."""
    ranked = sorted(scored, key=lambda x: -x[0])
    best = {"accuracy_target": accuracy, "coverage": 0.0, "threshold": None, "labels": 0}
    correct = 0
    for i, (value, ok) in enumerate(ranked, 1):
        correct += ok
        last = i == len(ranked) or ranked[i][0] < value  # only cut between confidence values
        if last and correct / i >= accuracy:
            best = {
                "accuracy_target": accuracy,
                "coverage": i / len(ranked),
                "threshold": value,
                "labels": i,
            }
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    pairs = _pairs()
    scored: list[tuple[float, bool]] = []
    rules: dict[str, list[tuple[float, bool]]] = defaultdict(list)
    undecided = reference_undecidable = 0
    for _, labels, ref in pairs:
        if not isinstance(ref, bool):
            reference_undecidable += 1
            continue
        conf = label_confidence(labels)
        if conf is None:
            undecided += 1
            continue
        ok = labels.adopted is ref
        scored.append((conf.value, ok))
        rules[conf.rule].append((conf.value, ok))
    points = [operating_point(scored, a) for a in (0.98, 0.99)]
    table = curve(scored)
    print("| coverage | labels | accuracy | confidence ≥ |\n|---|---|---|---|")
    for row in table:
        print(
            f"| {row['coverage']:.2f} | {row['labels']} | {row['accuracy']:.3f} "
            f"({row['correct']}/{row['labels']}) | {row['threshold']:.2f} |"
        )
    print("\n| deciding rule | labels | accuracy | mean confidence |\n|---|---|---|---|")
    by_rule = {}
    for rule, xs in sorted(rules.items()):
        acc = sum(ok for _, ok in xs) / len(xs)
        mean = sum(v for v, _ in xs) / len(xs)
        by_rule[rule] = {"labels": len(xs), "accuracy": acc, "mean_confidence": mean}
        print(f"| {rule} | {len(xs)} | {acc:.3f} | {mean:.3f} |")
    for p in points:
        print(
            f"\noperating point at {p['accuracy_target']:.0%} accuracy: coverage "
            f"{p['coverage']:.3f} ({p['labels']} labels, confidence ≥ {p['threshold']})"
        )
    elapsed = time.perf_counter() - started
    print(
        f"\n{len(pairs)} items; {len(scored)} decided labels scored, {undecided} undecided by "
        f"the reconstructor, {reference_undecidable} undecidable in the reference; "
        f"{elapsed:.0f} s",
        file=sys.stderr,
    )
    result = {
        "benchmark": "abstention",
        "items": len(pairs),
        "scored": len(scored),
        "undecided_by_reconstructor": undecided,
        "reference_undecidable": reference_undecidable,
        "curve": table,
        "operating_points": points,
        "by_rule": by_rule,
        "seconds": round(elapsed, 1),
    }
    args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
