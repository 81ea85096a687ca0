"""The one way commands make a rich console: at most :data:`MAX_WIDTH` columns.

A terminal narrower than that gets its own width; a wider one, a pipe or a file get
:data:`MAX_WIDTH`, so every table is laid out for a 100-column reader (the full tables are
in the files each command writes).
"""

from __future__ import annotations

import shutil
import sys

from rich.console import Console

MAX_WIDTH = 100
"""Columns every table and line is laid out in (or fewer, in a narrower terminal)."""


def width(stderr: bool = False) -> int:
    """:data:`MAX_WIDTH`, or the terminal's width when the stream is a narrower terminal."""
    stream = sys.stderr if stderr else sys.stdout
    if stream.isatty():
        return min(MAX_WIDTH, shutil.get_terminal_size((MAX_WIDTH, 24)).columns)
    return MAX_WIDTH


def console(stderr: bool = False, *, highlight: bool = True) -> Console:
    """A console for a command's output (``stderr`` for progress and warnings)."""
    return Console(stderr=stderr, width=width(stderr), highlight=highlight)
