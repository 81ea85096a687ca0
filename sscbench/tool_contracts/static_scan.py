"""Static scan of the installed τ² write tools: candidates for a human reader, never verdicts.

Five source patterns that tend to sit on an undisclosed gap between a tool's interface
and its code: a literal success string returned by a state-writing function; a guard
that is commented out; a parameter that reaches only a log line or the returned string;
a truthiness test on a parameter whose valid values include falsy ones; and a verb pair
(book/cancel, suspend/resume, enable/disable) where one never touches a field the other
writes. Each candidate names its file and line in the installed package.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from pydantic import BaseModel, ConfigDict

from sscbench.tool_contracts.loader import source_lines

TOOL_FILES: dict[str, str] = {
    "airline": "tau2/domains/airline/tools.py",
    "retail": "tau2/domains/retail/tools.py",
    "telecom": "tau2/domains/telecom/tools.py",
}
PAIRS: tuple[tuple[str, str], ...] = (
    ("book_reservation", "cancel_reservation"),
    ("suspend_line", "resume_line"),
    ("enable_roaming", "disable_roaming"),
)
_FALSY_TYPES = {"int", "float", "str", "bool", "list", "List", "dict"}
_GUARD = re.compile(r"^\s*#\s*if\b.*:\s*$")
_RAISE = re.compile(r"^\s*#\s*raise\b")


class Candidate(BaseModel):
    """One static finding for a human to read (``check`` is the pattern's name)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    domain: str
    tool: str
    check: str
    file: str
    line: int
    detail: str


def _write_tools(tree: ast.Module) -> list[ast.FunctionDef]:
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            for dec in node.decorator_list:
                if "ToolType.WRITE" in ast.unparse(dec):
                    out.append(node)
    return out


def _in_log_or_return_text(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    cur: ast.AST | None = node
    while cur is not None:
        if isinstance(cur, ast.Call) and "logger." in ast.unparse(cur.func) + ".":
            return True
        if isinstance(cur, ast.JoinedStr) and isinstance(parents.get(cur), ast.Return):
            return True
        cur = parents.get(cur)
    return False


def _writes(fn: ast.FunctionDef) -> set[str]:
    """Attribute names the function assigns, augments or mutates in place."""
    names = set()
    for node in ast.walk(fn):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, ast.AugAssign):
            targets = [node.target]
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in {"append", "extend", "pop", "remove", "insert"}
        ):
            targets = [node.func.value]
        for target in targets:
            while isinstance(target, ast.Subscript):
                target = target.value
            if isinstance(target, ast.Attribute):
                names.add(target.attr)
    return names - {"db"}


def _touched(fn: ast.FunctionDef) -> set[str]:
    return {n.attr for n in ast.walk(fn) if isinstance(n, ast.Attribute)}


def _scan_function(domain: str, file: str, fn: ast.FunctionDef) -> Iterator[Candidate]:
    parents = {child: node for node in ast.walk(fn) for child in ast.iter_child_nodes(node)}
    writes = _writes(fn)

    def cand(check: str, line: int, detail: str) -> Candidate:
        return Candidate(
            domain=domain, tool=fn.name, check=check, file=file, line=line, detail=detail
        )

    for node in ast.walk(fn):
        if (
            writes
            and isinstance(node, ast.Return)
            and isinstance(node.value, ast.Constant | ast.JoinedStr)
        ):
            yield cand("literal_success_return", node.lineno,
                       "a state-writing tool returns a literal string")  # fmt: skip
    lines = source_lines(file)
    end = fn.end_lineno or fn.lineno
    for number in range(fn.lineno, end):
        if _GUARD.match(lines[number - 1]) and _RAISE.match(lines[number]):
            yield cand("commented_out_guard", number, lines[number - 1].strip())
    params = [a for a in fn.args.args if a.arg != "self"]
    for param in params:
        uses = [
            n for n in ast.walk(fn)
            if isinstance(n, ast.Name) and n.id == param.arg and isinstance(n.ctx, ast.Load)
        ]  # fmt: skip
        if uses and all(_in_log_or_return_text(u, parents) for u in uses):
            yield cand("parameter_only_logged", uses[0].lineno,
                       f"{param.arg} reaches only a log call or the returned text")  # fmt: skip
        kind = ast.unparse(param.annotation) if param.annotation is not None else ""
        if kind.split("[")[0] in _FALSY_TYPES:
            for node in ast.walk(fn):
                test = getattr(node, "test", None)
                if isinstance(node, ast.If | ast.While | ast.IfExp) and test is not None:
                    bare = test.operand if isinstance(test, ast.UnaryOp) else test
                    if isinstance(bare, ast.Name) and bare.id == param.arg:
                        yield cand("truthiness_test", node.lineno,
                                   f"truthiness test on {param.arg}: {kind}")  # fmt: skip


def scan(domain: str) -> list[Candidate]:
    """Every candidate in ``domain``'s tool file, in file order."""
    file = TOOL_FILES[domain]
    tree = ast.parse("\n".join(source_lines(file)))
    tools = {fn.name: fn for fn in _write_tools(tree)}
    out = [c for fn in tools.values() for c in _scan_function(domain, file, fn)]
    for first, second in PAIRS:
        if first in tools and second in tools:
            for a, b in ((first, second), (second, first)):
                missing = sorted(_writes(tools[a]) - _touched(tools[b]))
                if missing:
                    out.append(Candidate(
                        domain=domain, tool=b, check="verb_pair_asymmetry",
                        file=file, line=tools[b].lineno,
                        detail=f"{b} never touches {', '.join(missing)}, which {a} writes",
                    ))  # fmt: skip
    return sorted(out, key=lambda c: (c.line, c.check))
