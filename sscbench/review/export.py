"""``review export``: sample runs, write masked packets, keep the key apart.

Layout of a review directory::

    packets/<packet_id>.json   masked packets — the only run content the page serves
    labels/<reviewer>.jsonl    append-only reviewer labels (written by the page)
    key.jsonl                  packet → run (coordinator only; never served)
    export.json                how the sample was drawn (coordinator only)
    access.json                digests of the reviewers' tokens (mode 0600)
    reviewer-urls.txt          each reviewer's URL with their token (mode 0600)

The key is what makes the adjudicated reference comparable with the automatic labels
afterwards; keeping it out of ``packets/`` is what keeps the review blind. Calibration
packets (practice trajectories reviewers label first, as in the paper) are drawn from runs
outside the sample and flagged in packet and key, so agreement can leave them out.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from sscbench.errors import ConfigError, LedgerError
from sscbench.reconstruct.label import label_dir
from sscbench.reconstruct.labels import RunLabels
from sscbench.records.ledger import read_ledger
from sscbench.review.access import DEFAULT_URL, URLS_FILE, check_names, issue_tokens
from sscbench.review.agreement import ADJUDICATOR, REVIEWERS
from sscbench.review.packet import build_packet, packet_id
from sscbench.review.parse import first_error
from sscbench.review.plan import ReviewPlan, plan_summary, planned_sample
from sscbench.review.sample import (
    calibration_sample,
    eligible,
    least_confident_sample,
    review_population,
    stratified_sample,
    stratum_of,
)
from sscbench.runs.episode import LEDGER_FILE
from sscbench.user_files import find_files

PACKETS_DIR = "packets"
KEY_FILE = "key.jsonl"
EXPORT_FILE = "export.json"
LABELS_FILE = "labels.jsonl"


class KeyEntry(BaseModel):
    """One packet's link back to its run (coordinator only)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    packet_id: str
    run_id: str
    run_dir: str
    operator: str
    configuration: str
    auto_z_s: str
    calibration: bool = False


@dataclass(frozen=True)
class ExportResult:
    """What an export wrote (``entries`` is the sample; calibration packets apart)."""

    out: Path
    entries: tuple[KeyEntry, ...]
    strata: dict[str, int]
    eligible: int
    calibration: tuple[KeyEntry, ...] = ()
    urls: dict[str, str] | None = None
    population: dict[str, Any] = field(default_factory=dict)
    """What the sample was drawn from (:meth:`ReviewPopulation.describe`)."""


def read_run_labels(path: Path) -> list[RunLabels]:
    """A ``labels.jsonl`` written by ``sscbench reconstruct`` (a bad line is one
    :class:`ConfigError` naming it, as everywhere labels are read)."""
    from sscbench.reconstruct.labels import read_labels

    return read_labels(path)


def run_dirs_by_id(root: Path) -> dict[str, Path]:
    """run id → run directory, for every finished or unfinished ledger under ``root``."""
    found: dict[str, Path] = {}
    for ledger_path in find_files(root, LEDGER_FILE):
        with ledger_path.open("rb") as fh:
            first = fh.readline()
        try:
            header = json.loads(first or b"{}")
        except (ValueError, RecursionError):
            raise LedgerError(ledger_path, 1, "the header is not a JSON object") from None
        run_id = header.get("run_id") if isinstance(header, dict) else None
        if isinstance(run_id, str):
            found[run_id] = ledger_path.parent
    return found


def automatic_labels(root: Path) -> tuple[list[RunLabels], Path | None]:
    """The run directory's ``labels.jsonl`` if it has one, else a fresh reconstruction."""
    from sscbench.reconstruct.run_set import check_labels_current

    path = root / LABELS_FILE
    if path.is_file():
        labels = read_run_labels(path)
        check_labels_current(path, root, labels)
        return labels, path
    return label_dir(root), None


def export_review(
    root: Path,
    out: Path,
    n: int,
    seed: int,
    *,
    include_controls: bool = False,
    calibration: int = 5,
    reviewers: Sequence[str] = REVIEWERS,
    adjudicator: str = ADJUDICATOR,
    serve_url: str = DEFAULT_URL,
    plan: ReviewPlan | None = None,
    order: str = "strata",
) -> ExportResult:
    """Sample ``n`` runs of ``root`` (and ``calibration`` practice runs outside the
    sample), write a review directory at ``out`` and issue one token per reviewer. With a
    ``plan`` (``review plan``), its quotas are drawn instead of the round-robin sample;
    ``order="confidence"`` takes the ``n`` least confident runs instead (not a random sample:
    ``export.json`` says so, and the correction refuses it)."""
    if not root.is_dir():
        raise ConfigError(f"{root} is not a directory of runs")
    if n < 1:
        raise ConfigError("--sample must be at least 1")
    if calibration < 0:
        raise ConfigError("--calibration must be 0 (none) or more")
    check_names(reviewers, adjudicator, serve_url)
    packets = out / PACKETS_DIR
    if packets.is_dir() and any(packets.iterdir()):
        raise ConfigError(f"{out} already holds packets; export into a new directory")
    if out.is_dir() and any(out.iterdir()):
        raise ConfigError(f"{out} is not empty; a review is exported into a new or empty directory")
    all_labels, labels_path = automatic_labels(root)
    population = review_population(all_labels, root)
    labels = list(population.runs)
    dirs = run_dirs_by_id(root)
    if order == "confidence":
        chosen = least_confident_sample(labels, n, seed, include_controls=include_controls)
    elif plan is None:
        chosen = stratified_sample(labels, n, seed, include_controls=include_controls)
    else:
        reviewable_runs = [x for x in labels if eligible(x, include_controls=include_controls)]
        chosen = planned_sample(reviewable_runs, plan, seed)
    practice = calibration_sample(
        labels, chosen, calibration, seed, include_controls=include_controls
    )
    reviewable = sum(eligible(x, include_controls=include_controls) for x in labels)
    packets.mkdir(parents=True, exist_ok=True)
    entries = [
        _write_packet(packets, dirs, root, label, seed, calibration=is_practice)
        for is_practice, group in ((True, practice), (False, chosen))
        for label in group
    ]
    with (out / KEY_FILE).open("w", encoding="utf-8") as fh:
        for entry in entries:
            fh.write(entry.model_dump_json() + "\n")
    strata = Counter(" / ".join(stratum_of(x)) for x in chosen)
    urls = issue_tokens(out, reviewers, adjudicator, serve_url)
    (out / EXPORT_FILE).write_text(
        json.dumps(
            {
                "rundir": str(root.resolve()),
                "labels_file": str(labels_path.resolve()) if labels_path else None,
                "sample": n,
                "plan": None if plan is None else plan_summary(plan),
                "order": order,
                "seed": seed,
                "include_controls": include_controls,
                "population": population.describe(),
                "packets": len(chosen),
                "calibration": calibration,
                "calibration_packets": len(practice),
                "eligible": reviewable,
                "strata": dict(sorted(strata.items())),
                "reviewers": list(reviewers),
                "adjudicator": adjudicator,
                "tokens": URLS_FILE,
            },
            indent=1,
        )
        + "\n",
        encoding="utf-8",
    )
    return ExportResult(
        out=out,
        entries=tuple(e for e in entries if not e.calibration),
        strata=dict(strata),
        eligible=reviewable,
        calibration=tuple(e for e in entries if e.calibration),
        urls=urls,
        population=population.describe(),
    )


def _write_packet(
    packets: Path,
    dirs: dict[str, Path],
    root: Path,
    label: RunLabels,
    seed: int,
    *,
    calibration: bool,
) -> KeyEntry:
    """Write one masked packet and return its key entry."""
    run_dir = dirs.get(label.run_id)
    if run_dir is None:
        raise ConfigError(f"labels name run {label.run_id!r} but no ledger under {root} has it")
    pid = packet_id(label.run_id, seed)
    packet = build_packet(read_ledger(run_dir / LEDGER_FILE), pid, calibration=calibration)
    (packets / f"{pid}.json").write_text(packet.model_dump_json(indent=1) + "\n", encoding="utf-8")
    operator, configuration, z_s = stratum_of(label)
    return KeyEntry(
        packet_id=pid,
        run_id=label.run_id,
        run_dir=str(run_dir.resolve()),
        operator=operator,
        configuration=configuration,
        auto_z_s=z_s,
        calibration=calibration,
    )


def read_key(out: Path) -> dict[str, KeyEntry]:
    """packet id → key entry of a review directory."""
    path = out / KEY_FILE
    if not path.is_file():
        raise ConfigError(f"{out} has no {KEY_FILE}; is it a directory from `review export`?")
    entries: dict[str, KeyEntry] = {}
    for number, line in enumerate(path.read_bytes().splitlines(), start=1):
        if not line.strip():
            continue
        try:
            entry = KeyEntry.model_validate_json(line)
        except ValidationError as exc:
            raise ConfigError(f"{path}:{number}: not a key entry ({first_error(exc)})") from None
        entries[entry.packet_id] = entry
    return entries
