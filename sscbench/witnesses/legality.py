"""Which arguments a continuation may use: values obtainable from the visible history.

A witness must be a *legal* continuation: calls of the task's own tools whose arguments
appear in what the agent has seen — delivered observations (values and keys) or user
messages — never evaluator-only knowledge. The same check generates candidate calls for
the search and rejects tampered witnesses on verification.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Iterator
from functools import cache
from itertools import pairwise, product
from typing import Any

from sscbench.envs import load_domain, tool_kinds
from sscbench.fault_contracts.history import History
from sscbench.json_paths import flatten
from sscbench.records.events import UserMessage, VisibleEvent

_TOKEN = re.compile(r"#?[A-Za-z0-9_]*\d[A-Za-z0-9_]*")


def _singular(token: str) -> str:
    return token[:-1] if token.endswith("s") else token


def visible_values(events: tuple[VisibleEvent, ...]) -> dict[str, list[str]]:
    """Visible string values keyed by the field they appeared under, in order of appearance.

    Key ``""`` collects tokens from user messages (ids said aloud), which may fill any
    ``*_id`` parameter.
    """
    out: dict[str, list[str]] = {}

    def add(field: str, value: str) -> None:
        bucket = out.setdefault(field, [])
        if value not in bucket:
            bucket.append(value)

    for event in events:
        if isinstance(event, UserMessage):
            for token in _TOKEN.findall(event.content):
                add("", token.strip("'\".,"))
    for d in History(events).successes():
        for path, value in flatten(d.data):
            parts = path.split(".")
            named = [p for p in parts if not p.isdigit()]
            if isinstance(value, str) and named:
                add(_singular(named[-1]), value)
            # dict keys that are ids (payment_methods.<id>, variants.<item id>)
            for parent, key in pairwise(parts):
                if not key.isdigit() and _TOKEN.fullmatch(key):
                    add(_singular(parent), key)
    return out


@cache
def read_tool_params(domain: str) -> dict[str, tuple[str, ...]]:
    """Required parameters of each read tool of the domain."""
    toolkit = load_domain(domain).toolkit_class
    params: dict[str, tuple[str, ...]] = {}
    for name, kind in sorted(tool_kinds(domain).items()):
        if kind != "read":
            continue
        signature = inspect.signature(getattr(toolkit, name))
        params[name] = tuple(
            p.name
            for p in signature.parameters.values()
            if p.name != "self" and p.default is inspect.Parameter.empty
        )
    return params


def _candidates_for(param: str, values: dict[str, list[str]]) -> list[str]:
    found = list(values.get(param, []))
    base = param[:-3] if param.endswith("_id") else param
    for key in (base, f"{base}_id"):
        found += [v for v in values.get(key, []) if v not in found]
    if param.endswith("_id"):
        found += [v for v in values.get("", []) if v not in found]
    return found


def legal_calls(
    domain: str, events: tuple[VisibleEvent, ...], limit: int
) -> Iterator[tuple[str, dict[str, str]]]:
    """Read calls whose every argument is visible, deterministically ordered, at most ``limit``."""
    values = visible_values(events)
    produced = 0
    several = load_domain(domain).dual_control  # telecom's usage read takes customer and line
    for tool, params in read_tool_params(domain).items():
        if not params or (len(params) > 1 and not several):
            continue  # single-argument reads cover every record read in airline and retail
        for combination in product(*(_candidates_for(p, values) for p in params)):
            yield tool, dict(zip(params, combination, strict=True))
            produced += 1
            if produced >= limit:
                return


@cache
def device_checks(domain: str) -> tuple[str, ...]:
    """The customer's device readings that take no argument (dual-control domains), which a
    continuation may ask the customer to run; sorted."""
    from sscbench.envs.environment import user_tool_kinds

    toolkit = load_domain(domain).user_toolkit_class
    if toolkit is None:
        return ()
    out = []
    for name, kind in sorted(user_tool_kinds(domain).items()):
        signature = inspect.signature(getattr(toolkit, name))
        if kind == "read" and all(
            p.name == "self" or p.default is not inspect.Parameter.empty
            for p in signature.parameters.values()
        ):
            out.append(name)
    return tuple(out)


def is_legal(
    domain: str, name: str, arguments: dict[str, Any], events: tuple[VisibleEvent, ...]
) -> str | None:
    """``None`` when the call is a legal continuation step, else the reason it is not (a
    device check is legal with no arguments: the agent asks the customer to run it)."""
    if name in device_checks(domain):
        return None if not arguments else f"the device check {name} takes no arguments"
    params = read_tool_params(domain)
    if name not in params:
        return f"{name} is not a read tool of {domain}"
    if set(arguments) != set(params[name]):
        return f"{name} takes {list(params[name])}, got {sorted(arguments)}"
    values = visible_values(events)
    for param, value in arguments.items():
        if not isinstance(value, str) or value not in _candidates_for(param, values):
            return f"argument {param}={value!r} of {name} does not appear in the visible history"
    return None
