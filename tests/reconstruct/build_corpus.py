"""Build the counterfactual part of the reconstruction-accuracy corpus from τ² results.

    python tests/reconstruct/build_corpus.py AIRLINE.json RETAIL.json \
        [--out tests/fixtures/reconstruction_corpus] [--packets DIR] [--groups 4]

Imports the τ² results (``sscbench import tau2``), proposes every counterfactual item
(:mod:`sscbench.accuracy.counterfactual`), drops items whose ``v′`` a user message states
(the value could then come from the user), and selects deterministically:

* ReturnDate, PaySource, WriteEffect: every remaining item;
* ItemOption: one item per run (seeded choice), at most ``--item-option`` runs.

It writes ``items.jsonl`` (items without labels; labels are merged in by
``merge_labels.py``) and copies the ledgers the items need under ``runs/``. With
``--packets`` it also writes annotation packets, one text file per run, split into
``--groups`` folders so independent annotators can share the work. Selection never looks
at what the agent did, so it cannot favour runs the rules handle well.
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

from sscbench.accuracy.counterfactual import Counterfactual, propose
from sscbench.accuracy.items import CorpusItem
from sscbench.accuracy.packet import render_packet
from sscbench.imports import import_tau2_results
from sscbench.imports.tau2_results import IMPORT_FILE
from sscbench.records.ledger import dump_line, read_ledger
from sscbench.runs.episode import LEDGER_FILE

DEFAULT_OUT = Path(__file__).resolve().parents[1] / "fixtures" / "reconstruction_corpus"


def select(items: list[Counterfactual], item_option_runs: int) -> list[Counterfactual]:
    """The deterministic selection described in the module docstring."""
    kept = [i for i in items if not i.user_states_injected]
    chosen = [i for i in kept if i.operator != "item_option"]
    by_run: dict[str, list[Counterfactual]] = defaultdict(list)
    for i in kept:
        if i.operator == "item_option":
            by_run[i.run_id].append(i)
    rng = random.Random("sscbench-reconstruction-corpus-v1")
    runs = sorted(by_run)
    rng.shuffle(runs)
    for run in sorted(runs[:item_option_runs]):
        chosen.append(rng.choice(sorted(by_run[run], key=lambda i: i.item_id)))
    return sorted(chosen, key=lambda i: (i.operator, i.item_id))


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path, nargs="+")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--packets", type=Path)
    parser.add_argument("--groups", type=int, default=4)
    parser.add_argument("--item-option", type=int, default=70)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        imported = Path(tmp) / "imported"
        for source in args.results:
            import_tau2_results(source, imported)
        ledgers = {p.parent.name: read_ledger(p) for p in sorted(imported.glob(f"*/{LEDGER_FILE}"))}
        proposed = [item for ledger in ledgers.values() for item in propose(ledger)]
        chosen = select(proposed, args.item_option)
        runs_dir = args.out / "runs"
        runs_dir.mkdir(parents=True, exist_ok=True)
        needed = sorted({i.run_id for i in chosen})
        for run in needed:
            target = runs_dir / run
            target.mkdir(exist_ok=True)
            for name in (LEDGER_FILE, IMPORT_FILE):
                shutil.copyfile(imported / run / name, target / name)
        with (args.out / "items.jsonl").open("w", encoding="utf-8") as fh:
            for i in chosen:
                record = CorpusItem(
                    item_id=i.item_id,
                    run_id=i.run_id,
                    operator=i.operator,
                    kind="counterfactual",
                    t_f=i.t_f,
                    call_id=i.call_id,
                    tool=i.tool,
                    action=i.action,
                    contract=i.contract,
                    fact=i.fact,
                )
                fh.write(dump_line(record) + "\n")
        if args.packets is not None:
            by_run: dict[str, list[Counterfactual]] = defaultdict(list)
            for i in chosen:
                by_run[i.run_id].append(i)
            airline = [r for r in needed if ".airline." in r]
            retail = [r for r in needed if ".retail." in r]
            half = max(1, args.groups // 2)
            for domain_runs, offset in ((airline, 0), (retail, half)):
                for n, run in enumerate(domain_runs):
                    folder = args.packets / f"group{offset + n % half + 1}"
                    folder.mkdir(parents=True, exist_ok=True)
                    text = render_packet(ledgers[run], by_run[run])
                    (folder / f"{run}.txt").write_text(text, encoding="utf-8")
        counts = defaultdict(int)
        for i in chosen:
            counts[i.operator] += 1
        print(f"{len(chosen)} items from {len(needed)} runs: {dict(sorted(counts.items()))}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
