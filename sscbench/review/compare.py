"""The automatic labels against the adjudicated reference (the paper's "66 of 70 arrival
labels, 111 of 120 adoption labels").

Compared per quantity only where the reference accepted a value; the reconstructor's
undecidable answers are compared too (as the category ``undecidable``), because an
automatic "cannot tell" where humans could tell is a disagreement worth counting. As in the
paper, an event time is compared twice: its *status* (found, never/none, undecidable) on
every accepted run, and its *step* only where both sides located the event.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from sscbench.reconstruct.labels import EventTime, RunLabels
from sscbench.review.agreement import Reference
from sscbench.review.labels import Mark

COMPARED = (
    "Z_S",
    "A",
    "T_E status",
    "T_E step",
    "T_S status",
    "T_S step",
    "T_U status",
    "T_U step",
)


def _status(mark: Mark | EventTime) -> str:
    return "none" if mark.status == "never" else mark.status


def _auto_adoption(label: RunLabels) -> str:
    if label.adopted is None:
        return "undecidable"
    return "yes" if label.adopted else "no"


@dataclass
class Comparison:
    """Agree / compared counts per quantity, with every mismatch listed."""

    agree: dict[str, int] = field(default_factory=lambda: dict.fromkeys(COMPARED, 0))
    compared: dict[str, int] = field(default_factory=lambda: dict.fromkeys(COMPARED, 0))
    mismatches: list[tuple[str, str, str, str]] = field(default_factory=list)
    """(packet id, quantity, automatic, reference)."""

    def add(self, packet: str, quantity: str, auto: str, reference: str) -> None:
        """Count one comparison."""
        self.compared[quantity] += 1
        if auto == reference:
            self.agree[quantity] += 1
        else:
            self.mismatches.append((packet, quantity, auto, reference))


def compare_with_reference(
    references: Sequence[Reference], automatic: Mapping[str, RunLabels]
) -> Comparison:
    """Compare accepted references with the automatic labels of the same runs
    (``automatic`` maps packet id → the run's labels). Adoption is skipped for
    runs whose reference adoption is undecidable."""
    result = Comparison()
    for ref in references:
        auto = automatic.get(ref.packet_id)
        if auto is not None:
            add_reference(result, ref, auto)
    return result


def add_reference(result: Comparison, ref: Reference, auto: RunLabels) -> None:
    """Add one accepted reference's comparisons with its run's automatic labels to
    ``result`` (a reference not accepted adds nothing)."""
    if ref.status != "accepted":
        return
    assert ref.t_e is not None and ref.t_s is not None and ref.t_u is not None
    result.add(ref.packet_id, "Z_S", str(auto.z_s), str(ref.z_s))
    if ref.adopted is not None:
        result.add(ref.packet_id, "A", _auto_adoption(auto), ref.adopted)
    for name, ours, theirs in (
        ("T_E", auto.t_e, ref.t_e),
        ("T_S", auto.t_s, ref.t_s),
        ("T_U", auto.t_u, ref.t_u),
    ):
        result.add(ref.packet_id, f"{name} status", _status(ours), _status(theirs))
        if ours.status == "found" and theirs.status == "found":
            result.add(ref.packet_id, f"{name} step", str(ours.step), str(theirs.step))
