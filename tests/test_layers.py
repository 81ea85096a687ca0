"""The package's layers: no import cycle between subpackages, records at the bottom.

Every ``import`` and ``from … import`` of ``sscbench`` modules is read from the source,
including those inside functions (a lazy import is still a dependency). A cycle between
subpackages is what lets a change anywhere ripple everywhere; the rules below are the
layer order docs/architecture.md draws.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "sscbench"


def _unit(module: str) -> str | None:
    parts = module.split(".")
    if len(parts) < 2 or parts[0] != "sscbench":
        return None
    name = parts[1]
    return name if (PACKAGE / name).is_dir() or (PACKAGE / f"{name}.py").exists() else None


def subpackage_imports() -> dict[str, set[str]]:
    """Subpackage (or top-level module) → the others it imports."""
    edges: dict[str, set[str]] = defaultdict(set)
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(PACKAGE.parent).with_suffix("")
        source = _unit(".".join(rel.parts)) or "__init__"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                targets = [node.module]
            elif isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            for target in targets:
                unit = _unit(target)
                if unit is not None and unit != source:
                    edges[source].add(unit)
    return edges


def _cycle(edges: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)) is not None:
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(edges):
        if node not in state and (found := visit(node)) is not None:
            return found
    return None


def test_no_import_cycle_between_subpackages() -> None:
    cycle = _cycle(subpackage_imports())
    assert cycle is None, " → ".join(cycle or [])


def test_the_detector_finds_a_cycle() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def test_layer_rules() -> None:
    edges = subpackage_imports()
    assert edges["records"] <= {"errors"}, "records sit at the bottom"
    assert edges["envs"] <= {"errors", "caching", "records"}, "the τ² adapter: nothing above"
    for name, targets in edges.items():
        if name not in ("__init__", "__main__"):  # `python -m sscbench` runs the CLI
            assert "cli" not in targets or name == "cli", f"{name} imports the CLI"
    # The model client is infrastructure: below the agents, beside the τ² adapter.
    assert edges["llm"] <= {"errors", "caching", "records", "envs"}, "llm: nothing above"
    below_runs = {"runs", "experiments", "reconstruct", "analysis", "oracles", "review"}
    for lower in ("agents", "fault_contracts", "operators", "users"):
        assert not edges[lower] & below_runs, f"{lower} imports {edges[lower] & below_runs}"
