"""``KEY=VALUE`` options (``--agent-param``, ``--classifier-param``, ``--judge-param``)."""

from __future__ import annotations

from typing import Any

from sscbench.errors import ConfigError


def parse_params(items: list[str], flag: str, *, numbers: bool = False) -> dict[str, Any]:
    """Parse repeated ``KEY=VALUE`` options; with ``numbers``, numeric values become numbers
    (the rest stay strings, for pydantic to validate)."""
    params: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ConfigError(f"{flag} {item!r} must look like KEY=VALUE")
        params[key] = _number(value) if numbers else value
    return params


def _number(value: str) -> Any:
    try:
        return float(value) if "." in value else int(value)
    except ValueError:
        return value
