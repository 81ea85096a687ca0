"""Agreement among reviewers A, B, C and the adjudicated reference (docs/measurement.md §7).

Three rules, each deliberate:

* **Pre-adjudication κ.** Fleiss' κ per categorical quantity (A, Z_S, T_U status, T_S
  status; T_E status as well) over the packets *all three* reviewers labelled, before any
  adjudication — agreement after adjudication would be agreement with the adjudicator.
* **Exact-step agreement** per event over the packets where all three *located* it
  (status ``found``): do their steps coincide? Status disagreement is already in κ.
* **Unanimity or adjudication.** Per quantity (T_E, T_S, T_U, A) a value is accepted only
  when A, B and C give the same value (for events: same status and step). Otherwise the
  adjudicator D's value is taken. A 2–1 majority is *never* accepted on its own: a quantity
  where D has not spoken stays pending. A combination of accepted values that breaks a
  relation of the definitions (docs/measurement.md §2; e.g. a unanimous ``T_U never`` with
  an adjudicated ``A = yes``) is flagged *inconsistent* for D to re-adjudicate, never silently
  repaired.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict

from sscbench.review.kappa import Kappa, fleiss_kappa
from sscbench.review.labels import Adoption, ArrivalClass, Mark, ReviewLabel, check_consistency

REVIEWERS = ("A", "B", "C")
ADJUDICATOR = "D"

KAPPA_QUANTITIES: dict[str, tuple[tuple[str, ...], Callable[[ReviewLabel], str]]] = {
    "A": (("yes", "no", "undecidable"), lambda x: x.adopted),
    "Z_S": (("before", "after", "absent", "none", "undecidable"), lambda x: x.z_s),
    "T_U status": (("found", "never", "undecidable"), lambda x: x.t_u.status),
    "T_S status": (("found", "none", "undecidable"), lambda x: x.t_s.status),
    "T_E status": (("found", "never", "undecidable"), lambda x: x.t_e.status),
}
"""Categorical quantity → (categories, how to read it off a label)."""

EVENTS = ("t_e", "t_s", "t_u")
ADOPTIONS: tuple[Adoption, ...] = ("yes", "no", "undecidable")
Source = Literal["unanimous", "adjudicated", "pending"]

Labels = Mapping[str, Mapping[str, ReviewLabel]]
"""reviewer → packet id → label."""


@dataclass(frozen=True)
class KappaRow:
    """Fleiss' κ of one quantity over the packets all reviewers labelled."""

    quantity: str
    result: Kappa
    unanimous: int


@dataclass(frozen=True)
class StepRow:
    """Exact-step agreement of one event where every reviewer located it."""

    event: str
    located_by_all: int
    exact: int


def fully_labelled(labels: Labels, reviewers: Sequence[str]) -> list[str]:
    """Packet ids every reviewer in ``reviewers`` has labelled, sorted."""
    sets = [set(labels.get(r, {})) for r in reviewers]
    return sorted(set.intersection(*sets)) if sets else []


def kappa_table(labels: Labels, reviewers: Sequence[str] = REVIEWERS) -> list[KappaRow]:
    """Pre-adjudication Fleiss' κ per categorical quantity."""
    packets = fully_labelled(labels, reviewers)
    rows = []
    for quantity, (categories, read) in KAPPA_QUANTITIES.items():
        ratings = [[read(labels[r][p]) for r in reviewers] for p in packets]
        unanimous = sum(len(set(row)) == 1 for row in ratings)
        rows.append(KappaRow(quantity, fleiss_kappa(ratings, categories), unanimous))
    return rows


def step_agreement(labels: Labels, reviewers: Sequence[str] = REVIEWERS) -> list[StepRow]:
    """Per event: packets where all located it, and how many of those share the step."""
    packets = fully_labelled(labels, reviewers)
    rows = []
    for event in EVENTS:
        marks = [[getattr(labels[r][p], event) for r in reviewers] for p in packets]
        located = [row for row in marks if all(m.status == "found" for m in row)]
        exact = sum(len({m.step for m in row}) == 1 for row in located)
        rows.append(StepRow(event.upper(), len(located), exact))
    return rows


class Reference(BaseModel):
    """The accepted label of one packet, with where each value came from."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    packet_id: str
    status: Literal["accepted", "pending", "inconsistent"]
    t_e: Mark | None
    t_s: Mark | None
    t_u: Mark | None
    adopted: Adoption | None
    z_s: ArrivalClass | None
    sources: dict[str, Source]
    note: str = ""


def _adoption(value: Mark | str | None) -> Adoption:
    for allowed in ADOPTIONS:
        if value == allowed:
            return allowed
    raise AssertionError(f"not an adoption value: {value!r}")


def _value(label: ReviewLabel, quantity: str) -> Mark | str:
    value: Mark | str = getattr(label, quantity)
    return value


def resolve(
    packet: str,
    labels: Labels,
    reviewers: Sequence[str] = REVIEWERS,
    adjudicator: str = ADJUDICATOR,
) -> Reference:
    """The reference label of ``packet`` under the unanimity-or-adjudication rule."""
    missing = [r for r in reviewers if packet not in labels.get(r, {})]
    judge = labels.get(adjudicator, {}).get(packet)
    values: dict[str, Mark | str | None] = {}
    sources: dict[str, Source] = {}
    for quantity in (*EVENTS, "adopted"):
        given = [_value(labels[r][packet], quantity) for r in reviewers if r not in missing]
        distinct = {v.model_dump_json() if isinstance(v, Mark) else v for v in given}
        if not missing and len(distinct) == 1:
            values[quantity], sources[quantity] = given[0], "unanimous"
        elif judge is not None and not missing:
            values[quantity], sources[quantity] = _value(judge, quantity), "adjudicated"
        else:
            values[quantity], sources[quantity] = None, "pending"
    note = f"awaiting reviewer(s) {', '.join(missing)}" if missing else ""
    if any(s == "pending" for s in sources.values()):
        if not note:
            note = f"reviewers disagree; awaiting adjudicator {adjudicator}"
        return Reference(
            packet_id=packet,
            status="pending",
            t_e=None,
            t_s=None,
            t_u=None,
            adopted=None,
            z_s=None,
            sources=sources,
            note=note,
        )
    t_e, t_s, t_u = (values[q] for q in EVENTS)
    assert isinstance(t_e, Mark) and isinstance(t_s, Mark) and isinstance(t_u, Mark)
    adopted = _adoption(values["adopted"])
    try:
        check_consistency(t_e, t_s, t_u, adopted)
    except ValueError as exc:
        return Reference(
            packet_id=packet,
            status="inconsistent",
            t_e=t_e,
            t_s=t_s,
            t_u=t_u,
            adopted=adopted,
            z_s=None,
            sources=sources,
            note=f"accepted values conflict ({exc}); {adjudicator} must re-adjudicate",
        )
    z_s = ReviewLabel(
        packet_id=packet, reviewer="reference", t_e=t_e, t_s=t_s, t_u=t_u, adopted=adopted
    ).z_s
    return Reference(
        packet_id=packet,
        status="accepted",
        t_e=t_e,
        t_s=t_s,
        t_u=t_u,
        adopted=adopted,
        z_s=z_s,
        sources=sources,
    )


def reference_labels(
    packets: Sequence[str],
    labels: Labels,
    reviewers: Sequence[str] = REVIEWERS,
    adjudicator: str = ADJUDICATOR,
) -> list[Reference]:
    """The reference of every packet (pending ones included, so nothing is dropped)."""
    return [resolve(p, labels, reviewers, adjudicator) for p in sorted(packets)]
