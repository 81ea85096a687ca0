"""Reading an experiment file, and reporting its problems with file and line.

Parsing (TOML through the standard library's ``tomllib``, YAML through PyYAML's safe
loader) keeps a key-path → line map next to the data, so that every later check — schema,
registries, case set — can name the line of the key it rejects. Problems are collected and
raised together: fixing a file one error per run is slow.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from sscbench.errors import ConfigError
from sscbench.experiments.locate import KeyLines, toml_key_lines, yaml_key_lines
from sscbench.user_files import read_user_bytes

KeyPath = tuple[str | int, ...]


def dotted(path: Sequence[str | int]) -> str:
    """``configurations[1].params.model`` for a key path."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out or "(top level)"


class Problems:
    """Collects problems with their key paths; raises them together with line numbers."""

    def __init__(self, source: Path, lines: KeyLines) -> None:
        self.source = source
        self.lines = lines
        self.items: list[tuple[int | None, str]] = []

    def add(self, path: Sequence[str | int], message: str) -> None:
        """Record a problem at a key path (its line is looked up now)."""
        self.items.append((self.lines.line_of(path), f"{dotted(path)}: {message}"))

    def raise_if_any(self) -> None:
        """Raise every problem so far as one ``ConfigError``, sorted by line."""
        if not self.items:
            return
        rendered = [
            f"{self.source}:{line}: {text}" if line is not None else f"{self.source}: {text}"
            for line, text in sorted(self.items, key=lambda item: item[0] or 0)
        ]
        raise ConfigError("invalid experiment file\n" + "\n".join(rendered))


def add_validation_errors(problems: Problems, prefix: KeyPath, exc: ValidationError) -> None:
    """Add pydantic's errors under ``prefix``; input values are left out, so a key pasted
    into the wrong field is never echoed."""
    for err in exc.errors(include_url=False, include_input=False):
        problems.add((*prefix, *err["loc"]), err["msg"])


def read_source(path: Path) -> tuple[Any, KeyLines]:
    """The file's data and its key-line map; a syntax error is a ``ConfigError`` with a line."""
    raw = read_user_bytes(path, "experiment file")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(
            f"{path}: not valid UTF-8 (byte {exc.start}); an experiment file is text"
        ) from None
    suffix = path.suffix.lower()
    if suffix == ".toml":
        try:
            data: Any = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            found = re.search(r"at line (\d+)", str(exc))
            line = found.group(1) if found else str(max(1, len(text.splitlines())))
            where = f"{path}:{line}"  # "at end of document": the last line
            raise ConfigError(f"{where}: invalid TOML: {exc}") from None
        except RecursionError:
            raise ConfigError(f"{path}: invalid TOML: nested too deeply") from None
        return data, toml_key_lines(text)
    if suffix in (".yaml", ".yml"):
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f"{path}:{mark.line + 1}" if mark is not None else str(path)
            problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
            raise ConfigError(f"{where}: invalid YAML: {problem}") from None
        except RecursionError:
            raise ConfigError(f"{path}: invalid YAML: nested too deeply") from None
        return data, yaml_key_lines(text)
    raise ConfigError(f"{path}: experiment files are .toml, .yaml or .yml")
