"""``sscbench build``: screen candidates, search witnesses, write a frozen case set."""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

from sscbench.terminal import compact_table, make_console

MAX_DEPTH = 2
MAX_BRANCHING = 60
"""``SearchLimits``' defaults, written out so that ``--help`` imports no search code (a test
keeps them equal)."""


def register(sub: Any) -> None:
    """Add the ``build`` subcommand."""
    p = sub.add_parser("build", help="build a frozen, versioned case set (contracts + witnesses)")
    p.add_argument("--out", type=Path, required=True, help="a new or empty directory")
    p.add_argument("--per-operator", type=int, default=30, help="cases per operator (default 30)")
    p.add_argument(
        "--controls",
        type=int,
        default=10,
        help="of each operator's cases, how many are target-value controls where the operator "
        "proposes them (ItemOption); default 10",
    )
    p.add_argument("--operators", help="comma-separated operator names (default: all)")
    p.add_argument("--seed", type=int, default=0, help="seed for operators' choices")
    p.add_argument(
        "--max-depth",
        type=int,
        default=MAX_DEPTH,
        help=f"witness search depth (default {MAX_DEPTH})",
    )
    p.add_argument(
        "--max-branching",
        type=int,
        default=MAX_BRANCHING,
        help="legal continuations the witness search tries from each state before it gives up "
        f"on a case (default {MAX_BRANCHING}); raise it when cases fail for want of a witness",
    )
    p.add_argument(
        "--semantic-review",
        type=Path,
        metavar="VERDICTS",
        help="the final semantic review's verdicts (see `sscbench cases`): cases it decides "
        "to replace are replaced by the next candidates in the same frozen order",
    )
    p.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    """Build and print per-operator screening counts and times."""
    from sscbench.cases.build import build_case_set  # heavy: operators and τ²
    from sscbench.cases.semantic_review import review_outcome
    from sscbench.user_files import check_output_dir
    from sscbench.witnesses.record import SearchLimits

    check_output_dir(args.out, "--out")
    console = make_console(stderr=True)

    table = compact_table(
        f"case set {args.out}",
        (
            "operator",
            "frames",
            "screened",
            "incl.",
            "controls",
            "invalid",
            "no witn.",
            "replaced",
            "filled at",
            "not reached",
            "s",
        ),
        left=("operator",),
    )
    started = [time.perf_counter()]

    def report(name: str, counts: dict[str, int]) -> None:
        now = time.perf_counter()
        table.add_row(
            name,
            *(
                str(counts[k])
                for k in (
                    "frames",
                    "screened",
                    "included",
                    "controls",
                    "invalid",
                    "no_witness",
                )
            ),
            str(counts.get("replaced", "–")),
            str(counts.get("filled_at_rank", "–")),
            str(counts["not_reached"]),
            f"{now - started[0]:.2f}",
        )
        started[0] = now
        console.print(f"screened {name}")

    operators = [o.strip() for o in args.operators.split(",")] if args.operators else None
    review = review_outcome(args.semantic_review) if args.semantic_review else None
    manifest = build_case_set(
        args.out,
        per_operator=args.per_operator,
        controls=args.controls,
        operators=operators,
        seed=args.seed,
        limits=SearchLimits(max_depth=args.max_depth, max_branching=args.max_branching),
        on_operator=report,
        review=review,
    )
    console.print(table)
    controls = sum(c.control for c in manifest.cases)
    console.print(
        f"{len(manifest.cases)} cases ({controls} target-value controls) written to {args.out}"
    )
    if manifest.semantic_review is not None:
        r = manifest.semantic_review
        open_ = len(r["pending"]) + len(r["unreviewed"])
        console.print(
            f"semantic review: {len(r['replaced'])} replaced, {r['kept']} kept, {open_} still to "
            f"review (`sscbench cases sheet --cases {args.out} --unreviewed`)"
        )
    return 0
