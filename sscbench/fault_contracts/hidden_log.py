"""Reading the intervention log's fault deliveries back as typed records.

Every consumer that asks "was the fault delivered, and where?" (reconstruction's trigger
check, validation against the scripted truth, the reconstructor oracle) reads the same
records through :func:`read_fault_deliveries`, so a renamed field or a newer log version
fails in one place with one message instead of as a ``KeyError`` in several.
"""

from __future__ import annotations

import stat
from pathlib import Path

from pydantic import ValidationError

from sscbench.errors import LedgerError
from sscbench.fault_contracts.injection import FaultDelivery
from sscbench.records.json_text import loads
from sscbench.records.ledger import iter_jsonl, read_regular


def read_fault_deliveries(path: Path) -> list[FaultDelivery] | None:
    """The ``fault_delivery`` records of the hidden log at ``path`` in file order; ``None``
    when the run has no hidden log (so nothing can confirm an intervention)."""
    data = read_regular(path)
    if data is None:
        return None
    if isinstance(data, int):
        raise LedgerError(path, 0, f"not a file (mode {stat.filemode(data)}); fix or remove it")
    fast = _read_fast(data)
    if fast is not None:
        return fast
    out: list[FaultDelivery] = []
    for number, obj in iter_jsonl(path, data):
        if obj.get("kind") != "fault_delivery":
            continue
        try:
            out.append(FaultDelivery.model_validate(obj))
        except ValidationError as exc:
            first = exc.errors(include_url=False)[0]
            where = ".".join(str(p) for p in first["loc"]) or "record"
            raise LedgerError(
                path, number, f"not a fault delivery record ({where}: {first['msg']})"
            ) from None
    return out


def _read_fast(data: bytes) -> list[FaultDelivery] | None:
    """The deliveries when every line of a complete log is a JSON object and every
    delivery record is valid, each line read as ``json.loads`` reads it by pydantic's
    faster reader (:mod:`sscbench.records.json_text`; labelling reads a log a run).
    ``None`` otherwise, and the caller reads the log the defining way, which drops, warns
    or raises exactly as before."""
    lines = data.split(b"\n")
    if lines.pop() != b"":
        return None  # empty, or a last line without its newline (maybe cut off)
    out: list[FaultDelivery] = []
    for raw in lines:
        try:
            obj = loads(raw.decode("utf-8"))
        except (ValueError, RecursionError):  # a bad byte is a UnicodeDecodeError, a ValueError
            return None
        if not isinstance(obj, dict):
            return None
        if obj.get("kind") != "fault_delivery":
            continue
        try:
            out.append(FaultDelivery.model_validate(obj))
        except ValidationError:
            return None
    return out
