"""Every shipped quote sits verbatim at its cited line of the installed τ² source."""

from __future__ import annotations

import pytest

from sscbench.errors import ConfigError
from sscbench.tool_contracts.loader import (
    DOMAINS,
    check_quotes,
    load_contracts,
    parse_contract,
    quote_problem,
    source_lines,
)
from sscbench.tool_contracts.static_scan import TOOL_FILES

QUOTES = [
    (c.domain, c.tool, p)
    for d in DOMAINS for c in load_contracts(d) for p in c.quotes()
]  # fmt: skip


def test_every_write_tool_has_a_contract() -> None:
    import ast

    for domain in DOMAINS:
        tree = ast.parse("\n".join(source_lines(TOOL_FILES[domain])))
        writes = {
            fn.name for fn in ast.walk(tree) if isinstance(fn, ast.FunctionDef)
            and any("ToolType.WRITE" in ast.unparse(d) for d in fn.decorator_list)
        }  # fmt: skip
        assert writes == {c.tool for c in load_contracts(domain)}
    assert sum(len(load_contracts(d)) for d in DOMAINS) == 19


@pytest.mark.parametrize(("domain", "tool", "quote"), QUOTES,
                         ids=[f"{d}/{t}:{q.line}" for d, t, q in QUOTES])  # fmt: skip
def test_quote_is_verbatim_at_its_line(domain: str, tool: str, quote: object) -> None:
    assert quote_problem(quote) is None  # type: ignore[arg-type]


def _shipped_text(name: str) -> str:
    from importlib.resources import files

    root = files("sscbench.tool_contracts").joinpath("contracts")
    return root.joinpath(name.split("/")[0]).joinpath(name.split("/")[1]).read_text()


def test_a_moved_quote_is_refused_in_one_line() -> None:
    text = _shipped_text("airline/cancel_reservation.yaml").replace("line: 404", "line: 403")
    contract = parse_contract("x.yaml", text)
    with pytest.raises(ConfigError) as err:
        check_quotes(contract, "x.yaml")
    assert "\n" not in str(err.value) and "x.yaml" in str(err.value)
    assert "tools.py:403" in str(err.value)


@pytest.mark.parametrize(
    ("edit", "needle"),
    [
        (
            (
                "predicate: \"args['reservation_id'] in pre['reservations']\"",
                "predicate: \"__import__('os')\"",
            ),
            "free name '__import__'",
        ),
        (
            (
                "predicate: \"args['reservation_id'] in pre['reservations']\"",
                'predicate: "pre.__class__"',
            ),
            "attribute .__class__",
        ),
        (("inferred: true", "inferred: maybe"), "inferred"),
        (("schema_version: 1", "schema_version: [1"), "not valid YAML"),
    ],
)
def test_bad_contract_is_one_line(edit: tuple[str, str], needle: str) -> None:
    text = _shipped_text("airline/cancel_reservation.yaml").replace(*edit, 1)
    with pytest.raises(ConfigError) as err:
        parse_contract("bad.yaml", text)
    assert needle in str(err.value) and "\n" not in str(err.value)


def test_tiers_follow_surfaces() -> None:
    c = {x.id: x for x in load_contracts("airline")[1].clauses()}
    assert load_contracts("airline")[1].tool == "cancel_reservation"
    assert c["eff.seats_released"].tier == "maintainer"
    assert c["eff.status_cancelled"].tier == "agent_visible"
    assert c["frame.reservation_and_seats"].tier == "author"
