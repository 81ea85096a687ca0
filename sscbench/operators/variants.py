"""Interface variants through the case's operator: the one place the core applies them.

The harness knows the variant vocabulary (``fault_contracts.variants.VARIANTS``); the
operator declares which variants its cases take and what they add, so a third-party
operator gets paired checks without editing the core.
"""

from __future__ import annotations

from sscbench.errors import ConfigError
from sscbench.fault_contracts.contract import FaultContract
from sscbench.fault_contracts.variants import VARIANTS, apply_variant
from sscbench.operators.registry import get_operator, operator_names


def takes_variant(operator: str, variant: str) -> bool:
    """Whether ``operator``'s cases take interface ``variant``."""
    return variant in get_operator(operator).interface_variants


def variant_operators(variant: str) -> list[str]:
    """The registered operators whose cases take ``variant``."""
    return [name for name in operator_names() if takes_variant(name, variant)]


def vary(contract: FaultContract, variant: str) -> FaultContract:
    """``contract`` under interface ``variant`` (a one-line error if its operator does not
    take it)."""
    if variant not in VARIANTS:
        raise ConfigError(f"unknown variant {variant!r}; choose from {', '.join(VARIANTS)}")
    op = get_operator(contract.operator)
    if variant not in op.interface_variants:
        takers = ", ".join(variant_operators(variant)) or "no registered operator"
        raise ConfigError(f"variant {variant!r} applies to {takers}, not {contract.operator}")
    return apply_variant(contract, variant, op.variant_interventions(variant, contract))
