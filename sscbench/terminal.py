"""Terminal output for a 100-column reader: consoles of at most that width, compact tables.

Every command prints through :func:`make_console` and lays its tables out with
:func:`compact_table` (no vertical rules, one space between columns), so that at 100
columns a row never wraps; what does not fit that width is split into two tables or
stacked, and the full tables are in the files each command writes.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterable

from rich import box
from rich.console import Console
from rich.table import Table

MAX_WIDTH = 100
"""Columns every table and line is laid out in (or fewer, in a narrower terminal)."""


def width(stderr: bool = False) -> int:
    """:data:`MAX_WIDTH`, or the terminal's width when the stream is a narrower terminal."""
    stream = sys.stderr if stderr else sys.stdout
    if stream.isatty():
        return min(MAX_WIDTH, shutil.get_terminal_size((MAX_WIDTH, 24)).columns)
    return MAX_WIDTH


def make_console(stderr: bool = False, *, highlight: bool = True) -> Console:
    """A console for a command's output (``stderr`` for progress and warnings), at most
    :data:`MAX_WIDTH` wide: a wider terminal, a pipe or a file get exactly that. Tables
    are laid out in that width; text is not wrapped, so a path or URL never breaks."""
    return Console(stderr=stderr, width=width(stderr), highlight=highlight, soft_wrap=True)


def compact_table(title: str | None, columns: Iterable[str], left: Iterable[str] = ()) -> Table:
    """A table with ``columns`` (``left`` ones left-aligned, the rest right-aligned), a
    rule under the header and no vertical rules."""
    keep_left = set(left)
    table = Table(
        title=title,
        box=box.SIMPLE_HEAD,  # its column separator is one blank: no padding needed
        padding=(0, 0),
        show_edge=False,
        title_justify="left",
    )
    for column in columns:
        table.add_column(column, justify="left" if column in keep_left else "right")
    return table
