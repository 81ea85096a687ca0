"""Fault operators: the SDK, the registry and the four reference operators."""

from sscbench.operators.base import Operator, OperatorParams, ProposalContext, Rejection
from sscbench.operators.registry import OPERATORS, get_operator, operator_names, register_operator

__all__ = [
    "OPERATORS",
    "Operator",
    "OperatorParams",
    "ProposalContext",
    "Rejection",
    "get_operator",
    "operator_names",
    "register_operator",
]
