"""Labelled items: a run, a fault contract, and hand labels from independent passes.

One JSON line per item (``items.jsonl``). ``passes`` holds each annotator pass as written;
``reference`` is the label the measurement is scored against — the passes' common answer, or
the resolution of their disagreement, which ``resolution`` explains.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from sscbench.errors import ConfigError
from sscbench.fault_contracts.contract import FaultContract
from sscbench.records.ledger import iter_jsonl

ITEMS_SCHEMA_VERSION = 1

Step = int | Literal["none", "undecidable"]


class HandLabel(BaseModel):
    """One annotator's labels for one item (see ``docs/reconstruction-labelling.md``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    t_s: Step
    t_u: Step
    adopted: bool | Literal["undecidable"]
    note: str = ""


class CorpusItem(BaseModel):
    """One labelled item of a reconstruction-accuracy corpus."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    schema_version: int = ITEMS_SCHEMA_VERSION
    item_id: str
    run_id: str = Field(description="the run directory (under the corpus's runs/) it builds on")
    operator: str
    kind: Literal["counterfactual", "hand_built"]
    t_f: int
    call_id: str
    tool: str
    action: Literal["rewrite", "suppress"]
    contract: FaultContract
    fact: str
    passes: dict[str, HandLabel] = {}
    reference: HandLabel | None = None
    resolution: str = Field(default="", description="how a disagreement between passes ended")


def read_items(path: Path) -> list[CorpusItem]:
    """Read ``items.jsonl``; a bad line is a :class:`ConfigError` naming file and line."""
    items = []
    for number, obj in iter_jsonl(path):
        try:
            items.append(CorpusItem.model_validate(obj))
        except ValueError as exc:
            first = str(exc).splitlines()[0]
            raise ConfigError(f"{path}:{number}: not a corpus item ({first})") from None
    return items
