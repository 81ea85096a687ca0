"""``sscbench cases``: the final semantic review of a built case set.

``cases sheet`` writes what reviewers judge (no agent run in it); ``cases decide`` reads
their verdicts and shows each case's decision; ``sscbench build --semantic-review`` then
rebuilds with the failed cases replaced in the same frozen candidate order.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from rich.table import Table

from sscbench.terminal import make_console


def register(sub: Any) -> None:
    """Add ``cases sheet`` and ``cases decide``."""
    p = sub.add_parser("cases", help="final semantic review of a case set (sheet, decisions)")
    actions = p.add_subparsers(dest="cases_command", required=True, metavar="ACTION")
    sheet = actions.add_parser("sheet", help="write the review sheet and a verdicts template")
    sheet.add_argument("--cases", type=Path, help="case set directory (default: the shipped one)")
    sheet.add_argument("--out", type=Path, required=True, help="directory for the sheet")
    sheet.add_argument(
        "--unreviewed",
        action="store_true",
        help="only the cases the set's manifest lists as unreviewed or pending",
    )
    sheet.set_defaults(handler=handle_sheet)
    decide = actions.add_parser("decide", help="decisions from a verdicts file")
    decide.add_argument("verdicts", type=Path, help="verdicts JSONL (one reviewer × case a line)")
    decide.set_defaults(handler=handle_decide)


def handle_sheet(args: argparse.Namespace) -> int:
    """Write ``sheet.jsonl`` and an empty ``verdicts.jsonl``."""
    from sscbench.cases.caseset import load_case_set
    from sscbench.cases.semantic_review import write_sheet
    from sscbench.user_files import check_output_dir

    check_output_dir(args.out, "--out")
    case_set = load_case_set(args.cases)
    only = None
    if args.unreviewed:
        review = case_set.manifest.semantic_review or {}
        only = [*review.get("pending", []), *review.get("unreviewed", [])]
        if not review:
            only = [c.entry.case_id for c in case_set.cases]
    count = write_sheet(case_set, args.out, only)
    print(
        f"{count} cases in {args.out / 'sheet.jsonl'}; verdicts go in {args.out / 'verdicts.jsonl'}"
    )
    return 0


def handle_decide(args: argparse.Namespace) -> int:
    """Print each reviewed case's decision and the totals."""
    from sscbench.cases.semantic_review import decide, read_verdicts

    decisions = decide(read_verdicts(args.verdicts))
    table = Table(title=f"final semantic review ({args.verdicts})")
    for column in ("case", "decision", "why"):
        table.add_column(column)
    for decision in decisions.values():
        table.add_row(decision.case_id, decision.status, decision.reason)
    console = make_console()
    console.print(table)
    totals = {
        s: sum(d.status == s for d in decisions.values()) for s in ("keep", "replace", "pending")
    }
    console.print(", ".join(f"{n} {s}" for s, n in totals.items()))
    return 0
