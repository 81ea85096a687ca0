"""``sscbench operators``: list the registered operators; write one's candidate contracts."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table


def register(sub: Any) -> None:
    """Add ``operators list`` and ``operators candidates``."""
    p = sub.add_parser("operators", help="fault operators: list them, write candidate contracts")
    ops = p.add_subparsers(dest="operators_command", required=True, metavar="ACTION")
    lst = ops.add_parser("list", help="each operator with its description and candidate counts")
    lst.set_defaults(handler=handle_list)
    cand = ops.add_parser(
        "candidates", help="screen an operator's candidates; write valid contracts"
    )
    cand.add_argument("name", help="operator name, e.g. return_date")
    cand.add_argument("--out", type=Path, required=True, help="directory for contract files")
    cand.add_argument("--seed", type=int, default=0, help="seed for the operator's choices")
    cand.set_defaults(handler=handle_candidates)


def handle_list(args: argparse.Namespace) -> int:
    """Print the operator table with candidate counts (frames and valid contracts)."""
    from sscbench.fault_contracts.contract import FaultContract
    from sscbench.operators.registry import get_operator, operator_names
    from sscbench.operators.screen import screen

    table = Table(title="fault operators")
    for column in (
        "name",
        "operator",
        "domain",
        "acquisition",
        "cluster",
        "candidates",
        "valid",
        "description",
    ):
        table.add_column(column, overflow="fold")
    for name in operator_names():
        op = get_operator(name)
        outcomes = list(screen(op))
        valid = sum(isinstance(o, FaultContract) for o in outcomes)
        table.add_row(
            name,
            op.display_name,
            ",".join(op.domains),
            op.acquisition,
            op.cluster_key,
            str(len(outcomes)),
            str(valid),
            op.description,
        )
    Console(soft_wrap=False, width=160).print(table)
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
    Console(stderr=True, soft_wrap=True).print(
        f"{op.display_name}: {valid} valid contracts and {rejected} rejections written to {out}"
    )
    return 0
