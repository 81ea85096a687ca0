"""Where a key sits in the experiment file, so every validation error names a line.

``tomllib`` and pydantic report *what* is wrong as a key path (``configurations.1.params``);
a person fixing the file needs the line. These locators map key paths to 1-based line
numbers by scanning the source text: a small line scanner for TOML (headers, array tables,
dotted keys) and PyYAML's node marks for YAML. An error on a key that is absent (a missing
required field) falls back to the nearest enclosing table that is present.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import yaml

Path = tuple[str | int, ...]

_BARE = r"[A-Za-z0-9_-]+"
_QUOTED = r'"(?:[^"\\]|\\.)*"|\'[^\']*\''
_KEY = rf"(?:{_BARE}|{_QUOTED})(?:\s*\.\s*(?:{_BARE}|{_QUOTED}))*"
_ARRAY_HEADER = re.compile(rf"^\s*\[\[\s*({_KEY})\s*\]\]")
_TABLE_HEADER = re.compile(rf"^\s*\[\s*({_KEY})\s*\]")
_ASSIGNMENT = re.compile(rf"^\s*({_KEY})\s*=")
_PART = re.compile(rf"{_BARE}|{_QUOTED}")


class KeyLines:
    """Key path → line number of the key (or of the table header that opens it)."""

    def __init__(self, lines: dict[Path, int]) -> None:
        self._lines = lines

    def line_of(self, path: Sequence[str | int]) -> int | None:
        """The line of ``path``, else of its longest present prefix (None at top level)."""
        key = tuple(path)
        while key:
            line = self._lines.get(key)
            if line is not None:
                return line
            key = key[:-1]
        return None


def _parts(dotted: str) -> list[str]:
    out = []
    for match in _PART.finditer(dotted):
        part = match.group(0)
        out.append(part[1:-1] if part[:1] in "\"'" else part)
    return out


def toml_key_lines(text: str) -> KeyLines:
    """Scan TOML text for table headers and key assignments.

    Array tables get indices in order of appearance (``[[configurations]]`` number 2 is
    ``("configurations", 1)``), counted per enclosing element, as TOML defines them.
    Lines inside multi-line strings are skipped.
    """
    lines: dict[Path, int] = {}
    arrays: dict[Path, int] = {}
    current: Path = ()
    in_string: str | None = None

    def resolve(parts: list[str]) -> Path:
        path: Path = ()
        for part in parts:
            path = (*path, part)
            if path in arrays:
                path = (*path, arrays[path] - 1)
        return path

    for number, line in enumerate(text.splitlines(), start=1):
        if in_string is not None:
            if line.count(in_string) % 2 == 1:
                in_string = None
            continue
        if match := _ARRAY_HEADER.match(line):
            parts = _parts(match.group(1))
            parent = resolve(parts[:-1])
            array = (*parent, parts[-1])
            arrays[array] = arrays.get(array, 0) + 1
            lines.setdefault(array, number)
            current = (*array, arrays[array] - 1)
            lines.setdefault(current, number)
        elif match := _TABLE_HEADER.match(line):
            current = resolve(_parts(match.group(1)))
            lines.setdefault(current, number)
        elif match := _ASSIGNMENT.match(line):
            lines.setdefault((*current, *_parts(match.group(1))), number)
        for quote in ('"""', "'''"):
            if line.count(quote) % 2 == 1:
                in_string = quote
                break
    return KeyLines(lines)


def yaml_key_lines(text: str) -> KeyLines:
    """Key path → line from PyYAML's composed node tree (keys and sequence items)."""
    lines: dict[Path, int] = {}
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return KeyLines(lines)

    def walk(node: yaml.Node | None, path: Path) -> None:
        if isinstance(node, yaml.MappingNode):
            for key_node, value_node in node.value:
                child = (*path, str(key_node.value))
                lines.setdefault(child, key_node.start_mark.line + 1)
                walk(value_node, child)
        elif isinstance(node, yaml.SequenceNode):
            for index, item in enumerate(node.value):
                child = (*path, index)
                lines.setdefault(child, item.start_mark.line + 1)
                walk(item, child)

    walk(root, ())
    return KeyLines(lines)
