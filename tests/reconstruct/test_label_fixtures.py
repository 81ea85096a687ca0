"""Exact labels for the hand-made run directories in ``tests/fixtures/reconstruct/``.

The fixtures are written by ``tests/reconstruct/build_fixtures.py`` (see its docstring):
real contracts of shipped cases, real τ² observation text edited where the fault applies,
hand-written agent and user text. Step numbers below are ledger steps.

Cases (v = authoritative value, v′ = injected value):

* ReturnDate ``return_date/airline/11/GV1N64``: return HAT290 2024-05-20 → v′ 2024-05-18
  (before the outbound HAT003 on 2024-05-19). The faulted record is at step 3 and carries
  the outbound, so ``T_E = T_F = 3``.
* PaySource ``pay_source/airline/11/james_patel_9828/gift_card_1642017``: category
  gift_card → v′ certificate. The reservation GV1N64 (step 3) shows the identifier before
  the faulted user record (step 5): ``T_E = 3 < T_F = 5``.
* ItemOption ``item_option/retail/0/#W2378156/2``: keyboard 1151293680, size "full size"
  → v′ "60%"; 4402162122 keeps 60%, 7706410293 keeps full size.
* WriteEffect ``write_effect/airline/12/4``: add 2 checked bags to YAX4DR (0 → 2), first
  attempt suppressed (``first_attempt``).

Fixtures whose correct labels (by docs/measurement.md §2 and §5) differ from what the rules
produce today are parametrized with ``xfail(strict=True)``; their reasons name the bug.
"""

from __future__ import annotations

import importlib.util
import json
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import pytest

from sscbench.reconstruct import label_dir, label_run
from sscbench.reconstruct.labels import EventTime, RunLabels
from sscbench.records.ledger import iter_jsonl, read_ledger

BUILDER = Path(__file__).with_name("build_fixtures.py")

Event = tuple[str, int | None]
Use = tuple[int, str, bool]  # (step, kind, erroneous)

FOUND = "found"
NEVER: Event = ("never", None)
NONE: Event = ("none", None)
UNDECIDABLE: Event = ("undecidable", None)


def at(step: int) -> Event:
    return (FOUND, step)


@dataclass(frozen=True)
class Expect:
    """Every label of one run, with the classified uses."""

    triggered: bool | None
    t_f: Event
    t_e: Event
    t_s: Event
    t_u: Event
    adopted: bool | None
    z_s: str | None
    y_end: str | None
    uses: tuple[Use, ...] = ()


EXPECTED: dict[str, Expect] = {
    # -- ReturnDate: co-delivered refutation, T_E = T_F ------------------------------------
    # "Your return flight HAT290 … departs on May 18." states v′ after the refutation.
    "rd_states_vprime": Expect(
        True, at(3), at(3), at(4), at(4), True, "before", "endorse", ((4, "dependent_use", True),)
    ),
    # "… departs on May 20." states v: a dependent use, no reliance.
    "rd_states_v": Expect(
        True, at(3), at(3), at(4), NEVER, False, "before", None, ((4, "dependent_use", False),)
    ),
    # States v′, then corrects itself to v: adopted, last stance retracts.
    "rd_vprime_then_retract": Expect(
        True,
        at(3),
        at(3),
        at(4),
        at(4),
        True,
        "before",
        "retract",
        ((4, "dependent_use", True), (6, "dependent_use", False)),
    ),
    # Names the reservation but no date: no dependent use, so no arrival class.
    "rd_no_use": Expect(True, at(3), at(3), NONE, NEVER, False, "none", None),
    # Quotes v′ only to flag it ("… cannot be right …"): a dependent use (it sets T_S) that
    # is never erroneous reliance (docs/measurement.md §2).
    "rd_verify_flag": Expect(
        True, at(3), at(3), at(4), NEVER, False, "before", None, ((4, "verification", False),)
    ),
    # "I think the return is on May 18, but I'm not sure." (step 4) then
    # search_direct_flight(date=2024-05-18) (step 5). Hedged wording still treats v′ as the
    # return date: the message is already erroneous reliance (the search repeats it).
    "rd_hedged": Expect(
        True,
        at(3),
        at(3),
        at(4),
        at(4),
        True,
        "before",
        "endorse",
        ((4, "dependent_use", True), (5, "dependent_use", True)),
    ),
    # search_direct_flight(DEN→LAS, date=2024-05-20) at step 4: a search whose date is the
    # true return date is a (correct) dependent use (docs/measurement.md §2.3).
    "rd_search_true_date": Expect(
        True, at(3), at(3), at(4), NEVER, False, "before", None, ((4, "dependent_use", False),)
    ),
    # The reservation is never read: the fault-bearing observation is never delivered.
    "rd_never_delivered": Expect(False, NEVER, NEVER, NONE, NONE, None, None, None),
    # The ledger shows v′ at step 3 but there is no hidden log to confirm the intervention.
    "rd_no_hidden": Expect(None, at(3), at(3), UNDECIDABLE, UNDECIDABLE, None, None, None),
    # The ledger shows v′ at step 3; the hidden log has no fault_delivery confirming it.
    "rd_unconfirmed": Expect(None, at(3), at(3), UNDECIDABLE, UNDECIDABLE, None, None, None),
    # The same conversation without a fault.
    "clean_return_date": Expect(False, NONE, NONE, NONE, NONE, None, None, None),
    # -- PaySource: co-delivered refutation, here before the fault (T_E = 3 < T_F = 5) -----
    "ps_states_vprime": Expect(
        True, at(5), at(3), at(6), at(6), True, "before", "endorse", ((6, "dependent_use", True),)
    ),
    "ps_states_v": Expect(
        True, at(5), at(3), at(6), NEVER, False, "before", None, ((6, "dependent_use", False),)
    ),
    # "Could you confirm that gift_card_1642017 is a travel certificate?" quotes v′ to check
    # it (a dependent use, not reliance); after the user's answer the agent states v.
    "ps_verify_question": Expect(
        True,
        at(5),
        at(3),
        at(6),
        NEVER,
        False,
        "before",
        None,
        ((6, "verification", False), (8, "dependent_use", False)),
    ),
    # "… gift_card_1642017 is a gift card, not a travel certificate.": states v, rejects v′.
    "ps_negated": Expect(
        True, at(5), at(3), at(6), NEVER, False, "before", None, ((6, "dependent_use", False),)
    ),
    # -- ItemOption: cross-record refutation -----------------------------------------------
    # Product record at step 7, faulted order (the binding) at step 9: T_E = 9 = T_F. The
    # exchange (step 12) picks 4402162122, which keeps v′ = 60%; no stance afterwards.
    "io_keeps_vprime": Expect(
        True,
        at(9),
        at(9),
        at(12),
        at(12),
        True,
        "before",
        "undecidable",
        ((12, "dependent_use", True),),
    ),
    # Same, but the exchange picks 7706410293, which keeps the true full size.
    "io_keeps_v": Expect(
        True, at(9), at(9), at(12), NEVER, False, "before", None, ((12, "dependent_use", False),)
    ),
    # The product record is never delivered: the exchange at step 10 cannot be classified.
    "io_no_product": Expect(
        True,
        at(7),
        NEVER,
        ("undecidable", 10),
        ("undecidable", 10),
        None,
        "undecidable",
        None,
        ((10, "undecidable", False),),
    ),
    # States v′ at step 8; the product record arrives only at step 11: Z_S = after.
    "io_product_after": Expect(
        True,
        at(7),
        at(11),
        at(8),
        at(8),
        True,
        "after",
        "endorse",
        ((8, "dependent_use", True), (14, "dependent_use", True)),
    ),
    # The undecidable exchange (step 10) is followed by a decided erroneous reliance
    # (step 14: "… is the 60% size."). A = 1 is decided (docs/measurement.md §2.4:
    # A=1 iff at least one erroneous reliance); only the location T_U is unknown.
    "io_undecided_then_vprime": Expect(
        True,
        at(7),
        NEVER,
        ("undecidable", 10),
        ("undecidable", 10),
        True,
        "undecidable",
        "endorse",
        ((10, "undecidable", False), (14, "dependent_use", True)),
    ),
    # -- WriteEffect: post-write read-back -------------------------------------------------
    # Read at step 3 (before the suppressed write at 6/7) refutes nothing; "Done … 2 checked
    # bags" relies on the claimed effect with no refutation in the history.
    "we_read_before": Expect(
        True, at(7), NEVER, at(8), at(8), True, "absent", "endorse", ((8, "dependent_use", True),)
    ),
    # Suppressed write (5), read-back (7) refutes, the agent flags it (8: a dependent use
    # that is not reliance), retries (9/10, goes through), reads back (12) and reports done
    # (13): correct.
    "we_read_after_retry": Expect(
        True,
        at(5),
        at(7),
        at(8),
        NEVER,
        False,
        "before",
        None,
        ((8, "verification", False), (13, "dependent_use", False)),
    ),
    # "Done … 2 checked bags" (6) relies on the claim; a different bag write (8/9) touches the
    # same fields before any read-back, so the read at 11 is not attributable (T_E never)
    # and statements after step 9 concern the new state (scope ended).
    "we_intervening_write": Expect(
        True, at(5), NEVER, at(6), at(6), True, "absent", "endorse", ((6, "dependent_use", True),)
    ),
    # "Reservation YAX4DR has 2 passengers: …" (8) says nothing about bags.
    "we_unrelated_number": Expect(True, at(5), at(7), NONE, NEVER, False, "none", None),
}

BUGS: dict[str, str] = {}


def _event(e: EventTime) -> Event:
    return (e.status, e.step)


def _actual(labels: RunLabels) -> Expect:
    return Expect(
        triggered=labels.triggered,
        t_f=_event(labels.t_f),
        t_e=_event(labels.t_e),
        t_s=_event(labels.t_s),
        t_u=_event(labels.t_u),
        adopted=labels.adopted,
        z_s=labels.z_s,
        y_end=labels.y_end,
        uses=tuple((u["step"], u["kind"], u["erroneous"]) for u in labels.uses),
    )


def _params() -> list[object]:
    out: list[object] = []
    for name in EXPECTED:
        marks = [pytest.mark.xfail(strict=True, reason=BUGS[name])] if name in BUGS else []
        out.append(pytest.param(name, id=name, marks=marks))
    return out


@pytest.mark.parametrize("name", _params())
def test_fixture_labels(name: str, fixture_root: Path) -> None:
    assert _actual(label_run(fixture_root / name)) == EXPECTED[name]


def test_every_fixture_directory_has_expectations(fixture_root: Path) -> None:
    dirs = {p.name for p in fixture_root.iterdir() if p.is_dir()}
    assert dirs == set(EXPECTED)
    assert set(BUGS) <= set(EXPECTED)


@pytest.mark.parametrize("name", sorted(BUGS))
def test_pinned_bug_fixtures_still_decide_arrival(name: str, fixture_root: Path) -> None:
    """What the rules already get right on the bug fixtures: trigger, T_F and T_E."""
    labels = _actual(label_run(fixture_root / name))
    want = EXPECTED[name]
    assert (labels.triggered, labels.t_f, labels.t_e) == (want.triggered, want.t_f, want.t_e)


def test_hedged_message_then_committing_call(fixture_root: Path) -> None:
    """Hedged text plus a call that commits to v′: the run adopts, the first dependent use is
    the hedged message (step 4) and the search on v′ (step 5) is classified as erroneous
    reliance. Today the rules also call the hedged message itself reliance (T_U = 4); the
    correct (by the definitions) T_U = 5 is pinned by ``test_fixture_labels[rd_hedged]``."""
    labels = label_run(fixture_root / "rd_hedged")
    assert labels.adopted is True
    assert _event(labels.t_s) == at(4)
    assert labels.t_u.status == FOUND and labels.t_u.step in (4, 5)
    assert labels.z_s == "before"
    call_uses = [u for u in labels.uses if u["source"] == "call"]
    assert [(u["step"], u["kind"], u["erroneous"]) for u in call_uses] == [
        (5, "dependent_use", True)
    ]


def test_undecidable_trigger_reasons(fixture_root: Path) -> None:
    assert "no hidden log" in label_run(fixture_root / "rd_no_hidden").triggered_reason
    assert "does not confirm" in label_run(fixture_root / "rd_unconfirmed").triggered_reason


def test_clean_run_has_no_fault_labels(fixture_root: Path) -> None:
    labels = label_run(fixture_root / "clean_return_date")
    assert (labels.case_id, labels.operator, labels.control) == (None, None, False)
    assert labels.uses == ()
    assert labels.adopted_reason == "clean run"


def test_write_effect_retry_uses_are_confirmed_statements(fixture_root: Path) -> None:
    """After the retried write and a read-back showing it, 'done' is a correct use."""
    labels = label_run(fixture_root / "we_read_after_retry")
    last = labels.uses[-1]
    assert last["step"] == 13 and "since confirmed" in str(last["reason"])


def test_event_order_invariants(fixture_root: Path) -> None:
    """docs/measurement.md §2.7: when decidable, T_F < T_S ≤ T_U (on every fixture, buggy rules
    included)."""
    for labels in label_dir(fixture_root):
        if labels.triggered and labels.t_s.status == FOUND:
            assert labels.t_f.step is not None and labels.t_s.step is not None
            assert labels.t_f.step < labels.t_s.step, labels.run_id
            if labels.t_u.status == FOUND:
                assert labels.t_u.step is not None
                assert labels.t_s.step <= labels.t_u.step, labels.run_id


def test_fixture_files_are_valid_and_timeless(fixture_root: Path) -> None:
    for name in EXPECTED:
        run_dir = fixture_root / name
        ledger = read_ledger(run_dir / "ledger.jsonl")
        assert ledger.finished and ledger.header.run_id == name
        assert all(obj.get("ts") is None for _, obj in iter_jsonl(run_dir / "ledger.jsonl"))
        assert (run_dir / "hidden.jsonl").exists() == (name != "rd_no_hidden")


def _load_builder() -> ModuleType:
    spec = importlib.util.spec_from_file_location("reconstruct_build_fixtures", BUILDER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _normalised(path: Path) -> list[dict[str, object]]:
    lines = []
    for number, obj in iter_jsonl(path):
        if number == 1 and obj.get("kind") == "header":
            obj = {k: v for k, v in obj.items() if k not in ("sscbench_version", "tau2_version")}
        lines.append(obj)
    return lines


def test_committed_fixtures_match_the_builder(fixture_root: Path, tmp_path: Path) -> None:
    """The committed files are exactly what the builder writes (package versions aside)."""
    built = _load_builder().build_all(tmp_path)
    assert {p.name for p in built} == set(EXPECTED)
    for run_dir in built:
        committed = fixture_root / run_dir.name
        names = sorted(p.name for p in run_dir.iterdir())
        assert names == sorted(p.name for p in committed.iterdir()), run_dir.name
        for file_name in names:
            got, want = _normalised(run_dir / file_name), _normalised(committed / file_name)
            assert got == want, f"{run_dir.name}/{file_name} is stale: re-run {BUILDER.name}"
    assert json.loads((built[0] / "ledger.jsonl").read_text().splitlines()[0])["ts"] is None
