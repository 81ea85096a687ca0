"""Structure-aware segmentation of agent text into units.

Real agents answer in paragraphs, markdown lists and tables, and sometimes JSON. A value
and the entity it belongs to are often not in the same sentence: "Reservation GV1N64:" as a
heading, "- Return: May 18" two lines below; a table row whose first cell is the order id;
a JSON object whose ``reservation_id`` sits beside ``"date": "2024-05-18"``. Each unit
therefore carries its *scope*: the headings, parent list items, table header and sibling
JSON fields that frame it. Values are looked for in the unit's own text; entities in the
unit and its scope.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Any

_ABBREVIATIONS = (
    "e.g",
    "i.e",
    "vs",
    "approx",
    "no",
    "No",
    "etc",
    "apt",
    "ste",
    "st",
    "dr",
    "mr",
    "ms",
)
_SENTENCE_END = re.compile(
    r"(?<=[.!?])(?<!\b[A-Z]\.)"  # the cheap test first: most positions fail it at once
    + "".join(rf"(?<!\b{re.escape(a)}\.)" for a in _ABBREVIATIONS)
    + r"[\"')\]]?\s+(?=[\"'(\[*_]*[A-Za-z0-9#$])"
)
"""A sentence boundary: end punctuation, then space, then a word (upper or lower case),
unless the period closes an initial or a common abbreviation ("e.g.", "apt.", "No.")."""
_LIST_MARK = re.compile(r"^(?P<indent>\s*)(?:[-*+•·▪◦‣]|\d{1,2}[.)]|[a-z][.)])\s+(?P<text>.*)$")
_HEADING = re.compile(r"^\s*(?:#{1,6}\s+(?P<h>.*)|\*\*(?P<b>[^*]+)\*\*:?\s*)$")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")
_OPENER = re.compile(r'^"(?P<key>[^"]+)"\s*:\s*[{\[]$')
_FIELD = re.compile(r'^"(?P<key>[^"]+)"\s*:\s*(?P<value>.*?)$')
_PROSE_KEYS = re.compile(r"message|summary|note|text|response|reply|content|explanation")


@dataclass(frozen=True)
class Unit:
    """One segment of an agent's text.

    ``scope`` lists the texts that frame the unit (outermost first): headings, parent list
    items, the table header, sibling fields of a JSON object. ``block`` identifies the
    list, table or JSON array the unit belongs to (-1 for free prose), so that items of one
    enumeration can be recognised as siblings.
    """

    text: str
    scope: tuple[str, ...]
    index: int
    block: int
    kind: str
    """``sentence``, ``item`` (list item), ``row`` (table row) or ``field`` (JSON leaf)."""
    message: str = ""
    """The whole text the unit comes from (for cues that hold message-wide)."""

    @cached_property
    def framed(self) -> str:
        """Scope and text joined, for looking up entities."""
        return " \n ".join((*self.scope, self.text))


def _sentences(text: str) -> list[str]:
    parts = [p.strip() for p in _SENTENCE_END.split(text)]
    out: list[str] = []
    for part in parts:
        if not part:
            continue
        out.extend(s.strip() for s in re.split(r";\s+", part) if s.strip())
    return out


class _Builder:
    def __init__(self, source: str) -> None:
        self.units: list[Unit] = []
        self.blocks = 0
        self.source = source

    def add(self, text: str, scope: tuple[str, ...], block: int, kind: str) -> None:
        text = text.strip()
        if text:
            self.units.append(Unit(text, scope, len(self.units), block, kind, self.source))

    def new_block(self) -> int:
        self.blocks += 1
        return self.blocks

    # -- JSON -------------------------------------------------------------------------------
    def json_value(self, value: Any, scope: tuple[str, ...], key: str, block: int) -> None:
        if isinstance(value, dict):
            siblings = tuple(
                f"{k}: {v}"
                for k, v in value.items()
                if isinstance(v, str | int | float | bool) and len(str(v)) <= 80
            )
            inner = (*scope, key) if key else scope
            for k, v in value.items():
                if isinstance(v, dict | list):
                    self.json_value(v, (*inner, *siblings), k, block)
                elif isinstance(v, str) and (len(v) > 80 or "\n" in v) and _PROSE_KEYS.search(k):
                    self.text(v, (*inner, *[s for s in siblings if not s.startswith(f"{k}:")]))
                else:
                    self.add(f"{k}: {_scalar(v)}", (*inner, *siblings), block, "field")
        elif isinstance(value, list):
            child = self.new_block()
            for v in value:
                if isinstance(v, dict | list):
                    self.json_value(v, scope, key, child)
                else:
                    self.add(f"{key}: {_scalar(v)}" if key else _scalar(v), scope, child, "field")
        else:
            self.add(f"{key}: {_scalar(value)}" if key else _scalar(value), scope, block, "field")

    def loose_json(self, text: str, scope: tuple[str, ...]) -> None:
        """JSON-looking text that does not parse (an unquoted expression, a cut reply): read
        it line by line, with ``"key": {`` lines opening a scope until their closing
        bracket, so nested fields keep their parents."""
        stack: list[str] = []
        block = self.new_block()
        for raw in text.splitlines():
            line = raw.strip().rstrip(",")
            if not line:
                continue
            opener = _OPENER.match(line)
            if opener:
                stack.append(opener["key"])
                continue
            if line in ("}", "]", "{", "["):
                if line in ("}", "]") and stack:
                    stack.pop()
                continue
            field = _FIELD.match(line)
            if field is None:
                self.text(line.strip("{}[] "), (*scope, *stack))
                continue
            value = field["value"].strip().strip('"')
            if len(value) > 80 and _PROSE_KEYS.search(field["key"]):
                self.text(value.replace("\\n", "\n"), (*scope, *stack))
            else:
                self.add(f"{field['key']}: {value}", (*scope, *stack), block, "field")

    # -- markdown and prose --------------------------------------------------------------------
    def text(self, text: str, scope: tuple[str, ...] = ()) -> None:
        parsed = _json_in(text)
        if parsed is not None:
            prefix, value, suffix = parsed
            if prefix.strip():
                self.text(prefix, scope)
            # The sentence that introduces a JSON block frames it ("the request I'll send
            # (book_reservation):").
            framing = (*scope, prefix.strip().splitlines()[-1]) if prefix.strip() else scope
            self.json_value(value, framing, "", self.new_block())
            if suffix.strip():
                self.text(suffix, scope)
            return
        if text.lstrip()[:1] in "{[":
            self.loose_json(text, scope)
            return
        lines = text.splitlines()
        heading: tuple[str, ...] = ()
        stack: list[tuple[int, str]] = []  # (indent, text) of open list items
        list_block = -1
        header: list[str] | None = None
        table_block = -1
        for raw in lines:
            line = raw.rstrip()
            if not line.strip():
                stack, header, list_block = [], None, -1
                continue
            if line.lstrip().startswith("|") and line.count("|") >= 2:
                cells = [c.strip() for c in line.strip().strip("|").split("|")]
                if _TABLE_RULE.match(line):
                    continue
                if header is None:
                    header, table_block = cells, self.new_block()
                    continue
                row = "; ".join(
                    f"{h}: {c}" if h else c for h, c in zip(header, cells, strict=False) if c
                )
                self.add(row, (*scope, *heading), table_block, "row")
                continue
            header = None
            h = _HEADING.match(line)
            if h:
                heading = ((h["h"] or h["b"] or "").strip(),)
                stack, list_block = [], -1
                continue
            item = _LIST_MARK.match(line)
            if item:
                indent = len(item["indent"].expandtabs(2))
                while stack and stack[-1][0] >= indent:
                    stack.pop()
                if list_block < 0:
                    list_block = self.new_block()
                parents = tuple(t for _, t in stack)
                for sentence in _sentences(item["text"]) or [item["text"]]:
                    self.add(sentence, (*scope, *heading, *parents), list_block, "item")
                stack.append((indent, item["text"]))
                continue
            stripped = line.strip()
            if stripped.endswith(":") and len(stripped) <= 100:
                heading = (stripped,)
                stack, list_block = [], -1
                continue
            if stack and raw.startswith((" ", "\t")):
                parents = tuple(t for _, t in stack)
                for sentence in _sentences(stripped):
                    self.add(sentence, (*scope, *heading, *parents), list_block, "item")
                continue
            stack, list_block = [], -1
            for sentence in _sentences(stripped):
                self.add(sentence, (*scope, *heading), -1, "sentence")


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def _json_in(text: str) -> tuple[str, Any, str] | None:
    """A JSON object or array making up the text, or fenced in it: (before, value, after)."""
    stripped = text.strip()
    fence = re.search(r"```(?:json)?\s*(?P<body>[\[{].*?[\]}])\s*```", text, re.S)
    candidates = []
    if stripped[:1] in "{[":
        candidates.append(("", stripped, ""))
    if fence:
        candidates.append((text[: fence.start()], fence["body"], text[fence.end() :]))
    for before, body, after in candidates:
        try:
            value = json.loads(body)
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict | list):
            return before, value, after
    # A JSON object inside a sentence ("I will call X with {...}. This relies on …").
    decoder = json.JSONDecoder()
    for start in (i for i, ch in enumerate(text) if ch == "{"):
        try:
            value, end = decoder.raw_decode(text, start)
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict) and len(value) >= 2:
            return text[:start], value, text[end:]
    return None


def segment(text: str) -> list[Unit]:
    """The units of one agent text, in reading order."""
    return list(_segment(text))


@lru_cache(maxsize=1 << 12)
def _segment(text: str) -> tuple[Unit, ...]:
    """Once per text: a run set's agents say the same few hundred things in thousands of
    messages (the units are immutable)."""
    builder = _Builder(text)
    builder.text(text)
    return tuple(builder.units)
