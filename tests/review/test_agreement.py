"""Reviewer labels, the unanimity-or-adjudication rule, κ per quantity, step agreement."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from sscbench.errors import ConfigError
from sscbench.review.agreement import kappa_table, reference_labels, resolve, step_agreement
from sscbench.review.labels import Mark, ReviewLabel, append_label, load_labels, read_labels

Event = tuple[str, int | None]


def lab(
    reviewer: str,
    pid: str = "p1",
    t_e: Event = ("found", 3),
    t_s: Event = ("found", 5),
    t_u: Event = ("found", 5),
    adopted: str = "yes",
) -> ReviewLabel:
    return ReviewLabel(
        packet_id=pid,
        reviewer=reviewer,
        t_e=Mark(status=t_e[0], step=t_e[1]),  # type: ignore[arg-type]
        t_s=Mark(status=t_s[0], step=t_s[1]),  # type: ignore[arg-type]
        t_u=Mark(status=t_u[0], step=t_u[1]),  # type: ignore[arg-type]
        adopted=adopted,  # type: ignore[arg-type]
    )


NOT_ADOPTED: dict[str, object] = {"t_u": ("never", None), "adopted": "no"}


def by_reviewer(*labels: ReviewLabel) -> dict[str, dict[str, ReviewLabel]]:
    out: dict[str, dict[str, ReviewLabel]] = {}
    for x in labels:
        out.setdefault(x.reviewer, {})[x.packet_id] = x
    return out


# --- labels -----------------------------------------------------------------------------


def test_z_s_is_derived_like_the_reconstructor() -> None:
    assert lab("A").z_s == "before"
    assert lab("A", t_e=("found", 7)).z_s == "after"
    assert lab("A", t_e=("never", None)).z_s == "absent"
    assert lab("A", t_s=("none", None), t_u=("never", None), adopted="no").z_s == "none"
    assert lab("A", t_e=("undecidable", None)).z_s == "undecidable"


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"t_e": ("found", None)}, "step is given exactly"),
        ({"t_e": ("never", 4)}, "step is given exactly"),
        ({"t_e": ("none", None)}, "T_E cannot be"),
        ({"t_s": ("never", None)}, "T_S cannot be"),
        ({"adopted": "no"}, "T_U found"),
        ({"t_u": ("undecidable", None), "adopted": "no"}, "A = no"),
        ({"t_s": ("none", None)}, "without a dependent use"),
        ({"t_s": ("found", 6)}, "cannot come after T_U"),
    ],
)
def test_inconsistent_labels_are_rejected(changes: dict[str, object], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        lab("A", **changes)  # type: ignore[arg-type]


def test_labels_are_append_only_and_the_last_line_counts(tmp_path: Path) -> None:
    append_label(tmp_path, lab("A"))
    append_label(tmp_path, lab("A", **NOT_ADOPTED))  # type: ignore[arg-type]
    append_label(tmp_path, lab("A", pid="p2"))
    lines = (tmp_path / "labels" / "A.jsonl").read_text().splitlines()
    assert len(lines) == 3 and all(json.loads(x)["ts"] for x in lines)
    latest = load_labels(tmp_path)["A"]
    assert latest["p1"].adopted == "no" and latest["p2"].adopted == "yes"


def test_a_label_in_another_reviewers_file_or_a_bad_name_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "labels" / "B.jsonl"
    path.parent.mkdir()
    path.write_text(lab("A").model_dump_json() + "\n")
    with pytest.raises(ConfigError, match="in B's file"):
        read_labels(path)
    with pytest.raises(ValidationError):
        lab("../etc")


# --- the rule -----------------------------------------------------------------------------


def test_unanimous_values_are_accepted() -> None:
    ref = resolve("p1", by_reviewer(lab("A"), lab("B"), lab("C")))
    assert ref.status == "accepted" and ref.adopted == "yes" and ref.z_s == "before"
    assert set(ref.sources.values()) == {"unanimous"}


def test_a_two_to_one_majority_is_never_accepted_on_its_own() -> None:
    labels = by_reviewer(lab("A"), lab("B"), lab("C", **NOT_ADOPTED))  # type: ignore[arg-type]
    ref = resolve("p1", labels)
    assert ref.status == "pending" and ref.adopted is None
    assert ref.sources["adopted"] == "pending" and ref.sources["t_e"] == "unanimous"
    assert "adjudicator D" in ref.note


def test_the_adjudicator_decides_disputed_quantities_even_against_the_majority() -> None:
    labels = by_reviewer(
        lab("A"),
        lab("B"),
        lab("C", **NOT_ADOPTED),  # type: ignore[arg-type]
        lab("D", t_e=("found", 1), **NOT_ADOPTED),  # type: ignore[arg-type]
    )
    ref = resolve("p1", labels)
    assert ref.status == "accepted"
    assert ref.adopted == "no" and ref.t_u == Mark(status="never")
    assert ref.sources == {
        "t_e": "unanimous",
        "t_s": "unanimous",
        "t_u": "adjudicated",
        "adopted": "adjudicated",
    }
    assert ref.t_e == Mark(status="found", step=3), "D never overrides a unanimous value"


def test_a_step_difference_is_a_disagreement() -> None:
    labels = by_reviewer(lab("A"), lab("B"), lab("C", t_e=("found", 4)))
    assert resolve("p1", labels).status == "pending"
    labels["D"] = {"p1": lab("D", t_e=("found", 4))}
    ref = resolve("p1", labels)
    assert ref.t_e == Mark(status="found", step=4) and ref.sources["t_e"] == "adjudicated"


def test_missing_reviewers_keep_a_packet_pending_even_with_an_adjudicator() -> None:
    ref = resolve("p1", by_reviewer(lab("A"), lab("B"), lab("D")))
    assert ref.status == "pending" and "awaiting reviewer(s) C" in ref.note


def test_accepted_values_that_contradict_each_other_are_flagged() -> None:
    # Unanimous "T_U never", but A disputed and D says yes: never silently repaired.
    labels = by_reviewer(
        lab("A", t_u=("never", None), adopted="undecidable"),
        lab("B", t_u=("never", None), adopted="undecidable"),
        lab("C", **NOT_ADOPTED),  # type: ignore[arg-type]
        lab("D", t_u=("undecidable", None), adopted="yes"),
    )
    ref = resolve("p1", labels)
    assert ref.status == "inconsistent" and "re-adjudicate" in ref.note


def test_every_packet_gets_a_reference_row() -> None:
    refs = reference_labels(["p2", "p1"], by_reviewer(lab("A"), lab("B"), lab("C")))
    assert [(r.packet_id, r.status) for r in refs] == [("p1", "accepted"), ("p2", "pending")]


# --- κ and steps on a hand-computed toy set ------------------------------------------------


def toy() -> dict[str, dict[str, ReviewLabel]]:
    """4 packets × 3 reviewers; on A: p1 yes yes yes, p2 no no no, p3 yes yes no, p4 no no yes
    (κ_A = 1/3, see test_kappa); T_U located by all only on p1, at the same step."""
    no: dict[str, object] = {"t_s": ("found", 5), **NOT_ADOPTED}
    return by_reviewer(
        lab("A", "p1"),
        lab("B", "p1"),
        lab("C", "p1"),
        lab("A", "p2", **no),  # type: ignore[arg-type]
        lab("B", "p2", **no),  # type: ignore[arg-type]
        lab("C", "p2", **no),  # type: ignore[arg-type]
        lab("A", "p3", t_u=("found", 6)),
        lab("B", "p3"),
        lab("C", "p3", **no),  # type: ignore[arg-type]
        lab("A", "p4", **no),  # type: ignore[arg-type]
        lab("B", "p4", **no),  # type: ignore[arg-type]
        lab("C", "p4", t_e=("found", 8)),
    )


def test_kappa_per_quantity_on_the_toy_set() -> None:
    rows = {r.quantity: r for r in kappa_table(toy())}
    assert rows["A"].result.subjects == 4
    assert rows["A"].result.kappa == pytest.approx(1 / 3)
    assert rows["T_U status"].result.kappa == pytest.approx(1 / 3)  # found ↔ yes, never ↔ no
    assert rows["T_S status"].result.kappa is None  # everyone said "found": κ undefined
    # Z_S: before everywhere except C on p4 (T_E 8 > T_S 5: after) → P̄ = (3·1 + 1/3)/4,
    # shares 11/12, 1/12 → P̄_e = 122/144; κ = (5/6 − 122/144) / (22/144) = −1/11.
    assert rows["Z_S"].result.kappa == pytest.approx(-1 / 11)
    assert rows["A"].unanimous == 2


def test_exact_step_agreement_only_where_all_three_located_the_event() -> None:
    rows = {r.event: r for r in step_agreement(toy())}
    assert (rows["T_U"].located_by_all, rows["T_U"].exact) == (1, 1)  # p1 only; p3 has a 'never'
    assert (rows["T_S"].located_by_all, rows["T_S"].exact) == (4, 4)
    assert (rows["T_E"].located_by_all, rows["T_E"].exact) == (4, 3)  # p4: 3, 3, 8
