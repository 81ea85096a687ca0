"""Copies of τ² tools with one defect injected (mutants), and repaired copies (patches).

A mutant never edits the installed package: it takes the tool method's source, applies
line-anchored edits (delete a statement, disable a guard, replace a line), compiles the
result in the tool module's namespace under a ``<mutant ...>`` file name, and binds it in
a subclass of τ²'s toolkit. Phantom Effect mutants suppress the write at the adapter
(exactly SSCBench's WriteEffect mechanism) and Reset Leak mutants share one episode
across resets. The same edit language expresses the *patches* score-at-risk compares
against. The editing itself lives in :mod:`sscbench.envs.tool_edit`, which the
defect-class fault operators and the injection runtime use too.
"""

from __future__ import annotations

from functools import cache
from importlib.resources import files
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field

from sscbench.envs.tool_edit import EditOp, edited_subclass
from sscbench.envs.tool_edit import SourceEdit as Edit
from sscbench.tool_contracts.adapter import Adapter, EpisodeAdapter, make_adapter, toolkit_class
from sscbench.tool_contracts.model import DefectClass

__all__ = ["Catalog", "Edit", "EditOp", "Mutant", "Patch", "catalog", "edited_class"]


class Mutant(BaseModel):
    """One injected defect and the class the checker should name."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    domain: str
    tool: str
    defect_class: DefectClass
    mechanism: Literal["source", "suppress", "leak_reset"] = "source"
    method: str | None = Field(default=None, description="the edited method, if not the tool")
    edits: tuple[Edit, ...] = ()
    note: str = ""


class Patch(BaseModel):
    """A repaired copy of a tool (the conforming arm of a verdict-change comparison)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    finding: str
    domain: str
    tool: str
    owns: tuple[str, ...] = Field(
        default=(), description="collections the repaired tool writes beyond the shipped one's"
    )
    edits: tuple[Edit, ...] = Field(min_length=1)


class Catalog(BaseModel):
    """The shipped mutants and patches."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    schema_version: int = 1
    mutants: tuple[Mutant, ...]
    patches: tuple[Patch, ...]


@cache
def catalog() -> Catalog:
    """The shipped catalog (``mutants.yaml`` next to the contracts)."""
    text = files("sscbench.tool_contracts").joinpath("contracts").joinpath("mutants.yaml")
    return Catalog.model_validate(yaml.safe_load(text.read_text(encoding="utf-8")))


def edited_class(domain: str, tool: str, edits: tuple[Edit, ...], label: str) -> type[Any]:
    """A toolkit subclass whose ``tool`` is the edited copy (no edits: a plain recompile)."""
    return edited_subclass(toolkit_class(domain), tool, edits, label)


class _LeakyEpisodes(EpisodeAdapter):
    """Reset Leak: ``reset`` keeps the episode's state instead of starting over."""

    def reset(self) -> None:
        self.calls = 0


class _LeakyTelecom:
    """Reset Leak for telecom: the toolkit (and its database) survive ``reset``."""

    def __init__(self) -> None:
        self.inner = make_adapter("telecom")
        self.domain = "telecom"

    def create(self) -> None:
        self.inner.create()

    def snapshot(self) -> dict[str, Any]:
        return self.inner.snapshot()

    def call(self, tool: str, args: dict[str, Any]) -> Any:
        return self.inner.call(tool, args)

    def reset(self) -> None:
        """Keep the state (the leak)."""

    def check_base(self) -> None:
        self.inner.check_base()


def mutant_adapter(m: Mutant) -> Adapter:
    """An adapter that runs the mutant instead of the shipped tool."""
    if m.mechanism == "suppress":
        return make_adapter(m.domain, suppress=frozenset({m.tool}))
    if m.mechanism == "leak_reset":
        return _LeakyTelecom() if m.domain == "telecom" else _LeakyEpisodes(m.domain)
    method = m.method or m.tool
    return make_adapter(m.domain, edited_class(m.domain, method, m.edits, m.id))


def control_adapter(domain: str, tool: str) -> Adapter:
    """The unmutated control: the same tool recompiled through the same pipeline."""
    return make_adapter(domain, edited_class(domain, tool, (), f"control/{tool}"))


def patched_adapter(p: Patch) -> Adapter:
    """An adapter running the repaired tool."""
    return make_adapter(p.domain, edited_class(p.domain, p.tool, p.edits, p.finding), owns=p.owns)
