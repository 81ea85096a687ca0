"""The experiment's status file: one append-only JSONL record per scheduled run's outcome.

``DIR/schedule.jsonl`` starts each session with a ``session`` record and then receives a
``run`` record each time a scheduled run reaches its final state in that session —
*observed* (its ledger ends with ``run_end``) or *missing* with a cause. A record equal to
the latest one for its key (timestamp aside) is not written again, so a re-run of a
finished experiment appends nothing but its session line and every key has exactly one
record per distinct outcome. Readers take the latest record per key.

The ledgers are the ground truth; this file is their index. After a crash between a
ledger's last line and its status line, the next session finds the finished ledger and
writes the missing line. A last line cut off by a crash (a kill, a full disk) is skipped by
the readers; the next session sets its bytes aside in ``schedule.jsonl.cut-N`` (nothing is
deleted) and cuts the file back to its last whole line before appending, so the cut bytes
never become a damaged line in the middle. A damaged line anywhere else means the file was
edited or corrupted: the session refuses to resume, naming the line, rather than carry on
and leave ``report`` unable to read the file.
"""

from __future__ import annotations

import fcntl
import json
import os
import stat
import time
import warnings
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, BinaryIO, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from sscbench.errors import ConfigError, OutputError
from sscbench.experiments.plan import Condition, RunKey
from sscbench.records.ledger import TruncatedLineWarning
from sscbench.records.versioning import VersionedRecord
from sscbench.user_files import validation_problem

STATUS_FILE = "schedule.jsonl"
LOCK_FILE = ".lock"
CUT_SUFFIX = ".cut-"
"""``schedule.jsonl.cut-N``: the bytes of a last line a crash cut off, set aside."""

State = Literal["observed", "missing"]
Cause = Literal[
    "gated",
    "clean_missing",
    "budget",
    "provider_error",
    "config_error",
    "harness_error",
    "source_missing",
    "no_delivery_point",
    "replay_divergence",
]
"""Why a scheduled run is missing: the configuration did not solve the clean task
(``gated``), the gating clean run is itself missing (``clean_missing``), the budget was
spent before it started (``budget``), the provider gave no usable reply after retries
(``provider_error``), the run could not start as configured, e.g. a key missing at the
first request (``config_error``: fix, then re-run), or the harness failed
(``harness_error``). Read from the run's structured ``run_end.failure``. Runs under an
arrival arm (docs/arrival-interventions.md) may also miss because their unmanipulated twin
is missing (``source_missing``), has no point to deliver at (``no_delivery_point``), or
because the replayed prefix differed from the twin's recording (``replay_divergence``)."""

FAILED_CAUSES: frozenset[str] = frozenset({"provider_error", "config_error", "harness_error"})
"""Causes that a re-run retries (the others are decisions of the protocol)."""


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class RunRecord(VersionedRecord, _Frozen):
    """The final state of one scheduled run in one session."""

    kind: Literal["run"] = "run"
    ts: float
    key: dict[str, Any]
    condition: Condition
    configuration: str
    domain: str
    task_id: str
    operator: str | None = None
    run_id: str
    state: State
    cause: Cause | None = None
    detail: str | None = None
    termination: str | None = None
    success: bool | None = None
    steps: int | None = None
    cost_usd: float | None = None
    provider_calls: int = 0
    gate: dict[str, Any] | None = None
    ledger_sha256: str | None = None
    """SHA-256 of an observed run's ledger when it was recorded: a later session trusts the
    run only while the file still has it."""

    @property
    def run_key(self) -> RunKey:
        """The typed key."""
        return RunKey.from_dict(self.key)

    @property
    def failed(self) -> bool:
        """Missing because something broke (retried by the next session)."""
        return self.cause in FAILED_CAUSES

    def same_outcome(self, other: RunRecord) -> bool:
        """Equal apart from the timestamp."""
        return self.model_dump(exclude={"ts"}) == other.model_dump(exclude={"ts"})


class SessionRecord(VersionedRecord, _Frozen):
    """The start of one invocation."""

    kind: Literal["session"] = "session"
    ts: float
    experiment: str
    name: str
    scheduled: int
    pid: int


def _run_lines(lines: Iterable[bytes], path: Path | None = None) -> Iterator[tuple[int, RunRecord]]:
    """Each valid run record of a status file with the offset its line starts at.

    Session lines, lines of kinds this version does not know and a last line cut by a crash
    (no newline) are skipped. With ``path`` (a session about to resume) any other line that
    is not a run record — not JSON, or a ``run`` line that does not validate, which
    ``report`` could not read either — is a :class:`ConfigError` naming ``path:line``."""
    offset = 0
    for number, line in enumerate(lines, start=1):
        try:
            record: RunRecord | None = RunRecord.model_validate_json(line)
        except ValidationError as exc:
            record = None
            if path is not None and line.endswith(b"\n"):
                _check_other(path, number, line, exc)
        if record is not None:
            yield offset, record
        offset += len(line)


def _check_other(path: Path, number: int, line: bytes, exc: ValidationError) -> None:
    """Refuse a whole line that is neither a run record nor another record kind."""
    how = (
        "the line was edited or corrupted, not cut by a crash; repair or remove it, keeping "
        "a copy, and run again"
    )
    try:
        obj = json.loads(line)
    except (ValueError, RecursionError):  # not JSON (or not UTF-8, or absurdly deep)
        raise ConfigError(f"{path}:{number}: not a status record: {how}") from None
    if not isinstance(obj, dict):
        raise ConfigError(f"{path}:{number}: not a status record: {how}")
    if obj.get("kind") == "run":
        raise ConfigError(
            f"{path}:{number}: a damaged run record ({validation_problem(exc)}): {how}"
        )


def read_status(path: Path) -> dict[RunKey, RunRecord]:
    """The latest record per key (unreadable lines, e.g. one cut by a crash, are skipped)."""
    if not path.exists():
        return {}
    with path.open("rb") as fh:
        return {record.run_key: record for _, record in _run_lines(fh)}


class PriorRecords:
    """The latest valid record per key of a status file, remembered by where its line
    starts and read back when asked for: a resumed 100,000-run session keeps a key and an
    offset per run (the file is append-only, so an offset stays valid), not a record."""

    def __init__(self, path: Path, *, strict: bool = False) -> None:
        self._at: dict[RunKey, int] = {}
        self._fh: BinaryIO | None = None
        if not path.exists():
            return
        self._fh = path.open("rb")
        checked = path if strict else None  # strict: a damaged middle line is an error
        try:
            for offset, record in _run_lines(self._fh, checked):  # a line at a time
                self._at[record.run_key] = offset
        except BaseException:
            self._fh.close()
            raise

    def __len__(self) -> int:
        return len(self._at)

    def _read(self, offset: int | None) -> RunRecord | None:
        if offset is None or self._fh is None:
            return None
        self._fh.seek(offset)
        return RunRecord.model_validate_json(self._fh.readline())

    def get(self, key: RunKey) -> RunRecord | None:
        """The record of ``key``, if an earlier session settled it."""
        return self._read(self._at.get(key))

    def pop(self, key: RunKey) -> RunRecord | None:
        """:meth:`get`, forgetting the key."""
        return self._read(self._at.pop(key, None))

    def close(self) -> None:
        """Close the file."""
        if self._fh is not None:
            self._fh.close()


def _set_aside_cut_tail(path: Path) -> None:
    """Before appending: if the file's last line has no newline (a crash or a full disk
    cut it), either end it — when it is a whole record that only lacks its newline — or
    copy its bytes to ``<file>.cut-N`` and cut the file back to its last whole line, so
    the next record starts on a line of its own and no damaged line is left in the middle.
    The copy is complete before the file is cut: a crash in between loses nothing."""
    if not path.exists():
        return
    if not stat.S_ISREG(path.stat().st_mode):
        raise ConfigError(f"{path} is not a regular file; it should be the experiment's status")
    try:
        _repair_tail(path)
    except OSError as exc:  # a full disk: the file is cut back only once its tail is copied
        raise OutputError(exc.filename or path, exc) from None


def _repair_tail(path: Path) -> None:
    with path.open("r+b") as fh:
        size = fh.seek(0, os.SEEK_END)
        if size == 0:
            return
        fh.seek(-1, os.SEEK_END)
        if fh.read(1) == b"\n":
            return
        chunk, start = b"", size
        while b"\n" not in chunk and start > 0:  # find the last newline, from the end
            start = max(0, start - 65536)
            fh.seek(start)
            chunk = fh.read(size - start)
        keep = start + chunk.rfind(b"\n") + 1 if b"\n" in chunk else 0
        fh.seek(keep)
        tail = fh.read()
        try:
            whole = isinstance(json.loads(tail), dict)
        except (ValueError, RecursionError):
            whole = False
        if whole:  # the record is all there; only its newline is missing
            fh.seek(0, os.SEEK_END)
            fh.write(b"\n")
            return
        n = 1
        while os.path.lexists(side := path.with_name(f"{path.name}{CUT_SUFFIX}{n}")):
            n += 1
        with side.open("xb") as out:
            out.write(tail)
            out.flush()
            os.fsync(out.fileno())
        fh.truncate(keep)
    warnings.warn(
        TruncatedLineWarning(
            f"{path}: the last line was cut off ({len(tail)} bytes, by a crash or a full "
            f"disk); its bytes are kept in {side.name} and the file continues from the last "
            "whole line"
        ),
        stacklevel=4,
    )


class StatusLog:
    """Appends records to the status file (single writer: the event-loop thread).

    Opening it for a session first sets aside a last line a crash cut off
    (:func:`_set_aside_cut_tail`) and then reads the earlier records strictly: a damaged
    line in the middle is a :class:`ConfigError` naming it, before anything runs."""

    def __init__(self, path: Path) -> None:
        self.path = path
        _set_aside_cut_tail(path)
        self.latest = PriorRecords(path, strict=True)
        """The latest record per key from earlier sessions, until this session settles it."""
        self._failed = False
        try:
            self._fh = path.open("ab")
        except OSError as exc:
            self.latest.close()
            raise OutputError(path, exc) from None

    def _write(self, data: bytes) -> None:
        try:
            self._fh.write(data)
            self._fh.flush()
        except OSError as exc:  # a full disk: the session stops, the cut line is set aside
            self._failed = True  # by the next one
            raise OutputError(self.path, exc) from None

    def session(self, experiment: str, name: str, scheduled: int) -> None:
        """Write the session line."""
        record = SessionRecord(
            ts=time.time(), experiment=experiment, name=name, scheduled=scheduled, pid=os.getpid()
        )
        self._write(record.model_dump_json().encode() + b"\n")

    def append(self, record: RunRecord) -> bool:
        """Write ``record`` unless it repeats the latest outcome of its key; True if written.

        A key's outcome is final for the session, so its earlier record is dropped from
        :attr:`latest` rather than replaced: the log holds no record of this session's (the
        engine keeps those others wait for), and its memory shrinks as a resumed session
        advances instead of growing with the schedule."""
        previous = self.latest.pop(record.run_key)
        if previous is not None and previous.same_outcome(record):
            return False
        self._write(record.model_dump_json().encode() + b"\n")
        return True

    def close(self) -> None:
        """Close the file (after a failed write, without raising its error again)."""
        self.latest.close()
        try:
            self._fh.close()
        except OSError as exc:
            if not self._failed:
                raise OutputError(self.path, exc) from None


@contextmanager
def exclusive(out: Path) -> Iterator[None]:
    """Hold ``DIR/.lock`` for the session: two sessions in one directory would run the
    same keys twice. The kernel drops the lock when the process dies, even by SIGKILL."""
    out.mkdir(parents=True, exist_ok=True)
    with (out / LOCK_FILE).open("a") as fh:
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise ConfigError(f"another sscbench run is using {out} (lock {LOCK_FILE})") from None
        try:
            yield
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)
