"""``sscbench contracts audit``: the executable tool-contract audit of τ²'s write tools."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

DOMAINS = ("airline", "retail", "telecom")


def register(sub: Any) -> None:
    """Add the ``contracts`` subcommand with ``audit``."""
    p = sub.add_parser("contracts", help="audit τ²'s write tools against executable contracts")
    kinds = p.add_subparsers(dest="contracts", required=True, metavar="WHAT")
    a = kinds.add_parser(
        "audit",
        help="contracts, static scan, dynamic checker, score-at-risk, checker reliability",
        description="Checks every mutating τ² tool against its contract and writes "
        "audit.json, audit.html and CSV tables (docs/tool-contracts.md).",
    )
    a.add_argument(
        "--domain", action="append", choices=DOMAINS,
        help="a domain to audit (repeat for several; default: all three)",
    )  # fmt: skip
    a.add_argument("--out", type=Path, default=Path("contracts-audit"), help="output directory")
    a.add_argument("--no-reliability", action="store_true", help="skip the mutant run (faster)")
    a.set_defaults(handler=handle_audit)


def handle_audit(args: argparse.Namespace) -> int:
    """Run the audit, write its files, print the findings."""
    from sscbench.audit.report import write_outputs
    from sscbench.tool_contracts.audit import run_audit
    from sscbench.tool_contracts.report import render

    domains = tuple(dict.fromkeys(args.domain or DOMAINS))
    if args.out.exists() and not args.out.is_dir():
        from sscbench.errors import ConfigError

        raise ConfigError(f"--out {args.out} is a file; pass a directory")
    record = run_audit(
        domains, not args.no_reliability, lambda s: print(s, file=sys.stderr, flush=True)
    )
    paths = write_outputs(args.out, render(record))
    for f in record.findings:
        tag = "headline" if f.headline else f"{f.tier} tier"
        print(f"VIOLATES {f.id}: {f.defect_class or 'unclassified'} ({tag})")
    counts = {v: sum(t.verdict == v for t in record.tools) for v in
              ("CONFORMS", "VIOLATES", "UNTESTABLE")}  # fmt: skip
    print(", ".join(f"{n} tools {v}" for v, n in counts.items()))
    if record.reliability is not None:
        rel = record.reliability
        for c in rel.classes:
            print(f"  {c.defect_class}: {c.detected}/{c.drawn} detected "
                  f"(Wilson 95% {c.wilson_low:.2f}-{c.wilson_high:.2f})")  # fmt: skip
        print(f"  precision {rel.correct_flags}/{rel.flags}; "
              f"control false positives {rel.control_false_positives}")  # fmt: skip
    print("wrote " + ", ".join(str(p) for p in paths))
    return 0
