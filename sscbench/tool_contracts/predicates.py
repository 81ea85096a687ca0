"""Clause predicates and probe expressions: whitelisted Python over plain JSON snapshots.

Contracts are data, so their predicates must not be able to do anything but read: an
expression is parsed, every node type, attribute and free name is checked against a short
whitelist, and it runs with no builtins except the helpers below. Names bound in
``pre``, ``post`` (canonical JSON snapshots), ``args`` and ``result`` (the tool's return,
as τ² serialises it to the agent) plus ``error`` (the call raised).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Iterator
from functools import cache
from typing import Any

from sscbench.errors import ConfigError

ROLES = ("pre", "post", "args", "result", "error")


class NoProbeValue(Exception):
    """The pre-state holds no entity a probe needs (the probe becomes UNTESTABLE)."""


def first(items: Iterable[Any]) -> Any:
    """The first item, or :class:`NoProbeValue` when there is none."""
    for item in items:
        return item
    raise NoProbeValue("no value in the pre-state satisfies the probe")


def by_id(rows: list[dict[str, Any]], field: str, value: Any) -> dict[str, Any]:
    """The row of a list collection (telecom) whose ``field`` equals ``value``."""
    row: dict[str, Any] = first(r for r in rows if r.get(field) == value)
    return row


def _walk(a: Any, b: Any, path: str) -> Iterator[tuple[str, Any, Any]]:
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b), key=str):
            sub = f"{path}.{key}" if path else str(key)
            if key not in a:
                yield sub, None, b[key]
            elif key not in b:
                yield sub, a[key], None
            else:
                yield from _walk(a[key], b[key], sub)
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for index, (x, y) in enumerate(zip(a, b, strict=True)):
            yield from _walk(x, y, f"{path}[{index}]")
    elif a != b:
        yield path, a, b


def diff(pre: Any, post: Any) -> list[tuple[str, Any, Any]]:
    """Every leaf that differs: (dotted path, before, after); lists of unequal length whole."""
    return list(_walk(pre, post, ""))


def changed(pre: Any, post: Any) -> list[str]:
    """The dotted paths that differ between two snapshots."""
    return [path for path, _, _ in _walk(pre, post, "")]


def only_changed(pre: Any, post: Any, prefixes: Iterable[str]) -> bool:
    """True when every changed path lies under one of ``prefixes`` (a frame clause)."""
    allowed = tuple(prefixes)
    return all(
        any(p == a or p.startswith(a + ".") or p.startswith(a + "[") for a in allowed)
        for p in changed(pre, post)
    )


HELPERS: dict[str, Callable[..., Any]] = {
    "first": first,
    "by_id": by_id,
    "changed": changed,
    "only_changed": only_changed,
    "len": len,
    "all": all,
    "any": any,
    "sum": sum,
    "min": min,
    "max": max,
    "abs": abs,
    "round": round,
    "sorted": sorted,
    "set": set,
    "list": list,
    "dict": dict,
    "tuple": tuple,
    "str": str,
    "int": int,
    "float": float,
    "zip": zip,
    "enumerate": enumerate,
    "range": range,
}

_NODES = (
    ast.Expression, ast.BoolOp, ast.BinOp, ast.UnaryOp, ast.Compare, ast.IfExp, ast.Call,
    ast.Name, ast.Constant, ast.Subscript, ast.Slice, ast.List, ast.Tuple, ast.Dict, ast.Set,
    ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp, ast.comprehension,
    ast.Attribute, ast.Load, ast.Store, ast.keyword, ast.Starred,
    ast.operator, ast.boolop, ast.unaryop, ast.cmpop,
)  # fmt: skip
_ATTRIBUTES = frozenset(
    {"get", "items", "values", "keys", "startswith", "endswith", "count", "lower", "index"}
)


def check_expression(text: str) -> ast.Expression:
    """Parse and whitelist an expression; raise ``ValueError`` naming what is not allowed."""
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as exc:
        raise ValueError(f"does not parse: {exc.msg}") from None
    bound = {
        n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    }
    for node in ast.walk(tree):
        if not isinstance(node, _NODES):
            raise ValueError(f"{type(node).__name__} is not allowed")
        if isinstance(node, ast.Attribute) and node.attr not in _ATTRIBUTES:
            raise ValueError(f"attribute .{node.attr} is not allowed")
        if (
            isinstance(node, ast.Name)
            and isinstance(node.ctx, ast.Load)
            and node.id not in bound | HELPERS.keys() | set(ROLES)
        ):
            raise ValueError(f"free name {node.id!r}")
    return tree


@cache
def compiled(text: str) -> Any:
    """Compile a checked expression once (contracts are re-evaluated on every probe)."""
    return compile(check_expression(text), "<contract>", "eval")


def evaluate(text: str, **roles: Any) -> Any:
    """Evaluate an expression with the given roles bound and only the helpers available."""
    scope: dict[str, Any] = {"__builtins__": {}, **HELPERS, **roles}
    return eval(compiled(text), scope)


def validate(text: str, where: str) -> None:
    """Refuse a bad expression in one line naming where it is."""
    try:
        check_expression(text)
    except ValueError as exc:
        raise ConfigError(
            f"{where}: predicate {text!r}: {exc}; use only {', '.join(ROLES)} "
            "and the documented helpers"
        ) from None
