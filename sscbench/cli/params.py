"""``KEY=VALUE`` options (``--agent-param``, ``--classifier-param``, ``--judge-param``)."""

from __future__ import annotations

import argparse
from typing import Any

from sscbench.errors import ConfigError


def parse_params(items: list[str], flag: str) -> dict[str, Any]:
    """Parse repeated ``KEY=VALUE`` options. Values stay text: each component's parameter
    model gives them their types (``p=0.3`` a float, ``model=007`` the text ``007``)."""
    params: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ConfigError(f"{flag} {item!r} must look like KEY=VALUE")
        params[key] = value
    return params


def executor_choice(text: str) -> tuple[str, str | None]:
    """``--executor local | ray | ray=ADDRESS`` as (kind, address)."""
    kind, _, address = text.partition("=")
    if kind not in ("local", "ray") or (kind == "local" and address):
        raise argparse.ArgumentTypeError(f"expected local, ray or ray=ADDRESS, got {text!r}")
    return kind, address or None
