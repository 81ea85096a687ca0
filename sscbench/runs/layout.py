"""Run ids and run directories: how a run is named on disk and how its place is kept.

A run directory holds one finished run or nothing: an unfinished one (a crash) or a failed
one is set aside under ``<name>.incomplete-N`` — never deleted, and skipped by every
reader — before the run starts again. Executing runs is the experiment engine's job
(:mod:`sscbench.experiments`); this module only names and guards the directories.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

from sscbench.errors import ConfigError, LedgerError
from sscbench.file_names import bounded
from sscbench.records.events import RunEnd
from sscbench.records.ledger import read_ledger
from sscbench.runs.episode import LEDGER_FILE

_SAFE = re.compile(r"[A-Za-z0-9_.+-]+")
_UNSAFE = re.compile(r"[^A-Za-z0-9_.+-]")


def _safe(text: str) -> str:
    return _UNSAFE.sub(".", text)


def task_token(task_id: str) -> str:
    """A τ² task id as it appears in a run id or a path: the id itself when every character
    is safe in a file name and a URL (letters, digits, ``_ . + -``: every airline and retail
    id, so their run ids are unchanged); otherwise each run of other characters becomes one
    ``.``, the ends are trimmed, and ``.h`` plus the first 8 hex digits of the SHA-256 of the
    exact id is appended, so two ids that differ only in the replaced characters still get
    different tokens. Telecom's ``[mobile_data_issue]airplane_mode_on|data_mode_off[PERSONA:None]``
    is ``mobile_data_issue.airplane_mode_on.data_mode_off.PERSONA.None.h`` and eight digits."""
    if _SAFE.fullmatch(task_id):
        return task_id
    readable = re.sub(r"[^A-Za-z0-9_.+-]+", ".", task_id).strip(".")
    digest = hashlib.sha256(task_id.encode("utf-8")).hexdigest()[:8]
    return f"{readable}.h{digest}" if readable else f"h{digest}"


def run_id_for(domain: str, task_id: str, agent: str, seed: int, case_id: str | None = None) -> str:
    """A readable, filesystem-safe run id: ``airline-7-scripted.careful-s0`` for a clean
    run (the task id through :func:`task_token`), ``return_date.airline.7.XEHM4B-scripted.hasty-s0``
    for a case."""
    head = f"{domain}-{task_token(task_id)}" if case_id is None else _safe(case_id)
    # A telecom case id can spell out a dozen faults: bounded, so the run's directory name
    # stays within the file system's limit (sscbench.file_names).
    return f"{bounded(head, case_id or task_id)}-{_safe(agent)}-s{seed}"


def check_writable(out: Path) -> None:
    """Refuse, before anything is written, an output path that cannot be created."""
    probe = out
    while not probe.exists():
        probe = probe.parent
    if not probe.is_dir():
        raise ConfigError(f"output path {out} is under {probe}, which is not a directory")
    if not os.access(probe, os.W_OK):
        raise ConfigError(f"output directory {probe} is not writable")


def finished_end(run_dir: Path) -> RunEnd | None:
    """The run_end of a finished run in ``run_dir``, else ``None``."""
    ledger = run_dir / LEDGER_FILE
    if not ledger.exists():
        return None
    try:
        return read_ledger(ledger).end
    except LedgerError:
        return None


def set_aside(run_dir: Path) -> None:
    """Rename an unfinished run directory to ``<name>.incomplete-N`` (never delete)."""
    n = 1
    while os.path.lexists(target := run_dir.with_name(f"{run_dir.name}.incomplete-{n}")):
        n += 1
    run_dir.rename(target)
