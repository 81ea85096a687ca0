"""``sscbench witness verify [DIR]``: replay every stored witness of a case set."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from sscbench.terminal import make_console


def register(sub: Any) -> None:
    """Add ``witness verify``."""
    p = sub.add_parser("witness", help="witness tools")
    ws = p.add_subparsers(dest="witness_command", required=True, metavar="ACTION")
    v = ws.add_parser("verify", help="replay every witness of a case set and re-derive T_E < T_S")
    v.add_argument(
        "dir", type=Path, nargs="?", help="case set directory (default: the shipped one)"
    )
    v.set_defaults(handler=handle_verify)


def handle_verify(args: argparse.Namespace) -> int:
    """Exit 0 when every witness holds, 1 otherwise (each failure printed)."""
    from sscbench.cases.caseset import load_case_set
    from sscbench.witnesses.verify import verify_witness

    console = make_console()
    case_set = load_case_set(args.dir)
    failures = 0
    for case in case_set.cases:
        problems = verify_witness(case.contract, case.witness)
        if problems:
            failures += 1
            for problem in problems:
                console.print(f"[red]FAIL[/red] {case.entry.case_id}: {problem}")
    total = len(case_set.cases)
    console.print(f"{total - failures}/{total} witnesses verified in {case_set.root}")
    return 1 if failures else 0
