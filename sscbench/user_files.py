"""The boundary with files a user hands us: problems in one line, outputs checked first.

Every command that reads a user's file or writes into a user's directory reports a bad
input as one :class:`~sscbench.errors.ConfigError` line (exit code 2) — what is wrong,
where, and how to fix it — and fails *before* writing anything, so a mistake never leaves
half an output behind. Pydantic's own messages span several lines and echo the input;
:func:`validation_problem` condenses them to the first problem's location and message.
:func:`read_user_bytes` reads a named file only when it is a regular file of sane size (a
pipe or a device would hang the command), and :func:`find_files` searches a run directory
without losing a run to a broken link the way ``Path.rglob`` silently would.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from pathlib import Path

from pydantic import ValidationError

from sscbench.errors import ConfigError

USER_FILE_LIMIT = 64 * 1024 * 1024
"""The largest hand-written file SSCBench reads (an experiment file, a contract, a case
set's files, a saved analysis): far above any real one (the shipped 274-case set's largest
file is under 100 KB), and small enough that pointing a flag at a disk image or a log fails
at once instead of filling memory."""

_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def os_problem(exc: OSError) -> str:
    """An OS error as the words a user can act on (no errno, no traceback)."""
    if exc.errno == errno.ELOOP:
        return "a symbolic link loop (the link points back into itself)"
    return exc.strerror or type(exc).__name__


def read_user_bytes(path: Path, what: str, *, limit: int = USER_FILE_LIMIT) -> bytes:
    """The bytes of a file a user named as ``what``, or one :class:`ConfigError` line.

    Only a regular file is read: a named pipe or a device (``/dev/zero``, ``/dev/stdin``)
    would block or never end, so it is refused at once — opened without blocking, checked
    on the open descriptor (no race with a swapped path), and read up to ``limit`` bytes.
    A missing file, a symbolic link loop or a permission problem is named the same way."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise ConfigError(f"cannot read {what} {path}: {os_problem(exc)}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ConfigError(
                f"{what} {path} is {_kind(info.st_mode)}, not a regular file; give a file"
            )
        if info.st_size > limit:
            raise ConfigError(
                f"{what} {path} is {info.st_size / 2**20:.0f} MiB, more than the "
                f"{limit / 2**20:.0f} MiB SSCBench reads; is it the right file?"
            )
        with os.fdopen(os.dup(fd), "rb") as fh:
            data = fh.read(limit + 1)
    except OSError as exc:
        raise ConfigError(f"cannot read {what} {path}: {os_problem(exc)}") from None
    finally:
        os.close(fd)
    if len(data) > limit:  # it grew while being read
        raise ConfigError(f"{what} {path} is more than the {limit / 2**20:.0f} MiB SSCBench reads")
    return data


def resolve_user_path(path: Path, what: str) -> Path:
    """``path`` made absolute with symbolic links resolved, or one :class:`ConfigError`
    line (a link loop raises ``RuntimeError`` in ``Path.resolve`` on Python 3.11)."""
    try:
        return path.resolve()
    except (RuntimeError, OSError) as exc:
        problem = os_problem(exc) if isinstance(exc, OSError) else "a symbolic link loop"
        raise ConfigError(f"{what} {path}: {problem}; fix or remove the link") from None


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


SET_ASIDE = ".incomplete-"
"""The mark of a run directory a resume set aside (``<name>.incomplete-N``)."""


def find_files(root: Path, name: str, *, skip: str | None = SET_ASIDE) -> list[Path]:
    """Every file called ``name`` under ``root``, at any depth, sorted — as
    ``sorted(root.rglob(name))`` finds them (symbolic links to directories are not
    followed), except that an entry called ``name`` that cannot be read as a regular file
    (a symbolic link loop, a dangling link, a directory) is a :class:`ConfigError` naming
    it, where ``rglob`` would skip it and lose a run without a word. Directories whose name
    holds ``skip`` (runs set aside by a resume) are not searched."""
    return list(iter_files(root, name, skip=skip))


def iter_files(root: Path, name: str, *, skip: str | None = SET_ASIDE) -> Iterator[Path]:
    """:func:`find_files` one path at a time, in the same order, with the same errors: a
    command that walks 100,000 runs holds one path, not a list of them (about 400 bytes a
    run). Sorted ``Path`` order compares parts, so in each directory the file ``name`` is
    yielded at its place among the sorted subdirectories, before their contents."""

    def unreadable(exc: OSError) -> None:
        raise ConfigError(f"cannot read directory {exc.filename}: {os_problem(exc)}")

    def walk(directory: str) -> Iterator[Path]:
        subdirs: list[str] = []  # names only: no entry object is kept
        links: set[str] = set()  # subdirectories reached through a symbolic link
        here = False
        try:
            with os.scandir(directory) as it:
                for entry in it:
                    try:
                        is_dir = entry.is_dir()
                    except OSError:
                        is_dir = False
                    if entry.name == name:
                        here = True
                    elif is_dir and (skip is None or skip not in entry.name):
                        subdirs.append(entry.name)
                        try:  # the entry's own type, as os.path.islink asks it
                            if entry.is_symlink():
                                links.add(entry.name)
                        except OSError:
                            pass
        except OSError as exc:
            unreadable(exc)
        if here:  # checked before any subdirectory is searched, as os.walk's order did
            path = os.path.join(directory, name)
            try:
                mode = os.stat(path).st_mode
            except OSError as exc:
                raise ConfigError(f"{path}: {os_problem(exc)}; fix or remove it") from None
            if not stat.S_ISREG(mode):
                raise ConfigError(f"{path} is {_kind(mode)}, not a file; fix or remove it")
            subdirs.append(name)
        for child in sorted(subdirs):
            path = os.path.join(directory, child)
            if child == name:
                yield Path(path)
            elif child not in links:
                yield from walk(path)

    yield from walk(os.fspath(root))
