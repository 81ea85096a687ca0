"""Where a validation sample comes from: a review directory, or the scripted truth.

The correction (:mod:`sscbench.analysis.correction`) needs, per run id, a reference arrival
class and adoption. ``sscbench review agree`` accepts them from three reviewers and an
adjudicator; the offline demo's scripted agents record what they really did, which stands
in for that reference (and is always named as such).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from sscbench.analysis.correction import ValidationSample
from sscbench.reconstruct.labels import LabelView
from sscbench.review.agreement import Reference

if TYPE_CHECKING:
    from sscbench.reconstruct.validate import GroundTruth
    from sscbench.records.ledger import Ledger


def _pair(ref: Reference) -> tuple[str, str]:
    z = ref.z_s if ref.z_s in ("before", "after", "absent") else "out"
    a = ref.adopted if ref.adopted in ("yes", "no") else "undecidable"
    return str(z), str(a)


def from_references(
    source: str,
    description: str,
    pairs: Iterable[tuple[str, Reference]],
    random: bool = True,
) -> ValidationSample:
    """A sample from ``(run id, accepted reference)`` pairs (pending ones are skipped)."""
    refs = {run_id: _pair(ref) for run_id, ref in pairs if ref.status == "accepted"}
    return ValidationSample(source=source, description=description, references=refs, random=random)


def from_review(review_dir: Path) -> ValidationSample:
    """The accepted reference of a review directory (calibration packets excluded, as
    ``review agree`` excludes them), by run id."""
    from sscbench.review.export import read_key
    from sscbench.review.report import agreement_report

    key = read_key(review_dir)
    references = agreement_report(review_dir).references
    pairs = [(key[r.packet_id].run_id, r) for r in references if r.packet_id in key]
    return from_references(
        "review",
        f"adjudicated reference of {review_dir.name}/ ({len(pairs)} packets)",
        pairs,
        random=_export_order(review_dir) != "confidence",
    )


def _export_order(review_dir: Path) -> str:
    """How ``review export`` drew the sample (``strata`` when ``export.json`` predates the
    choice or cannot be read: the round-robin draw it always made)."""
    import json

    from sscbench.review.export import EXPORT_FILE

    try:
        data = json.loads((review_dir / EXPORT_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return "strata"
    order = data.get("order") if isinstance(data, dict) else None
    return order if isinstance(order, str) else "strata"


def from_truth(
    rundir: Path,
    labels: Sequence[LabelView],
    runs: Sequence[tuple[Path, Ledger]] | None = None,
    truths: Mapping[Path, GroundTruth | None] | None = None,
) -> ValidationSample:
    """The scripted agents' private ground truth of every triggered run under ``rundir``,
    standing in for the adjudicated reference (``runs`` and ``truths``: the parsed ledgers
    and their ground truths, when the caller already has them — each ledger is parsed once)."""
    from sscbench.oracles.dataset import ledgers
    from sscbench.oracles.validation import truth_references
    from sscbench.reconstruct.validate import ground_truths

    if runs is None:
        runs = ledgers([rundir])
    by_id = {label.run_id: label for label in labels}
    if truths is None:
        truths = ground_truths(runs)
    references = truth_references(runs, by_id, truths)
    return from_references(
        "truth",
        "scripted ground truth standing in for the adjudicated reference",
        ((r.packet_id, r) for r in references),
    )
