"""Reviewer labels: one record per (reviewer, packet) submission, stored append-only.

Each reviewer has their own file ``labels/<reviewer>.jsonl``. Nothing is ever rewritten:
a correction is a new line, and the *last* line for a packet is the reviewer's label. That
keeps the full labelling history auditable (who changed what, when) and makes concurrent
saves from several browser tabs safe (an append is one write).

A label marks the four quantities of docs/measurement.md §2 with their decidability:
``T_E`` (found at a step / never / undecidable), ``T_S`` (found / none — no dependent use — /
undecidable),
``T_U`` (found / never / undecidable) and ``A`` (yes / no / undecidable). ``Z_S`` is not
marked; it is derived from ``T_E`` and ``T_S`` exactly as the reconstructor derives it.
"""

from __future__ import annotations

import re
import threading
import time
import warnings
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from sscbench.errors import ConfigError
from sscbench.reconstruct.label import arrival_class
from sscbench.reconstruct.labels import EventTime
from sscbench.records.ledger import TruncatedLineWarning
from sscbench.review.parse import InputError, first_error, loads

LABELS_DIR = "labels"
NAME = re.compile(r"^[A-Za-z0-9_-]{1,32}$")
"""Reviewer names and packet ids: also file names, so no path characters."""
MAX_STEP = 1_000_000
"""Far above any step limit; bounds what a label may claim."""

MarkStatus = Literal["found", "never", "none", "undecidable"]
Adoption = Literal["yes", "no", "undecidable"]
ArrivalClass = Literal["before", "after", "absent", "none", "undecidable"]

ALLOWED: dict[str, tuple[str, ...]] = {
    "t_e": ("found", "never", "undecidable"),
    "t_s": ("found", "none", "undecidable"),
    "t_u": ("found", "never", "undecidable"),
}
"""Which statuses each event accepts (``none`` = no dependent use, only for ``T_S``)."""


class Mark(BaseModel):
    """One event time as a reviewer marked it: a status and, iff found, its step."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    status: MarkStatus
    step: int | None = Field(default=None, ge=0, le=MAX_STEP, strict=True)

    @model_validator(mode="after")
    def _step_iff_found(self) -> Mark:
        if (self.status == "found") != (self.step is not None):
            raise ValueError("a step is given exactly when the event was found")
        return self

    def event_time(self) -> EventTime:
        """As the reconstructor's :class:`EventTime` (to share ``arrival_class``)."""
        return EventTime(status=self.status, step=self.step, reason="reviewer")


def check_consistency(t_e: Mark, t_s: Mark, t_u: Mark, adopted: Adoption) -> None:
    """The relations (docs/measurement.md §2) every label must satisfy; raises ``ValueError``
    naming the first one broken (so the page can tell the reviewer what to fix)."""
    for name, mark in (("T_E", t_e), ("T_S", t_s), ("T_U", t_u)):
        if mark.status not in ALLOWED[name.lower()]:
            raise ValueError(f"{name} cannot be {mark.status!r}")
    if t_u.status == "found" and adopted != "yes":
        raise ValueError("an erroneous reliance (T_U found) means A = yes")
    if adopted == "yes" and t_u.status == "never":
        raise ValueError("A = yes needs an erroneous reliance (T_U found or undecidable)")
    if adopted == "no" and t_u.status != "never":
        raise ValueError("A = no means there is no erroneous reliance (T_U never)")
    if t_s.status == "none" and (adopted != "no" or t_u.status != "never"):
        raise ValueError("without a dependent use there is no reliance: A = no, T_U never")
    if t_s.step is not None and t_u.step is not None and t_u.step < t_s.step:
        raise ValueError("T_S (first dependent use) cannot come after T_U")


class ReviewLabel(BaseModel):
    """One reviewer's label of one packet (one line of ``labels/<reviewer>.jsonl``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["review_label"] = "review_label"
    packet_id: str = Field(pattern=NAME.pattern)
    reviewer: str = Field(pattern=NAME.pattern)
    t_e: Mark
    t_s: Mark
    t_u: Mark
    adopted: Adoption
    note: str = Field(default="", max_length=4000)
    ts: float | None = None

    @model_validator(mode="after")
    def _consistent(self) -> ReviewLabel:
        check_consistency(self.t_e, self.t_s, self.t_u, self.adopted)
        return self

    @property
    def z_s(self) -> ArrivalClass:
        """The arrival class implied by the marked ``T_E`` and ``T_S``."""
        z: ArrivalClass = arrival_class(self.t_e.event_time(), self.t_s.event_time())
        return z


_APPEND_LOCK = threading.Lock()


def labels_file(root: Path, reviewer: str) -> Path:
    """``root/labels/<reviewer>.jsonl`` (the name is validated: no path tricks)."""
    if not NAME.fullmatch(reviewer):
        raise ConfigError(f"reviewer name {reviewer!r} must be 1–32 letters, digits, _ or -")
    return root / LABELS_DIR / f"{reviewer}.jsonl"


def append_label(root: Path, label: ReviewLabel) -> ReviewLabel:
    """Append ``label`` (stamped with the time) to its reviewer's file and return it."""
    stamped = label if label.ts is not None else label.model_copy(update={"ts": time.time()})
    path = labels_file(root, stamped.reviewer)
    path.parent.mkdir(parents=True, exist_ok=True)
    line = stamped.model_dump_json() + "\n"
    with _APPEND_LOCK, path.open("a", encoding="utf-8") as fh:
        fh.write(line)
        fh.flush()
    return stamped


def label_from(obj: Any) -> ReviewLabel:
    """A :class:`ReviewLabel` from parsed JSON, or :class:`InputError` (one line)."""
    if not isinstance(obj, dict):
        raise InputError(f"expected a JSON object, found {type(obj).__name__}")
    try:
        return ReviewLabel.model_validate(obj)
    except ValidationError as exc:
        raise InputError(first_error(exc)) from None


def read_labels(path: Path) -> dict[str, ReviewLabel]:
    """The latest label per packet in one reviewer file (later lines replace earlier).

    A last line without its newline that does not parse is what a crash mid-append
    leaves: it is dropped with a warning, as for ledgers. Anything else unreadable is a
    :class:`ConfigError` naming the file and line.
    """
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read labels ({exc.strerror})") from None
    lines = data.split(b"\n")
    complete = data.endswith(b"\n")
    if complete:
        lines.pop()
    latest: dict[str, ReviewLabel] = {}
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            label = label_from(loads(raw))
        except InputError as exc:
            if number == len(lines) and not complete:
                warnings.warn(
                    f"{path}:{number}: dropped a truncated last line ({len(raw)} bytes)",
                    TruncatedLineWarning,
                    stacklevel=2,
                )
                break
            raise ConfigError(f"{path}:{number}: invalid review label ({exc})") from None
        if label.reviewer != path.stem:
            raise ConfigError(
                f"{path}:{number}: label by reviewer {label.reviewer!r} in {path.stem}'s file"
            )
        latest[label.packet_id] = label
    return latest


def load_labels(root: Path) -> dict[str, dict[str, ReviewLabel]]:
    """Every reviewer's latest labels: reviewer → packet id → label."""
    folder = root / LABELS_DIR
    if not folder.is_dir():
        return {}
    return {path.stem: read_labels(path) for path in sorted(folder.glob("*.jsonl"))}
