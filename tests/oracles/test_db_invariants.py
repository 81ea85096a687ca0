"""The database-invariant oracle: mined rules, where they fire, and what they localise."""

from __future__ import annotations

from pathlib import Path

from sscbench.fault_contracts.contract import FaultContract
from sscbench.oracles.base import Trajectory, make_oracle
from sscbench.oracles.invariants import mine, records
from sscbench.reconstruct.label import label_run
from sscbench.records.events import AgentMessage, AgentToolCall
from sscbench.records.ledger import read_ledger
from sscbench.runs.episode import LEDGER_FILE

EXPECTED_RULE = {
    "return_date": "round_trip_dates_ordered",
    "pay_source": "payment_id_names_source",
    "item_option": "order_item_is_catalog_variant",
    "write_effect": "read_after_write",
}


def test_mined_invariants_hold_on_the_clean_databases() -> None:
    airline, retail = mine("airline"), mine("retail")
    assert {t.name for t in airline.invariants} == {
        "round_trip_dates_ordered",
        "payment_id_names_source",
    }
    assert {t.name for t in retail.invariants} == {
        "payment_id_names_source",
        "order_item_is_catalog_variant",
    }
    assert all(n > 0 for n in (*airline.support.values(), *retail.support.values()))
    # τ²'s modify_pending_order_items gives all modified items the last variant's options,
    # so that rule is not one the tools preserve: it is not applied after writes.
    assert "order_item_is_catalog_variant" not in retail.write_preserved
    assert airline.write_preserved == {t.name for t in airline.invariants}


def test_records_are_recognised_by_shape_wherever_they_are_nested() -> None:
    reservation = {
        "reservation_id": "R1",
        "flight_type": "round_trip",
        "flights": [{"date": "2024-05-20"}, {"date": "2024-05-18"}],
    }
    user = {
        "user_id": "u",
        "payment_methods": {"gift_card_1": {"id": "gift_card_1", "source": "certificate"}},
    }
    found = list(records({"results": [reservation, {"nested": user}]}))
    assert [k for k, _ in found] == ["reservation", "user"]
    airline = mine("airline")
    assert [n for n, _ in airline.violations("reservation", reservation)] == [
        "round_trip_dates_ordered"
    ]
    assert [n for n, _ in airline.violations("user", user)] == ["payment_id_names_source"]
    one_way = {**reservation, "flight_type": "one_way"}
    assert airline.violations("reservation", one_way) == []


def _trajectory(run_dir: Path, clean: bool = False) -> Trajectory:
    ledger = read_ledger(run_dir / LEDGER_FILE)
    contract = FaultContract.model_validate(ledger.header.fault) if ledger.header.fault else None
    return Trajectory(run_dir.name, run_dir, ledger, contract, clean)  # type: ignore[arg-type]


def test_it_fires_on_delivered_faults_not_on_untriggered_runs(
    oracle_runs: Path,
) -> None:
    oracle = make_oracle("db_invariants")
    seen = set()
    for ledger_path in sorted((oracle_runs / "faulted").rglob(LEDGER_FILE)):
        labels = label_run(ledger_path.parent)
        trajectory = _trajectory(ledger_path.parent)
        verdict = oracle.judge(trajectory)
        op = labels.operator
        assert op is not None
        # A suppressed write shows only when the agent reads the reservation back, which
        # is exactly when the refutation arrives; a read-value fault (target-value controls
        # included: v′ is the value the task asks for) shows whenever it is delivered.
        expected = labels.t_e.status == "found" if op == "write_effect" else bool(labels.triggered)
        assert verdict.adopted is expected, (ledger_path.parent.name, verdict.reason)
        if expected:
            seen.add(op)
            assert verdict.reason.startswith(EXPECTED_RULE[op])
            # Localised to the first agent event after the violating observation.
            assert verdict.t_u is not None
            event = trajectory.ledger.events[verdict.t_u]
            assert isinstance(event, AgentMessage | AgentToolCall)
            assert labels.t_f.step is not None and verdict.t_u > labels.t_f.step
    assert seen == set(EXPECTED_RULE)


def test_clean_runs_are_not_flagged(oracle_runs: Path) -> None:
    oracle = make_oracle("db_invariants")
    clean = sorted((oracle_runs / "clean").rglob(LEDGER_FILE))
    assert clean
    for ledger_path in clean:
        verdict = oracle.judge(_trajectory(ledger_path.parent, clean=True))
        assert verdict.adopted is False, (ledger_path.parent.name, verdict.reason)


def test_a_database_no_template_reads_is_never_loaded(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Telecom's database has no reservations, users or orders: mining it finds nothing,
    so neither mining nor the replay of its writes loads it (about 55 MiB per process)."""
    from sscbench.fault_contracts.history import History
    from sscbench.oracles import db_invariant, invariants

    loaded: list[str] = []
    opened: list[str] = []
    real_load, real_open = invariants.load_domain, db_invariant.EpisodeEnvironment.open
    monkeypatch.setattr(invariants, "load_domain", lambda d: loaded.append(d) or real_load(d))
    monkeypatch.setattr(
        db_invariant.EpisodeEnvironment,
        "open",
        staticmethod(lambda d, *a, **k: opened.append(d) or real_open(d, *a, **k)),
    )
    mine.cache_clear()
    try:
        telecom = mine("telecom")
        assert (telecom.invariants, telecom.write_preserved, telecom.catalog) == (
            (),
            frozenset(),
            {},
        )
        assert db_invariant.replay_findings(History([]), "telecom", telecom) == []
        assert loaded == [] and opened == []
        airline = mine("airline")  # the counting sees a domain that is mined
        assert db_invariant.replay_findings(History([]), "airline", airline) == []
        assert set(loaded) == {"airline"} and opened[-1:] == ["airline"]
    finally:
        mine.cache_clear()
