"""Per-run labels: every quantity with a decidability flag, a reason and evidence steps."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Literal, Protocol

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    model_validator,
)

from sscbench.errors import ConfigError
from sscbench.records.events import Termination
from sscbench.records.versioning import VersionedRecord
from sscbench.user_files import validation_problem

EventStatus = Literal["found", "never", "none", "undecidable"]
ArrivalLabel = Literal["before", "after", "absent", "none", "undecidable"]
StanceLabel = Literal["endorse", "retract", "undecidable"]


def _absent(value: Any) -> bool:
    """The optional labels are left out of a line when absent (``None``), so lines without
    them keep their bytes: a field-level exclusion, where a wrap serializer turned every
    label into a Python dict and back on its way to JSON."""
    return value is None


class EventTime(BaseModel):
    """An event time (``T_F``, ``T_E``, ``T_S``, ``T_U``).

    ``found`` with a ``step``; ``never`` (∞: no refutation / no erroneous reliance);
    ``none`` (no dependent use at all — different from undecidable); ``undecidable``.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    status: EventStatus
    step: int | None = None
    reason: str
    evidence: tuple[int, ...] = ()

    @property
    def decidable(self) -> bool:
        """Everything but ``undecidable``."""
        return self.status != "undecidable"


class LabelView(Protocol):
    """What the analysis and the report's tables read of a run's labels: a
    :class:`RunLabels`, or the much smaller :class:`LabelSummary` of one."""

    @property
    def run_id(self) -> str: ...
    @property
    def case_id(self) -> str | None: ...
    @property
    def operator(self) -> str | None: ...
    @property
    def control(self) -> bool: ...
    @property
    def agent(self) -> str: ...
    @property
    def configuration(self) -> str: ...
    @property
    def seed(self) -> int: ...
    @property
    def finished(self) -> bool: ...
    @property
    def termination(self) -> Termination | None: ...
    @property
    def success(self) -> bool | None: ...
    @property
    def triggered(self) -> bool | None: ...
    @property
    def t_f(self) -> EventTime: ...
    @property
    def t_e(self) -> EventTime: ...
    @property
    def t_s(self) -> EventTime: ...
    @property
    def t_u(self) -> EventTime: ...
    @property
    def adopted(self) -> bool | None: ...
    @property
    def z_s(self) -> ArrivalLabel | None: ...
    @property
    def y_end(self) -> StanceLabel | None: ...
    @property
    def contract_label(self) -> dict[str, Any] | None: ...
    @property
    def refutation_channel(self) -> RefutationChannel | None: ...


RefutationChannel = Literal["tool", "user"]
"""How a refutation reached the agent: an agent tool observation, or the user's words."""


def channel_of(label: LabelView) -> RefutationChannel | None:
    """The refutation's channel: ``user`` when the label says so, ``tool`` for any other
    refutation that arrived (``T_E`` found), ``None`` when none arrived."""
    if label.refutation_channel is not None:
        return label.refutation_channel
    return "tool" if label.t_e.status == "found" else None


@dataclass(frozen=True, slots=True)
class LabelSummary:
    """A run's labels as the analysis counts them (:class:`LabelView`): no reasons, no
    evidence, no uses; event times and names shared across runs (:class:`LabelIndex`
    makes them). About 250 bytes a run where the full label takes 4 KB, so a report of
    100,000 runs holds 25 MB of them."""

    run_id: str
    case_id: str | None
    operator: str | None
    control: bool
    agent: str
    configuration: str
    seed: int
    finished: bool
    termination: Termination | None
    success: bool | None
    triggered: bool | None
    t_f: EventTime
    t_e: EventTime
    t_s: EventTime
    t_u: EventTime
    adopted: bool | None
    z_s: ArrivalLabel | None
    y_end: StanceLabel | None
    contract_label: dict[str, Any] | None
    refutation_channel: RefutationChannel | None = None


class RunLabels(VersionedRecord):
    """The reconstructed events of one run (one line of ``labels.jsonl``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["run_labels"] = "run_labels"
    run_id: str
    case_id: str | None
    operator: str | None
    control: bool
    agent: str
    configuration: str = ""
    """The configuration's display id (from the ledger header; the agent name if absent)."""
    seed: int
    finished: bool
    termination: Termination | None = None
    success: bool | None

    triggered: bool | None
    triggered_reason: str
    t_f: EventTime
    t_e: EventTime
    t_s: EventTime
    t_u: EventTime
    adopted: bool | None
    adopted_reason: str
    z_s: ArrivalLabel | None
    y_end: StanceLabel | None
    uses: tuple[dict[str, object], ...] = ()
    SCHEMA: ClassVar[int] = 4
    """2: ``contract_label``; 3: ``adjudication``; 4: ``refutation_channel``. Only lines
    that carry one are written as that version (the highest they carry), so every other
    line stays the version-1 line it always was, and a reader that predates the field
    refuses such a line with the "newer" message instead of misreading it."""

    contract_label: dict[str, Any] | None = Field(default=None, exclude_if=_absent)
    """Observation-contract runs: the primary label by severity (validity / integrity /
    meta, :mod:`sscbench.reconstruct.contract_labels`); absent for other operators, so
    their lines keep their bytes."""

    adjudication: dict[str, Any] | None = Field(default=None, exclude_if=_absent)
    """``reconstruct --classifier rules+llm``: which path decided the run's uses
    (``rules``, or ``llm-adjudicated`` with the model, the steps it re-read and what it
    changed) and the rules' confidence and threshold that chose it
    (:mod:`sscbench.reconstruct.adjudicate`); absent otherwise, so other lines keep
    their bytes."""

    refutation_channel: RefutationChannel | None = Field(default=None, exclude_if=_absent)
    """How the refutation at ``T_E`` reached the agent, written only when it came through
    the user (``user``: a customer message relaying a device reading, telecom); absent
    when it was an agent tool observation or nothing arrived, so those lines keep their
    bytes. :func:`channel_of` reads either form."""

    @model_validator(mode="before")
    @classmethod
    def _labelled_lines_are_versioned(cls, data: Any) -> Any:
        if isinstance(data, dict):
            version = int(data.get("schema_version", 1))
            if data.get("contract_label") is not None:
                version = max(2, version)
            if data.get("adjudication") is not None:
                version = max(3, version)
            if data.get("refutation_channel") is not None:
                version = max(4, version)
            if version > 1:
                return {**data, "schema_version": version}
        return data


def _share_fields_set(model: BaseModel, shared: dict[frozenset[str], set[str]]) -> None:
    """Point a frozen model's set of given field names at one set per distinct value.

    Pydantic keeps that set per instance: 2.3 KB of a run label's 5.3 KB, so at 100,000
    runs it alone costs 300 MB. The labels are frozen, so nothing adds to the set in place
    (``model_copy`` copies it before updating), and sharing it is invisible."""
    names = model.__pydantic_fields_set__
    object.__setattr__(model, "__pydantic_fields_set__", shared.setdefault(frozenset(names), names))


def read_labels(path: Path | str) -> list[RunLabels]:
    """The records of a ``labels.jsonl`` file (blank lines skipped); a bad line — not
    UTF-8, not JSON, not a run label — is one :class:`ConfigError` naming it. The file is
    read a line at a time, so only the labels themselves are held."""
    path = Path(path)
    labels = []
    shared: dict[frozenset[str], set[str]] = {}
    try:
        with path.open("rb") as fh:
            for number, raw in enumerate(fh, 1):
                if not raw.strip():
                    continue
                label = _read_label(raw, f"{path}:{number}")
                _share_fields_set(label, shared)
                for name in ("t_f", "t_e", "t_s", "t_u"):
                    _share_fields_set(getattr(label, name), shared)
                labels.append(label)
    except OSError as exc:
        raise ConfigError(f"cannot read labels {path}: {exc.strerror or exc}") from None
    return labels


def _read_label(raw: bytes, where: str) -> RunLabels:
    try:
        return RunLabels.model_validate_json(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ConfigError(
            f"{where}: not valid UTF-8 (byte {exc.start}); labels.jsonl is written by "
            "`sscbench reconstruct`, run it again"
        ) from None
    except ValidationError as exc:
        raise ConfigError(
            f"{where}: not a run label ({validation_problem(exc)}); labels.jsonl is "
            "written by `sscbench reconstruct`, run it again"
        ) from None


class LabelIndex:
    """A ``labels.jsonl`` file read once, line by line, with only where each run's line
    starts kept (by run id; a later line for the same run wins, as a dict of the labels
    would): a command that needs a few labels at a time reads each one again when it asks
    for it, so its memory does not grow with the labels. Every line is checked on the
    first read, with :func:`read_labels`' one-line errors."""

    def __init__(self, path: Path | str, summaries: list[LabelSummary] | None = None) -> None:
        """``summaries``: a list to append every label's :func:`summary` to, in file order
        (what the analysis counts), in the same single read."""
        self.path = Path(path)
        self._offsets: dict[str, int] = {}
        slim = _Summaries() if summaries is not None else None
        try:
            with self.path.open("rb") as fh:
                offset = 0
                for number, raw in enumerate(fh, 1):
                    if raw.strip():
                        label = _read_label(raw, f"{self.path}:{number}")
                        self._offsets[label.run_id] = offset
                        if slim is not None and summaries is not None:
                            summaries.append(slim.of(label))
                    offset += len(raw)
        except OSError as exc:
            raise ConfigError(f"cannot read labels {self.path}: {exc.strerror or exc}") from None

    def __len__(self) -> int:
        return len(self._offsets)

    def run_ids(self) -> list[str]:
        """Every labelled run id, in file order of first appearance."""
        return list(self._offsets)

    def get(self, run_id: str) -> RunLabels | None:
        """The label of ``run_id`` (read again from the file), or ``None``."""
        offset = self._offsets.get(run_id)
        if offset is None:
            return None
        try:
            with self.path.open("rb") as fh:
                fh.seek(offset)
                raw = fh.readline()
        except OSError as exc:
            raise ConfigError(f"cannot read labels {self.path}: {exc.strerror or exc}") from None
        return _read_label(raw, str(self.path))


class _Summaries:
    """Makes :class:`LabelSummary` records, sharing every value that repeats across runs."""

    def __init__(self) -> None:
        self._times: dict[tuple[str, int | None], EventTime] = {}
        self._contracts: dict[str, dict[str, Any]] = {}

    def _time(self, t: EventTime) -> EventTime:
        key = (t.status, t.step)
        if key not in self._times:
            self._times[key] = EventTime(status=t.status, step=t.step, reason="")
        return self._times[key]

    def of(self, label: RunLabels) -> LabelSummary:
        """``label`` as the analysis counts it; the contract label cut to its primary
        label (all the analysis reads of it)."""
        contract = None
        if label.contract_label is not None:
            primary = label.contract_label.get("primary")
            contract = self._contracts.setdefault(str(primary), {"primary": primary})

        def name(value: str | None) -> str | None:
            return None if value is None else sys.intern(value)

        return LabelSummary(
            run_id=label.run_id,
            case_id=name(label.case_id),
            operator=name(label.operator),
            control=label.control,
            agent=sys.intern(label.agent),
            configuration=sys.intern(label.configuration),
            seed=label.seed,
            finished=label.finished,
            termination=label.termination,
            success=label.success,
            triggered=label.triggered,
            t_f=self._time(label.t_f),
            t_e=self._time(label.t_e),
            t_s=self._time(label.t_s),
            t_u=self._time(label.t_u),
            adopted=label.adopted,
            z_s=label.z_s,
            y_end=label.y_end,
            contract_label=contract,
            refutation_channel=label.refutation_channel,
        )
