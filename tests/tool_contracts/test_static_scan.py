"""The static scan lists the known sites as candidates."""

from __future__ import annotations

from sscbench.tool_contracts.static_scan import scan


def _sites(domain: str) -> set[tuple[str, str, int]]:
    return {(c.tool, c.check, c.line) for c in scan(domain)}


def test_known_candidates() -> None:
    telecom = _sites("telecom")
    assert ("refuel_data", "commented_out_guard", 667) in telecom
    assert ("suspend_line", "parameter_only_logged", 328) in telecom
    airline = {(t, c) for t, c, _ in _sites("airline")}
    assert ("cancel_reservation", "verb_pair_asymmetry") in airline
    assert ("send_certificate", "literal_success_return") in airline
    detail = next(c.detail for c in scan("airline") if c.tool == "cancel_reservation")
    assert "available_seats" in detail


def test_retail_has_no_candidates_and_scan_is_stable() -> None:
    assert scan("retail") == []
    assert scan("telecom") == scan("telecom")
