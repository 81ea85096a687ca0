"""The rules alone against the rules with an LLM adjudicating their least confident labels.

    python benchmarks/adjudication.py [--classifier-param KEY=VALUE ...] [--local]
                                      [--threshold T] [--out PATH]

Every item of the project's hand-labelled sets (the counterfactual corpus and the natural,
held-out and two blind hand-built sets, as in benchmarks/abstention.py) is reconstructed
twice: by the rules, and by ``--classifier rules+llm`` (the LLM classifier re-reads the uses
of labels whose confidence is below the threshold, sscbench/reconstruct/adjudicate.py).
Both adoption accuracies against the items' reference print side by side, per set, with
the labels sent to the model and those whose ``A`` it changed.

A model is needed: ``--classifier-param provider=… model=… …`` (the options of
``sscbench reconstruct --classifier-param``; add ``cache_dir=…`` to replay), or ``--local``
for the managed llama.cpp server with the packaged SmolLM2 (``local`` extra and the model
package). SmolLM2 (135M parameters) proves the plumbing, not the accuracy: its figure says
nothing about what a capable model would do. Without either, the script says that no model
is available and exits 0 without printing figures. Results go to
benchmarks/adjudication-results.json.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from sscbench.accuracy.items import read_items
from sscbench.accuracy.score import label_items
from sscbench.cli.params import parse_params
from sscbench.errors import ConfigError
from sscbench.reconstruct.adjudicate import DEFAULT_THRESHOLD, Adjudicator
from sscbench.reconstruct.label import label_run
from sscbench.reconstruct.labels import RunLabels
from sscbench.reconstruct.llm_classifier import LLMClassifier
from sscbench.records.ledger import iter_jsonl

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"
OUT = Path(__file__).with_name("adjudication-results.json")
SETS = (
    "reconstruction_natural",
    "reconstruction_heldout",
    "reconstruction_blind",
    "reconstruction_blind2",
)
LOCAL = {
    "provider": "openai-compatible",
    "model": "smollm2",
    "server": "llama.cpp",
    "max_tokens": 96,
    "timeout": 600,
}


def local_missing() -> str | None:
    """Why the managed SmolLM2 server cannot run here (None when it can)."""
    from sscbench.llm import local_server

    if importlib.util.find_spec("llama_cpp") is None:
        return "llama-cpp-python is not installed (pip install 'sscbench[local]')"
    try:
        local_server.resolve_model("smollm2")
    except ConfigError as exc:
        return str(exc)
    return None


def labelled(adjudicator: Adjudicator | None) -> list[tuple[str, RunLabels, bool | str]]:
    """(set, labels, reference adoption) for every item, by the rules (``None``) or by the
    rules with ``adjudicator``."""
    out: list[tuple[str, RunLabels, bool | str]] = []
    corpus = FIXTURES / "reconstruction_corpus"
    items = read_items(corpus / "items.jsonl")
    with tempfile.TemporaryDirectory() as tmp:
        labels = label_items(items, corpus / "runs", Path(tmp), adjudicator)
    for item, label in zip(items, labels, strict=True):
        if item.reference is not None:
            out.append(("corpus", label, item.reference.adopted))
    for name in SETS:
        root = FIXTURES / name
        for _, obj in iter_jsonl(root / "labels.jsonl"):
            adopted = obj["adopted"]
            assert isinstance(adopted, bool | str)
            label = label_run(root / str(obj["run"]), second_pass=adjudicator)
            out.append((name.removeprefix("reconstruction_"), label, adopted))
    return out


def compare(
    rules: list[tuple[str, RunLabels, bool | str]],
    judged: list[tuple[str, RunLabels, bool | str]],
) -> dict[str, dict[str, Any]]:
    """Per set (and in total): A accuracy of each path on items with a decided reference
    (an undecided automatic A counts as wrong), labels sent, labels whose A changed."""
    rows: dict[str, dict[str, Any]] = defaultdict(
        lambda: {
            "items": 0,
            "rules_correct": 0,
            "adjudicated_correct": 0,
            "sent": 0,
            "a_changed": 0,
        }
    )
    for (name, r, ref), (_, j, _) in zip(rules, judged, strict=True):
        for key in (name, "all"):
            row = rows[key]
            sent = j.adjudication is not None and j.adjudication["decided_by"] != "rules"
            row["sent"] += sent
            row["a_changed"] += r.adopted is not j.adopted
            if isinstance(ref, bool):
                row["items"] += 1
                row["rules_correct"] += r.adopted is ref
                row["adjudicated_correct"] += j.adopted is ref
    return dict(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--classifier-param", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--local", action="store_true", help="the managed SmolLM2 server")
    parser.add_argument("--threshold", type=float, default=DEFAULT_THRESHOLD)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    params: dict[str, Any] = parse_params(args.classifier_param, "--classifier-param")
    if args.local:
        missing = local_missing()
        if missing:
            print(f"no model available: {missing}; nothing measured", file=sys.stderr)
            return 0
        params = {**LOCAL, **params}
    if "provider" not in params:
        print(
            "no model available: give --classifier-param provider=… model=… (a key in the "
            "environment, api_key_env=…) or --local for the SmolLM2 server; nothing measured",
            file=sys.stderr,
        )
        return 0
    provider = str(params.pop("provider"))
    classifier = LLMClassifier(provider, **params)
    started = time.perf_counter()
    rows = compare(labelled(None), labelled(Adjudicator(classifier, args.threshold)))
    elapsed = time.perf_counter() - started
    model = classifier.model
    print(f"| set | items | rules A accuracy | rules+{model} A accuracy | sent | A changed |")
    print("|---|---:|---:|---:|---:|---:|")
    for name in ("corpus", *(s.removeprefix("reconstruction_") for s in SETS), "all"):
        row = rows.get(name)
        if row is None or not row["items"]:
            continue
        n = row["items"]
        print(
            f"| {name} | {n} | {row['rules_correct'] / n:.1%} ({row['rules_correct']}) | "
            f"{row['adjudicated_correct'] / n:.1%} ({row['adjudicated_correct']}) | "
            f"{row['sent']} | {row['a_changed']} |"
        )
    if model == "smollm2":
        print("\nSmolLM2 proves the plumbing, not the accuracy.")
    calls = len(classifier.provider_calls)
    print(f"\n{calls} model calls, threshold {args.threshold}; {elapsed:.0f} s", file=sys.stderr)
    result = {
        "benchmark": "adjudication",
        "model": model,
        "provider": provider,
        "threshold": args.threshold,
        "rows": rows,
        "model_calls": calls,
        "seconds": round(elapsed, 1),
    }
    args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
