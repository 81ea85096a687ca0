"""The operator registry: built-ins plus the ``sscbench.operators`` entry-point group.

The registry key must equal the operator's module name (``return_date`` lives in
``.../return_date.py``); a duplicate name is an error, never a silent overwrite.
"""

from __future__ import annotations

from typing import Any, TypeVar

from sscbench.errors import ConfigError
from sscbench.operators.base import Operator
from sscbench.registry import Registry

OPERATORS: Registry[type[Operator[Any]]] = Registry("operator", group="sscbench.operators")

OperatorClass = TypeVar("OperatorClass", bound=type[Operator[Any]])


def register_operator(cls: OperatorClass) -> OperatorClass:
    """Class decorator: register an operator under its ``name`` (= its module name)."""
    module = cls.__module__.rsplit(".", 1)[-1]
    if cls.name != module:
        raise ConfigError(
            f"operator {cls.__qualname__} is named {cls.name!r} but lives in module "
            f"{module!r}; the registry key must equal the module name"
        )
    OPERATORS.add(cls.name, cls)
    return cls


def get_operator(name: str, **params: Any) -> Operator[Any]:
    """Instantiate a registered operator (built-ins and plugins load on first lookup)."""
    return OPERATORS.get(name)(**params)


def operator_names() -> list[str]:
    """Names of all registered operators, built-ins included."""
    return OPERATORS.names()
