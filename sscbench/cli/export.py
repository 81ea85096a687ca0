"""``sscbench export inspect RUNDIR --out LOGDIR``: runs as Inspect eval logs, one per
configuration, for ``inspect view`` and Inspect's log tools (docs/inspect.md)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from sscbench.errors import ConfigError


def register(sub: Any) -> None:
    """Add the ``export`` subcommand."""
    p = sub.add_parser("export", help="write runs in another tool's format (Inspect logs)")
    what = p.add_subparsers(dest="format", required=True, metavar="FORMAT")
    inspect = what.add_parser(
        "inspect", help="one Inspect eval log per configuration (needs sscbench[inspect])"
    )
    inspect.add_argument("runs", type=Path, help="a directory of SSCBench runs")
    inspect.add_argument("--out", type=Path, required=True, help="the Inspect log directory")
    inspect.set_defaults(handler=_inspect)


def _inspect(args: argparse.Namespace) -> int:
    try:
        from sscbench.inspect_task.export import export_inspect
    except ImportError as exc:
        raise ConfigError(
            f"exporting to Inspect needs Inspect AI ({exc.name} is missing): "
            "pip install 'sscbench[inspect]'"
        ) from None
    logs = export_inspect(args.runs, args.out)
    for log in logs:
        print(log)
    print(f"{len(logs)} Inspect log(s) in {args.out}; open them: inspect view --log-dir {args.out}")
    return 0
