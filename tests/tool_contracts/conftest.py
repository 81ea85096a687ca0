"""Shared, cached checker runs (each domain is checked once per test session)."""

from __future__ import annotations

from functools import cache

from sscbench.tool_contracts.adapter import make_adapter
from sscbench.tool_contracts.checker import check_tool
from sscbench.tool_contracts.loader import load_contracts
from sscbench.tool_contracts.model import ClauseResult, Contract, ToolResult


@cache
def tool_result(domain: str, tool: str) -> ToolResult:
    """The shipped tool checked against its shipped contract."""
    return check_tool(make_adapter(domain), contract(domain, tool))


def contract(domain: str, tool: str) -> Contract:
    """The shipped contract of one tool."""
    return next(c for c in load_contracts(domain) if c.tool == tool)


def clause(domain: str, tool: str, clause_id: str) -> ClauseResult:
    """One clause verdict of the shipped tool."""
    return next(c for c in tool_result(domain, tool).clauses if c.clause == clause_id)
