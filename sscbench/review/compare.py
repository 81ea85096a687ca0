"""The automatic labels against the adjudicated reference (the paper's "66 of 70 arrival
labels, 111 of 120 adoption labels").

Compared per quantity only where the reference accepted a value; the reconstructor's
undecidable answers are compared too (as the category ``undecidable``), because an
automatic "cannot tell" where humans could tell is a disagreement worth counting. Event
positions compare status and step together.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from sscbench.reconstruct.labels import EventTime, RunLabels
from sscbench.review.agreement import Reference
from sscbench.review.labels import Mark

COMPARED = ("Z_S", "A", "T_E", "T_S", "T_U")


def _event(mark: Mark | EventTime) -> str:
    return f"{mark.status}@{mark.step}" if mark.status == "found" else mark.status


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
    target-value controls, where it is undefined."""
    result = Comparison()
    for ref in references:
        auto = automatic.get(ref.packet_id)
        if ref.status != "accepted" or auto is None:
            continue
        assert ref.t_e is not None and ref.t_s is not None and ref.t_u is not None
        result.add(ref.packet_id, "Z_S", str(auto.z_s), str(ref.z_s))
        if not auto.control and ref.adopted is not None:
            result.add(ref.packet_id, "A", _auto_adoption(auto), ref.adopted)
        result.add(ref.packet_id, "T_E", _event(auto.t_e), _event(ref.t_e))
        result.add(ref.packet_id, "T_S", _event(auto.t_s), _event(ref.t_s))
        result.add(ref.packet_id, "T_U", _event(auto.t_u), _event(ref.t_u))
    return result
