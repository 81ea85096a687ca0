"""``sscbench compare BUNDLE…``: results bundles side by side, on the terminal and as one
self-contained HTML page (docs/results-bundles.md)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from sscbench.errors import ConfigError


def register(sub: Any) -> None:
    """Add the ``compare`` subcommand."""
    p = sub.add_parser("compare", help="put results bundles side by side (table and HTML page)")
    p.add_argument("bundles", type=Path, nargs="+", help="bundles from `sscbench export results`")
    p.add_argument("--html", type=Path, help="also write the comparison as one HTML page")
    p.add_argument(
        "--allow-mixed",
        action="store_true",
        help="compare bundles of different case sets (their numbers are about other cases)",
    )
    p.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    """Read, check, print, write."""
    from sscbench.analysis.bundle import check_same_case_set, comparison_rows, read_bundle
    from sscbench.analysis.compare_page import compare_page, compare_table
    from sscbench.terminal import make_console

    read = [(path, *read_bundle(path)) for path in args.bundles]
    check_same_case_set([(p, b) for p, b, _ in read], args.allow_mixed)
    rows = comparison_rows(read)
    make_console(highlight=False).print(compare_table(rows))
    if args.html is not None:
        if args.html.is_dir():
            raise ConfigError(f"--html {args.html} is a directory; give a file name")
        args.html.parent.mkdir(parents=True, exist_ok=True)
        args.html.write_text(compare_page(rows), encoding="utf-8", newline="\n")
        print(f"page: {args.html}")
    return 0
