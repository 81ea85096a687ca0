"""The experiment's status file: one append-only JSONL record per scheduled run's outcome.

``DIR/schedule.jsonl`` starts each session with a ``session`` record and then receives a
``run`` record each time a scheduled run reaches its final state in that session —
*observed* (its ledger ends with ``run_end``) or *missing* with a cause. A record equal to
the latest one for its key (timestamp aside) is not written again, so a re-run of a
finished experiment appends nothing but its session line and every key has exactly one
record per distinct outcome. Readers take the latest record per key.

The ledgers are the ground truth; this file is their index. After a crash between a
ledger's last line and its status line, the next session finds the finished ledger and
writes the missing line. A line cut off by a crash is skipped by the reader, and the
writer first ends it so the next record starts on its own line.
"""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, BinaryIO, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from sscbench.errors import ConfigError
from sscbench.experiments.plan import Condition, RunKey
from sscbench.records.versioning import VersionedRecord

STATUS_FILE = "schedule.jsonl"
LOCK_FILE = ".lock"

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


def _run_lines(lines: Iterable[bytes]) -> Iterator[tuple[int, RunRecord]]:
    """Each valid run record of a status file with the offset its line starts at (session
    lines and lines cut by a crash do not validate and are skipped)."""
    offset = 0
    for line in lines:
        try:
            record: RunRecord | None = RunRecord.model_validate_json(line)
        except ValidationError:
            record = None
        if record is not None:
            yield offset, record
        offset += len(line)


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

    def __init__(self, path: Path) -> None:
        self._at: dict[RunKey, int] = {}
        self._fh: BinaryIO | None = None
        if not path.exists():
            return
        self._fh = path.open("rb")
        for offset, record in _run_lines(self._fh):  # a line at a time: never the whole file
            self._at[record.run_key] = offset

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


class StatusLog:
    """Appends records to the status file (single writer: the event-loop thread)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.latest = PriorRecords(path)
        """The latest record per key from earlier sessions, until this session settles it."""
        self._fh = path.open("ab")
        if self._fh.tell() > 0:
            with path.open("rb") as fh:
                fh.seek(-1, os.SEEK_END)
                if fh.read(1) != b"\n":
                    self._write(b"\n")  # end a line cut off by a crash

    def _write(self, data: bytes) -> None:
        self._fh.write(data)
        self._fh.flush()

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
        """Close the file."""
        self._fh.close()
        self.latest.close()


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
