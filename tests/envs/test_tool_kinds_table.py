"""The frozen table of τ²'s tool kinds is τ²'s own (same tools, kinds and order)."""

from __future__ import annotations

import pytest

from sscbench.envs import environment
from sscbench.envs.domain import bare_toolkit, load_domain
from sscbench.envs.tau2_tool_kinds import TAU2_VERSION, TOOL_KINDS, USER_TOOL_KINDS


@pytest.mark.parametrize("domain", sorted(TOOL_KINDS))
def test_table_is_tau2s(domain: str) -> None:
    toolkit = bare_toolkit(domain)
    from_tau2 = {name: toolkit.tool_type(name).value for name in toolkit.tools}
    assert list(TOOL_KINDS[domain].items()) == list(from_tau2.items())


@pytest.mark.parametrize("domain", sorted(TOOL_KINDS))
def test_user_table_is_tau2s(domain: str) -> None:
    loaded = load_domain(domain)
    from_tau2: dict[str, str] = {}
    if loaded.user_toolkit_class is not None:
        toolkit = loaded.user_toolkit_class(loaded.user_base_db)
        from_tau2 = {name: toolkit.tool_type(name).value for name in toolkit.tools}
    assert list(USER_TOOL_KINDS[domain].items()) == list(from_tau2.items())
    assert sorted(USER_TOOL_KINDS) == sorted(TOOL_KINDS)


def test_table_only_for_its_tau2_version(monkeypatch: pytest.MonkeyPatch) -> None:
    assert environment._tau2_version() == TAU2_VERSION  # the pin the table was read from
    monkeypatch.setitem(TOOL_KINDS, "airline", {"book_reservation": "read"})
    environment.tool_kinds.cache_clear()
    try:
        assert environment.tool_kinds("airline") == {"book_reservation": "read"}
        environment.tool_kinds.cache_clear()
        monkeypatch.setattr(environment, "_tau2_version", lambda: "0.0")
        assert environment.tool_kinds("airline")["book_reservation"] == "write"  # τ²'s own
    finally:
        environment.tool_kinds.cache_clear()


def test_user_table_only_for_its_tau2_version(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(USER_TOOL_KINDS, "telecom", {"toggle_data": "read"})
    environment.user_tool_kinds.cache_clear()
    try:
        assert environment.user_tool_kinds("telecom") == {"toggle_data": "read"}
        environment.user_tool_kinds.cache_clear()
        monkeypatch.setattr(environment, "_tau2_version", lambda: "0.0")
        assert environment.user_tool_kinds("telecom")["toggle_data"] == "write"  # τ²'s own
    finally:
        environment.user_tool_kinds.cache_clear()
