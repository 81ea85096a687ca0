"""Per-run labels: every quantity with a decidability flag, a reason and evidence steps."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from sscbench.errors import ConfigError
from sscbench.runs.events import Termination
from sscbench.user_files import validation_problem

EventStatus = Literal["found", "never", "none", "undecidable"]


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


class RunLabels(BaseModel):
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
    z_s: Literal["before", "after", "absent", "none", "undecidable"] | None
    y_end: Literal["endorse", "retract", "undecidable"] | None
    uses: tuple[dict[str, object], ...] = ()


def read_labels(path: Path | str) -> list[RunLabels]:
    """The records of a ``labels.jsonl`` file (blank lines skipped); a bad line — not
    UTF-8, not JSON, not a run label — is one :class:`ConfigError` naming it."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"cannot read labels {path}: {exc.strerror or exc}") from None
    labels = []
    for number, raw in enumerate(data.split(b"\n"), 1):
        if not raw.strip():
            continue
        where = f"{path}:{number}"
        try:
            labels.append(RunLabels.model_validate_json(raw.decode("utf-8")))
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
    return labels
