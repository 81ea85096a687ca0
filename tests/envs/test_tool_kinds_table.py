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


@pytest.mark.parametrize(
    ("reader", "table", "domain", "tool"),
    [
        ("tool_kinds", TOOL_KINDS, "airline", "book_reservation"),
        ("user_tool_kinds", USER_TOOL_KINDS, "telecom", "toggle_data"),
    ],
)
def test_table_only_for_its_tau2_version(
    monkeypatch: pytest.MonkeyPatch,
    reader: str,
    table: dict[str, dict[str, str]],
    domain: str,
    tool: str,
) -> None:
    assert environment._tau2_version() == TAU2_VERSION  # the pin the table was read from
    kinds = getattr(environment, reader)
    monkeypatch.setitem(table, domain, {tool: "read"})
    kinds.cache_clear()
    try:
        assert kinds(domain) == {tool: "read"}
        kinds.cache_clear()
        monkeypatch.setattr(environment, "_tau2_version", lambda: "0.0")
        assert kinds(domain)[tool] == "write"  # τ²'s own
    finally:
        kinds.cache_clear()
