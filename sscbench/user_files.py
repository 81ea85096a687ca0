"""The boundary with files a user hands us: problems in one line, outputs checked first.

Every command that reads a user's file or writes into a user's directory reports a bad
input as one :class:`~sscbench.errors.ConfigError` line (exit code 2) — what is wrong,
where, and how to fix it — and fails *before* writing anything, so a mistake never leaves
half an output behind. Pydantic's own messages span several lines and echo the input;
:func:`validation_problem` condenses them to the first problem's location and message.
"""

from __future__ import annotations

import os
from pathlib import Path

from pydantic import ValidationError

from sscbench.errors import ConfigError


def validation_problem(exc: ValidationError) -> str:
    """Pydantic's first error as ``loc: message`` (and how many more), on one line,
    without the offending input (it may be long, or a secret pasted in the wrong field)."""
    errors = exc.errors(include_url=False, include_input=False)
    if not errors:
        return str(exc).splitlines()[0]
    first = errors[0]
    where = ".".join(str(part) for part in first["loc"])
    text = f"{where}: {first['msg']}" if where else str(first["msg"])
    more = len(errors) - 1
    return text + (f" (and {more} more problem{'s' if more > 1 else ''})" if more else "")


def _existing_ancestor(path: Path) -> Path:
    probe = path.absolute()
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    return probe


def check_output_dir(path: Path, flag: str) -> None:
    """Refuse an output directory that cannot be created or written: a file in its place
    or on its way, or a read-only or permission-denied location. Nothing is created."""
    if path.exists() and not path.is_dir():
        raise ConfigError(f"{flag} {path} is a file; give a directory (new or existing)")
    ancestor = _existing_ancestor(path)
    if not ancestor.is_dir():
        raise ConfigError(
            f"{flag} {path}: {ancestor} is a file, so no directory can be made there; "
            "choose another location"
        )
    if not os.access(ancestor, os.W_OK | os.X_OK):
        raise ConfigError(
            f"{flag} {path}: {ancestor} is not writable (read-only file system or no "
            "permission); choose a writable location"
        )


def check_output_file(path: Path, flag: str) -> None:
    """Refuse an output file whose place is a directory, whose parent directory is
    missing, or which cannot be written. Nothing is created."""
    if path.is_dir():
        raise ConfigError(f"{flag} {path} is a directory; give a file name (e.g. {path}/x.jsonl)")
    parent = path.absolute().parent
    if not parent.is_dir():
        raise ConfigError(f"{flag} {path}: directory {parent} does not exist; create it first")
    if not os.access(parent, os.W_OK | os.X_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise ConfigError(
            f"{flag} {path} is not writable (read-only file system or no permission); "
            "choose a writable location"
        )
