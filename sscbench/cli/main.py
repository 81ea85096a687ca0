"""``sscbench`` entry point: one command, one thin module per subcommand."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from sscbench import __version__
from sscbench.cli import audit as audit_cmd
from sscbench.cli import build as build_cmd
from sscbench.cli import cases as cases_cmd
from sscbench.cli import contracts as contracts_cmd
from sscbench.cli import demo as demo_cmd
from sscbench.cli import importer as import_cmd
from sscbench.cli import operators as operators_cmd
from sscbench.cli import oracles as oracles_cmd
from sscbench.cli import reconstruct as reconstruct_cmd
from sscbench.cli import report as report_cmd
from sscbench.cli import rescore as rescore_cmd
from sscbench.cli import review as review_cmd
from sscbench.cli import run as run_cmd
from sscbench.cli import show as show_cmd
from sscbench.cli import witness as witness_cmd
from sscbench.errors import ConfigError, LedgerError

EXIT_USAGE = 2


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand registered."""
    parser = argparse.ArgumentParser(
        prog="sscbench",
        description="Fault-injection measurement for tool-using LLM agents on τ² tasks.",
    )
    parser.add_argument("--version", action="version", version=f"sscbench {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in (
        demo_cmd,
        run_cmd,
        show_cmd,
        operators_cmd,
        build_cmd,
        cases_cmd,
        witness_cmd,
        import_cmd,
        reconstruct_cmd,
        report_cmd,
        review_cmd,
        oracles_cmd,
        audit_cmd, rescore_cmd,
        contracts_cmd,
    ):
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Parse arguments and dispatch; bad input prints one line and exits with 2."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code: int = args.handler(args)
    except (ConfigError, LedgerError) as exc:
        print(f"sscbench {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    return code


if __name__ == "__main__":
    sys.exit(main())
