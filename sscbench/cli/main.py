"""``sscbench`` entry point: one command, one thin module per subcommand."""

from __future__ import annotations

import argparse
import errno
import gc
import importlib
import os
import sys
import warnings
from collections.abc import Sequence
from typing import TextIO

from sscbench import __version__
from sscbench.errors import ConfigError, LedgerError, OutputError

EXIT_USAGE = 2
ALL = "*"
WIDE = 100
"""Columns rich lays tables out in when output is not a terminal (it would assume 80):
``sscbench.cli.console.MAX_WIDTH``, written out so that ``--help`` imports no rich."""

COMMANDS: dict[str, tuple[str, str]] = {
    "demo": ("demo", "run the scripted agents on the shipped case set, offline"),
    "run": ("run", "run tasks (clean, or a fault case) and write one ledger per run"),
    "serve": ("serve", "serve runs over MCP to an agent in its own loop (one run per session)"),
    "show": ("show", "pretty-print a ledger"),
    "operators": ("operators", "fault operators: list them, write candidate contracts"),
    "build": ("build", "build a frozen, versioned case set (contracts + witnesses)"),
    "cases": ("cases", "final semantic review of a case set (sheet, decisions)"),
    "witness": ("witness", "witness tools"),
    "import": ("importer", "turn runs recorded elsewhere into SSCBench ledgers"),
    "export": ("export", "write runs in another tool's format (Inspect logs), or a results bundle"),
    "compare": ("compare", "put results bundles side by side (table and HTML page)"),
    "reconstruct": ("reconstruct", "label arrival, first use, reliance and adoption per run"),
    "report": ("report", "write the HTML report, tables and figures of a run set"),
    "review": ("review", "human review: masked packets, annotation page, agreement"),
    "oracles": ("oracles", "automatic oracles: list them, score them (docs/measurement.md §7)"),
    "audit": ("audit", "audit a grader: integrity checks and injected defects"),
    "rescore": (
        "rescore",
        "replay recorded runs on a clean database and compare with their archived labels",
    ),
    "contracts": ("contracts", "audit τ²'s write tools against executable contracts"),
    "native": (
        "native",
        "run the native observation-contract suite (four quadrants, five perturbations, "
        "rate limits, maintenance windows, version conflicts)",
    ),
}
"""Each subcommand's module in ``sscbench.cli`` and its one-line help (a test keeps the
help equal to what the module registers). Only the module of the command being run is
imported, so ``sscbench --help`` and ``sscbench CMD --help`` stay fast."""


def build_parser(command: str | None = ALL) -> argparse.ArgumentParser:
    """The argument parser. ``command`` names the one subcommand whose module is imported
    and registered in full; the others get only their one-line help (enough for
    ``sscbench --help``). ``None`` imports none; the default imports every module."""
    parser = argparse.ArgumentParser(
        prog="sscbench",
        description="Fault-injection measurement for tool-using LLM agents on τ² tasks.",
    )
    parser.add_argument("--version", action="version", version=f"sscbench {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, (module, help_text) in COMMANDS.items():
        if command in (ALL, name):
            importlib.import_module(f"sscbench.cli.{module}").register(sub)
        else:
            sub.add_parser(name, help=help_text)
    return parser


def _command(argv: Sequence[str]) -> str | None:
    """The subcommand ``argv`` asks for (its first word that is not an option)."""
    word = next((a for a in argv if not a.startswith("-")), None)
    return word if word in COMMANDS else None


def main(argv: Sequence[str] | None = None) -> int:
    """Parse arguments and dispatch; bad input prints one line and exits with 2."""
    if not sys.stdout.isatty() and "COLUMNS" not in os.environ:
        os.environ["COLUMNS"] = str(WIDE)  # piped or captured: rich tables, not 80 columns
    words = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(_command(words))
    args = parser.parse_args(words)
    from sscbench.heartbeat import Heartbeat

    with warnings.catch_warnings():
        warnings.showwarning = _one_line_warning
        try:
            with Heartbeat(f"sscbench {args.command}"):
                code: int = args.handler(args)
        except (ConfigError, LedgerError, OutputError) as exc:
            print(f"sscbench {args.command}: error: {exc}", file=sys.stderr)
            return EXIT_USAGE
        except OSError as exc:
            if exc.errno not in WRITE_FAILURES:
                raise  # not the file system refusing a write: a bug, with its traceback
            failure = OutputError(exc.filename or "an output file", exc)
            print(f"sscbench {args.command}: error: {failure}", file=sys.stderr)
            return EXIT_USAGE
    return code


def entry() -> int:
    """The ``sscbench`` script and ``python -m sscbench``: :func:`main` in a process that
    ends with it, so what the command still holds is left to the operating system.

    A finished command holds what it loaded (τ² domains, matplotlib, parsed records), and
    the interpreter's collector walks all of it again while it clears the modules at exit:
    0.25 s of a cold reconstruct, 1.5 s of the demo's work (benchmarks/README.md, "Eighth
    pass"). Frozen, those objects are skipped; ``atexit`` handlers still run and the
    standard streams are still flushed. Only here, where the process ends: a long-lived
    caller of :func:`main` (a test run, a notebook) keeps collecting."""
    code = main()
    gc.freeze()
    return code


WRITE_FAILURES = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO, errno.EROFS})
"""File-system refusals of a write that reach the command line without a file attached (the
writers of runs, labels, reports and case sets name theirs as :class:`OutputError`)."""


_python_showwarning = warnings.showwarning


def _one_line_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: TextIO | None = None,
    line: str | None = None,
) -> None:
    """SSCBench's own warnings (a cut last line set aside, a dropped truncated line) as
    one ``warning: ...`` line, as the commands print theirs; others as Python shows them."""
    if category.__module__.startswith("sscbench."):
        print(f"warning: {message}", file=file or sys.stderr)
    else:
        _python_showwarning(message, category, filename, lineno, file, line)


if __name__ == "__main__":
    sys.exit(entry())
