"""Layouts of a message's facts as real agents produce them: prose, markdown bullet lists
under a heading, markdown tables, and JSON-looking objects.

Every layout names the entity each fact belongs to: prose opens each entity's sentence
with its reference, lists and tables sit under a heading, JSON carries the id field.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sscbench.agents.scripted.phrasing.content import Entity
from sscbench.agents.scripted.phrasing.lines import Line
from sscbench.agents.scripted.phrasing.refs import join

LAYOUTS = ("prose", "bullets", "table", "json")
HEDGES = ("I think ", "it looks like ", "as far as I can tell, ", "from what I can see, ")


@dataclass(frozen=True)
class Block:
    """One entity's lines, with how prose refers to it and how a heading names it."""

    entity: Entity
    ref: str
    heading: str
    lines: tuple[Line, ...]


def sentence(text: str) -> str:
    """Capitalise the first letter (ids such as ``#W…`` are left as they are)."""
    return text[:1].upper() + text[1:] if text else text


def prose(blocks: Sequence[Block], rng: random.Random, *, hedge: bool) -> str:
    """One sentence per entity, opening with its reference; optionally hedged."""
    out = []
    for block in blocks:
        clauses = [line.clause for line in block.lines]
        style = rng.randrange(3)
        lead = rng.choice(HEDGES) if hedge else ""
        if style == 0:
            intro = rng.choice(("on", "for", "looking at"))
            text = f"{lead}{intro} {block.ref}, {join(clauses, rng)}."
        elif style == 1 and not hedge:
            text = f"{block.ref}: {'; '.join(clauses)}."
        else:
            verb = "it looks like" if hedge else rng.choice(("it shows that", "it says"))
            text = f"I checked {block.ref}, and {verb} {join(clauses, rng)}."
        out.append(sentence(text))
    return " ".join(out)


def _heading(text: str, rng: random.Random) -> str:
    return rng.choice((f"**{text}**", f"### {text}", f"{text}:", f"**{text}:**"))


def bullets(blocks: Sequence[Block], rng: random.Random) -> str:
    """``**Reservation GV1N64**`` then ``- Return: May 18`` per line."""
    mark = rng.choice(("- ", "* ", "• "))
    bold = rng.random() < 0.4
    parts = []
    for block in blocks:
        rows = [
            f"{mark}**{line.label}:** {line.value}" if bold else f"{mark}{line.label}: {line.value}"
            for line in block.lines
        ]
        parts.append(_heading(block.heading, rng) + "\n" + "\n".join(rows))
    return "\n\n".join(parts)


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def table(blocks: Sequence[Block], rng: random.Random) -> str:
    """A heading, then a markdown table (header row, rule, one row per line)."""
    left, right = rng.choice((("Field", "Value"), ("Detail", "Value"), ("Item", "Details")))
    parts = []
    for block in blocks:
        rows = "\n".join(f"| {_cell(line.label)} | {_cell(line.value)} |" for line in block.lines)
        parts.append(
            f"{_heading(block.heading, rng)}\n\n| {left} | {right} |\n| --- | --- |\n{rows}"
        )
    return "\n\n".join(parts)


ID_FIELDS = {"reservation": "reservation_id", "order": "order_id", "user": "user_id"}
JSON_KEYS = {"user": "profile"}


def json_fields(blocks: Sequence[Block]) -> dict[str, Any]:
    """``{"reservation": {"reservation_id": "GV1N64", "return": "May 20", ...}}``; several
    entities of a type become a list under the plural key."""
    by_type: dict[str, list[dict[str, Any]]] = {}
    for block in blocks:
        etype, eid = block.entity
        obj: dict[str, Any] = {ID_FIELDS.get(etype, "id"): eid}
        for line in block.lines:
            key = line.key or line.label.lower().replace(" ", "_")
            n = 2
            while key in obj:
                key = f"{line.key}_{n}"
                n += 1
            obj[key] = line.value
        by_type.setdefault(JSON_KEYS.get(etype, etype), []).append(obj)
    return {k: objs[0] if len(objs) == 1 else objs for k, objs in _plural(by_type).items()}


def _plural(by_type: dict[str, list[dict[str, Any]]]) -> dict[str, list[dict[str, Any]]]:
    return {(k if len(objs) == 1 else f"{k}s"): objs for k, objs in by_type.items()}


def as_json(message: str, fields: dict[str, Any], rng: random.Random) -> str:
    """The reply as a JSON object (``message`` first), sometimes in a code fence."""
    text = json.dumps(
        {"message": message, **fields}, indent=rng.choice((None, 2)), ensure_ascii=False
    )
    return f"```json\n{text}\n```" if rng.random() < 0.3 else text
