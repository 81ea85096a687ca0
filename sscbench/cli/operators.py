"""``sscbench operators``: list the registered operators; write one's candidate contracts."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from sscbench.terminal import compact_table, make_console


def register(sub: Any) -> None:
    """Add ``operators list`` and ``operators candidates``."""
    p = sub.add_parser("operators", help="fault operators: list them, write candidate contracts")
    ops = p.add_subparsers(dest="operators_command", required=True, metavar="ACTION")
    lst = ops.add_parser("list", help="each operator with its description and candidate counts")
    lst.add_argument(
        "--recount",
        action="store_true",
        help="screen every candidate now instead of reading the counts cached with the package",
    )
    lst.set_defaults(handler=handle_list)
    cand = ops.add_parser(
        "candidates", help="screen an operator's candidates; write valid contracts"
    )
    cand.add_argument("name", help="operator name, e.g. return_date")
    cand.add_argument("--out", type=Path, required=True, help="directory for contract files")
    cand.add_argument("--seed", type=int, default=0, help="seed for the operator's choices")
    cand.set_defaults(handler=handle_candidates)


def handle_list(args: argparse.Namespace) -> int:
    """Print the operator table with candidate counts (frames and valid contracts), then
    each operator's description; counts come from the cache shipped with the package
    where it still matches (:mod:`sscbench.cases.candidate_counts`)."""
    from sscbench.cases.candidate_counts import candidate_counts
    from sscbench.operators.registry import get_operator, operator_names

    names = operator_names()
    counts = candidate_counts(names, recount=args.recount)
    table = compact_table(
        "fault operators",
        ("name", "domain", "acquisition", "cluster", "frames", "valid"),
        left=("name", "domain", "acquisition", "cluster"),
    )
    for name in names:
        op = get_operator(name)
        table.add_row(
            name,
            "both" if len(op.domains) > 1 else op.domains[0],
            op.acquisition,
            op.cluster_key,
            str(counts[name].candidates),
            str(counts[name].valid),
        )
    out = make_console()
    out.print(table)
    for name in names:
        out.print(
            f"[bold]{name}[/bold] ({get_operator(name).display_name}): "
            f"{get_operator(name).description}",
            highlight=False,
            soft_wrap=False,  # prose: wrapped at the console's width
        )
    screened = [n for n in names if not counts[n].cached]
    if screened:
        out.print(f"screened now (no cached counts): {', '.join(screened)}", highlight=False)
    return 0


def handle_candidates(args: argparse.Namespace) -> int:
    """Write ``<out>/<contract id>.yaml`` per valid candidate and ``rejections.jsonl``."""
    from sscbench.fault_contracts.contract import FaultContract
    from sscbench.fault_contracts.io import write_contract
    from sscbench.operators.registry import get_operator
    from sscbench.operators.screen import screen

    op = get_operator(args.name)
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    valid = rejected = 0
    with (out / "rejections.jsonl").open("w", encoding="utf-8") as rejections:
        for outcome in screen(op, seed=args.seed):
            if isinstance(outcome, FaultContract):
                write_contract(outcome, out / (outcome.contract_id.replace("/", "__") + ".yaml"))
                valid += 1
            else:
                rejections.write(json.dumps(outcome.model_dump(), ensure_ascii=False) + "\n")
                rejected += 1
    make_console(stderr=True).print(
        f"{op.display_name}: {valid} valid contracts and {rejected} rejections written to {out}"
    )
    return 0
