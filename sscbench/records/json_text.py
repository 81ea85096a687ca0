"""JSON text read the way the standard library reads it, by pydantic's faster reader.

Three readers need ``json.loads``'s exact result on their hot path: a ledger's header, a
hidden log's lines and every tool observation labelling parses. pydantic's reader
(``pydantic_core.from_json``) takes a few times less time and gives the same value for
every text both accept; where they differ it is always because it refuses:

* a lone surrogate escape (``"\\ud800"``), which ``json.loads`` reads;
* an integer of more than :data:`READER_INT_DIGITS` digits, which ``json.loads`` reads
  when the process lifted Python's digit limit.

So a refusal is handed to ``json.loads``, which decides. The one way it could accept what
``json.loads`` refuses is a process that *lowered* Python's integer digit limit below
pydantic's own cap: then a text long enough to hold such an integer goes straight to
``json.loads`` (under the default limit, the two caps are the same and nothing does).
"""

from __future__ import annotations

import json
import sys
from typing import Any

from pydantic_core import from_json

READER_INT_DIGITS = 4300
"""The longest integer (in digits) pydantic's reader takes, whatever Python's limit; the
tests hold it to the installed pydantic."""


def loads(text: str) -> Any:
    """``json.loads(text)``: the same value, or the same exception (a ``ValueError``, of
    which ``json.JSONDecodeError`` is one, or a ``RecursionError``)."""
    limit = sys.get_int_max_str_digits()
    if not limit or limit >= READER_INT_DIGITS or len(text) <= limit:
        try:
            return from_json(text)
        except ValueError:
            pass
    return json.loads(text)
