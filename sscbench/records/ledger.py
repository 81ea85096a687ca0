"""Append-only JSONL ledgers: a crash-safe writer and a validating reader.

The writer appends one record per line and flushes after each, so a crash loses at most
the line being written. Every line passes through :func:`redact_secrets` first, so an API
key that reached a record (a model echoing it) is never written. The reader validates
every line, names the file and line of a corrupt entry, and drops a truncated *last* line
(a crash mid-write) with a warning.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import re
import stat
import warnings
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from pydantic import BaseModel, ValidationError
from pydantic_core import PydanticSerializationError

from sscbench.errors import LedgerError, OutputError
from sscbench.records.events import (
    RECORD_ADAPTER,
    SCHEMA_VERSION,
    Header,
    LedgerRecord,
    RunEnd,
    VisibleEvent,
)
from sscbench.records.json_text import loads
from sscbench.records.lines import fast_line

REDACTED = "[REDACTED]"
MIN_SECRET_LENGTH = 8
"""Shorter values (``EMPTY``, ``none``: placeholders local servers accept) are no secret,
and replacing them everywhere would mangle every record."""

_SECRETS: set[str] = set()


def register_secret(value: str) -> None:
    """Never write ``value`` again in this process (the provider layer registers each API
    key it reads)."""
    if len(value) >= MIN_SECRET_LENGTH:
        _SECRETS.add(value)
        escaped = json.dumps(value, ensure_ascii=False)[1:-1]
        if escaped != value:
            _SECRETS.add(escaped)  # as it appears inside a JSON string


def redact_secrets(text: str) -> str:
    """``text`` with every registered secret replaced by ``[REDACTED]``."""
    for secret in _SECRETS:
        if secret in text:
            text = text.replace(secret, REDACTED)
    return text


class TruncatedLineWarning(UserWarning):
    """A ledger's last line was cut off (the writer crashed mid-line) and was dropped."""


_FLOAT_SPELLED_APART = re.compile(r"0\.0000|[0-9]e-[1-9](?![0-9])")
"""Where pydantic's JSON could differ from the standard library's: a float below 1e-4
(``0.00001``, ``1.5e-7``; Python writes ``1e-05``, ``1.5e-07``). Any match, even inside a
string, sends the record down the reference path. An exponent follows a digit, so text
such as a run id ``airline-1-…`` does not (every airline header used to)."""


def _spelled_apart(line: str) -> bool:
    """Whether ``line`` may hold a float pydantic spells apart: substring tests first (a
    scan of the whole line at C speed), the expression only when one could match."""
    return ("0.0000" in line or "e-" in line) and _FLOAT_SPELLED_APART.search(line) is not None


def dump_line_reference(record: BaseModel) -> str:
    """The defining form of a record's line: the standard library's compact JSON of its
    JSON-mode dump, in field order (before secrets are redacted)."""
    return json.dumps(record.model_dump(mode="json"), ensure_ascii=False, separators=(",", ":"))


def dump_line(record: BaseModel) -> str:
    """One record as a compact JSON line with a stable key order (field order), secrets
    redacted.

    The line is pydantic's own JSON (no Python dict in between, about 3x cheaper), which
    is byte for byte :func:`dump_line_reference` except for floats below 1e-4 and strings
    a UTF-8 encoder refuses (lone surrogates): those records take the reference path, so
    the bytes never change (tested on every frozen ledger and record version). The four
    commonest events are spelled out directly (:mod:`sscbench.records.lines`)."""
    line = fast_line(record)
    if line is None:
        try:
            line = record.model_dump_json()
        except PydanticSerializationError:
            line = ""
        if not line or _spelled_apart(line):
            line = dump_line_reference(record)
    return redact_secrets(line) if _SECRETS else line


class JsonlWriter:
    """Append records to a JSONL file, each line handed to the OS as it is appended (and
    optionally fsynced).

    The file is opened unbuffered, so a line reaches the OS in one ``write`` system call
    with no flush after it: a crash of the process loses at most the line being written,
    as before, at a third of the calls. :meth:`append_all` hands several lines over in one
    call, for files whose lines all exist at once (a run's hidden log and truth).

    The SHA-256 of the whole file is kept as its bytes are appended (:attr:`sha256`), so
    whoever records a finished file's digest need not read it back; a file that already
    held bytes when it was opened is hashed from those bytes first.
    """

    def __init__(self, path: Path | str, *, fsync: bool = False) -> None:
        # A run opens four files per episode: a string path skips pathlib's parsing and
        # joining (a few percent of a scripted episode); :attr:`path` is built when asked.
        self._name = path
        self._fsync = fsync
        self._failed = False
        self._hash = hashlib.sha256()
        try:
            self._fh: IO[bytes] = open(path, "ab", buffering=0)  # noqa: SIM115 (closed by close)
            if self._fh.tell():  # appending to an earlier file: its bytes count too
                with open(path, "rb") as earlier:
                    self._hash.update(earlier.read(self._fh.tell()))
        except OSError as exc:
            raise OutputError(path, exc) from None

    @property
    def path(self) -> Path:
        """The file being written."""
        return Path(self._name)

    @property
    def sha256(self) -> str | None:
        """Hex SHA-256 of the file's bytes so far (``None`` after a failed append, whose
        bytes on disk are unknown)."""
        return None if self._failed else self._hash.hexdigest()

    def append(self, record: BaseModel) -> None:
        """Write one record and hand it to the OS (a full disk is an
        :class:`~sscbench.errors.OutputError` naming the file; the line it cut is the
        truncated last line a crash leaves)."""
        self._write((dump_line(record) + "\n").encode("utf-8"))

    def append_all(self, records: Iterable[BaseModel]) -> None:
        """Write several records in one system call: for lines that all exist before the
        first is written, so no crash can fall between them in a way that matters more
        than a crash before the call."""
        lines = [dump_line(record) for record in records]
        if lines:
            self._write(("\n".join(lines) + "\n").encode("utf-8"))

    def _write(self, data: bytes) -> None:
        try:
            done = self._fh.write(data)  # nearly always all of it: no view, no loop
            if done != len(data):  # a raw write may take part of the bytes (a full disk, a signal)
                view = memoryview(data)[done or 0 :]
                while view:
                    done = self._fh.write(view)
                    if done is None:  # pragma: no cover - only a non-blocking file says so
                        continue
                    view = view[done:]
            if self._fsync:
                os.fsync(self._fh.fileno())
        except OSError as exc:
            self._failed = True
            raise OutputError(self.path, exc) from None
        self._hash.update(data)

    def close(self) -> None:
        """Close the file; further appends raise. After a failed append the unwritten
        bytes are dropped rather than raised a second time."""
        try:
            self._fh.close()
        except OSError as exc:
            if not self._failed:
                raise OutputError(self.path, exc) from None

    def __enter__(self) -> JsonlWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def iter_jsonl(path: Path, data: bytes | None = None) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line_number, object)`` for each line; a truncated last line is dropped.

    Lines are split as bytes and decoded one by one, so a crash that cut a multi-byte
    character is a truncated line like any other, and a bad byte elsewhere is reported
    with its line number. ``data``: the file's bytes when the caller has read them.
    """
    if data is None:
        data = path.read_bytes()
    if not data:
        return
    lines = data.split(b"\n")
    complete = data.endswith(b"\n")
    if complete:
        lines.pop()
    for number, raw in enumerate(lines, start=1):
        is_last = number == len(lines)
        try:
            obj = loads(raw.decode("utf-8"))  # json.loads's value or exception, faster
        except RecursionError:  # no record nests this deep: not a line SSCBench wrote
            raise LedgerError(path, number, "not a record (JSON nested too deeply)") from None
        except (UnicodeDecodeError, ValueError) as exc:  # ValueError: JSON, or a huge integer
            if is_last and not complete:
                warnings.warn(
                    f"{path}:{number}: dropped a truncated last line ({len(raw)} bytes)",
                    TruncatedLineWarning,
                    stacklevel=2,
                )
                return
            if isinstance(exc, UnicodeDecodeError):
                problem = f"not valid UTF-8 (byte {exc.start})"
            elif isinstance(exc, json.JSONDecodeError):
                problem = f"not valid JSON ({exc.msg} at column {exc.colno})"
            else:  # Python's limit on the digits of an integer
                problem = "not a record (an integer too long to read)"
            raise LedgerError(path, number, problem) from exc
        if not isinstance(obj, dict):
            raise LedgerError(path, number, f"expected a JSON object, found {type(obj).__name__}")
        yield number, obj


@dataclass(frozen=True)
class Ledger:
    """A parsed ledger: its header, model-visible events in order, and the end record."""

    path: Path
    header: Header
    events: tuple[VisibleEvent, ...]
    end: RunEnd | None
    sha256: str = ""
    """SHA-256 of the bytes parsed (what a labels file's run-set record names the run by)."""

    @property
    def finished(self) -> bool:
        """True when the run wrote its end record."""
        return self.end is not None


def _check_schema_version(path: Path, obj: dict[str, Any]) -> None:
    # Checked on the raw object: a newer header may have fields this version rejects.
    version = obj.get("schema_version")
    if isinstance(version, int) and version > SCHEMA_VERSION:
        raise LedgerError(
            path,
            1,
            f"schema_version {version} is newer than this SSCBench reads ({SCHEMA_VERSION}); "
            "upgrade sscbench",
        )


MISSING = frozenset({errno.ENOENT, errno.ENOTDIR, errno.EBADF, errno.ELOOP})
"""What ``Path.exists`` and ``Path.is_file`` take for "nothing there" (a link loop too)."""


def read_regular(path: Path) -> bytes | int | None:
    """The bytes of the regular file at ``path``; ``None`` when nothing is there, or the
    ``st_mode`` of what is there instead (a directory, a named pipe: never read, so a pipe
    cannot block). Opened without blocking and checked on the descriptor, in five system
    calls where ``is_file`` and ``read_bytes`` take eight: labelling reads two files a run."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        if exc.errno in MISSING:
            return None
        raise
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return info.st_mode
        parts = []
        size = info.st_size + 1  # one more byte than it holds: the file may have grown
        while chunk := os.read(fd, size):
            parts.append(chunk)
            size = 1 << 16
        return b"".join(parts)
    finally:
        os.close(fd)


def read_ledger(path: Path | str) -> Ledger:
    """Read and validate a ledger; raise :class:`LedgerError` naming the bad line."""
    path = Path(path)
    data = read_regular(path)
    if not isinstance(data, bytes):  # nothing there, or not a regular file
        raise LedgerError(path, 0, "no such ledger file")
    fast = _read_fast(path, data)
    if fast is not None:
        return fast
    header: Header | None = None
    events: list[VisibleEvent] = []
    end: RunEnd | None = None
    for number, obj in iter_jsonl(path, data):
        if number == 1:
            _check_schema_version(path, obj)
        try:
            record: LedgerRecord = RECORD_ADAPTER.validate_python(obj)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "kind"
            raise LedgerError(path, number, f"invalid record ({where}: {first['msg']})") from exc
        if number == 1:
            if not isinstance(record, Header):
                raise LedgerError(path, 1, f"first line must be the header, found {record.kind!r}")
            header = record
            continue
        if isinstance(record, Header):
            raise LedgerError(path, number, "a second header")
        if end is not None:
            raise LedgerError(path, number, "an event after run_end")
        if isinstance(record, RunEnd):
            end = record
            continue
        expected = len(events)
        if record.step != expected:
            raise LedgerError(path, number, f"step {record.step} where {expected} was expected")
        events.append(record)
    if header is None:
        raise LedgerError(path, 1, "empty ledger (no header)")
    digest = hashlib.sha256(data).hexdigest()
    return Ledger(path=path, header=header, events=tuple(events), end=end, sha256=digest)


def _header_object(line: bytes) -> Any:
    """The header line as ``json.loads`` reads it (raising what it raises), by pydantic's
    JSON reader where that gives the same object (:mod:`sscbench.records.json_text`):
    about a third of the standard library's time on a header (its contract)."""
    return loads(line.decode("utf-8"))


def _read_fast(path: Path, data: bytes) -> Ledger | None:
    """The ledger when every line is a well-formed record in order, parsed by pydantic's
    own JSON reader (no Python dict in between: the largest single cost of labelling a
    run set was the standard library's ``json`` and the validation of its dicts).
    ``None`` at the first line that is not, and the caller reads the file again the
    defining way, which raises or warns exactly as before. The two readers give equal
    records on every line both accept (tested on the frozen fixtures of every schema
    version); the header always takes the defining way (its version is checked on the
    raw object)."""
    lines = data.split(b"\n")
    if len(lines) < 2 or lines.pop() != b"":
        return None  # empty, or a last line without its newline (maybe cut off)
    first, *rest = lines
    try:
        obj = _header_object(first)
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    if not isinstance(obj, dict):
        return None
    _check_schema_version(path, obj)
    try:
        header = RECORD_ADAPTER.validate_python(obj)
    except ValidationError:
        return None
    if not isinstance(header, Header):
        return None
    events: list[VisibleEvent] = []
    end: RunEnd | None = None
    validate = RECORD_ADAPTER.validator.validate_json  # the adapter's own, without its wrapper
    for raw in rest:
        try:
            record = validate(raw)
        except (ValueError, RecursionError):  # ValidationError is a ValueError
            return None
        if end is not None or isinstance(record, Header):
            return None
        if isinstance(record, RunEnd):
            end = record
        elif record.step != len(events):
            return None
        else:
            events.append(record)
    digest = hashlib.sha256(data).hexdigest()
    return Ledger(path=path, header=header, events=tuple(events), end=end, sha256=digest)
