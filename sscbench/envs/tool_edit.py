"""Edited copies of τ² tool methods: the one tool-editing mechanism.

An edited copy never touches the installed package: it takes a tool method's source,
applies line-anchored edits (delete a statement, disable a guard, replace a line), compiles
the result in the tool module's own namespace under a ``<mutant ...>`` file name, and binds
it in a subclass of the toolkit. The tool-contract audit builds its mutants and patches with
it; defect-class fault operators build the defective tool their contract names with it, and
the choke point runs that copy for the calls the contract matches.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from sscbench.errors import ConfigError

EditOp = Literal["delete", "disable_guard", "replace"]


class SourceEdit(BaseModel):
    """One change to a tool's source, anchored on a line (matched stripped, exactly once)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    op: EditOp
    line: str
    text: str | None = None


def apply_edits(source: str, edits: tuple[SourceEdit, ...], where: str) -> str:
    """``source`` with ``edits`` applied; an anchor that is not exactly one line is a
    :class:`ConfigError` naming ``where``."""
    lines = source.splitlines()
    tree = ast.parse(source)
    for edit in edits:
        hits = [i for i, line in enumerate(lines) if line.strip() == edit.line]
        if len(hits) != 1:
            raise ConfigError(
                f"{where}: anchor {edit.line!r} matches {len(hits)} lines of the installed "
                "source; anchor each edit on one whole line"
            )
        index = hits[0]
        indent = lines[index][: len(lines[index]) - len(lines[index].lstrip())]
        if edit.op == "disable_guard":
            lines[index] = f"{indent}if False:"
        elif edit.op == "replace":
            lines[index] = indent + str(edit.text)
        else:
            stmt = next(
                n for n in ast.walk(tree)
                if isinstance(n, ast.stmt) and n.lineno == index + 1
            )  # fmt: skip
            end = stmt.end_lineno or stmt.lineno
            lines[index] = f"{indent}pass"
            for extra in range(index + 1, end):
                lines[extra] = ""
    return "\n".join(lines) + "\n"


def edited_subclass(
    base: type[Any], method_name: str, edits: tuple[SourceEdit, ...], label: str
) -> type[Any]:
    """A subclass of toolkit ``base`` whose ``method_name`` is the edited copy (no edits: a
    plain recompile of the shipped method)."""
    method = getattr(base, method_name)
    source = textwrap.dedent(inspect.getsource(method))
    code = compile(apply_edits(source, edits, label), f"<mutant {label}>", "exec")
    namespace: dict[str, Any] = {}
    exec(code, method.__globals__, namespace)
    return type(f"Edited_{method_name}", (base,), {method_name: namespace[method_name]})


_COMPILED: dict[tuple[type[Any], str, tuple[SourceEdit, ...], str], type[Any]] = {}


def cached_subclass(
    base: type[Any], method_name: str, edits: tuple[SourceEdit, ...], label: str
) -> type[Any]:
    """:func:`edited_subclass`, compiled once per process for the same inputs (episodes of
    one contract share the class; it holds no state of its own)."""
    key = (base, method_name, edits, label)
    if key not in _COMPILED:
        _COMPILED[key] = edited_subclass(base, method_name, edits, label)
    return _COMPILED[key]
