"""JSON nobody vouches for: label bodies posted to the server, reviewer label files.

Both must end in a value or in one error line that says what is wrong and where, never in
a traceback. ``json.loads`` alone is not enough for that: invalid UTF-8, nesting deeper
than the interpreter's recursion limit and integers longer than Python's digit limit
escape as ``UnicodeDecodeError``, ``RecursionError`` and ``ValueError``, and ``NaN`` and
``Infinity`` are accepted. :func:`loads` closes those holes.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import ValidationError

MAX_INT_DIGITS = 9
"""Longest integer literal accepted (steps are small; 10^400 is not a step)."""


class InputError(ValueError):
    """Unusable input; the message is one line saying what is wrong and how to fix it.
    ``status`` is the HTTP status the server answers it with."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


def _int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise InputError(f"integer {text[:12]}… is too long (at most {MAX_INT_DIGITS} digits)")
    return int(text)


def _constant(name: str) -> float:
    raise InputError(f"{name} is not a JSON number")


def loads(raw: bytes) -> Any:
    """Strict UTF-8 JSON with bounded integers and nesting; raises :class:`InputError`."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"not valid UTF-8 (byte {exc.start})") from None
    try:
        return json.loads(text, parse_int=_int, parse_constant=_constant)
    except json.JSONDecodeError as exc:
        raise InputError(f"not valid JSON ({exc.msg} at column {exc.colno})") from None
    except RecursionError:
        raise InputError("JSON nested too deeply") from None


def first_error(exc: ValidationError) -> str:
    """The first problem of a pydantic error as ``field.path: message`` (one line)."""
    first = exc.errors(include_url=False, include_input=False)[0]
    where = ".".join(str(p) for p in first["loc"])
    message = " ".join(str(first["msg"]).removeprefix("Value error, ").split())
    return f"{where}: {message}" if where else message
