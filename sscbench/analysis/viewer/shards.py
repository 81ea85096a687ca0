"""The runs' histories paged into shard scripts of 256 runs, each string stored once a shard.

Shard ``k`` is ``runs/<k>.js`` beside the page and holds index rows ``256·k … 256·k + 255``::

    SSCBenchRuns(k, {"n": {"id": …, "meta": [[i, j], …], "events": [[step, i, j, l, [[…]]], …]}, …},
                 ["string 0", "string 1", …]);

Every text of a run — meta keys and values, event kinds, texts and marks — is a position
in the shard's string list, which comes last: the lines a synthetic or scripted run repeats
(event kinds, "no dependent use — …", a task's tool results) are stored once per shard, not
once per run. The page resolves them when the shard arrives and puts them into the document
as text (``textContent``), never as markup. Paged rather than one file per run (100,000 runs
make 391 files, not 100,000) and rather than written on demand (a page opened from disk has
no server to write anything; see docs/report.md).

Rows arrive in ledger path order, not index order: a row whose turn has not come waits in
an unnamed spool file (an offset and a length per row in memory), so one shard and its
string list are in memory at a time and the bytes do not depend on the order of arrival.
"""

from __future__ import annotations

import json
import re
import tempfile
from array import array
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

RUNS_DIR = "runs"
SHARD = 256
"""Runs per shard file: loaded at once when one of its runs is opened."""
CALLBACK = "SSCBenchRuns"


def shard_file(shard: int) -> str:
    """Shard ``shard``'s file, relative to the page (the page script builds the same path)."""
    return f"{RUNS_DIR}/{shard}.js"


def run_file(number: int) -> str:
    """The shard file holding index row ``number``, relative to the page."""
    return shard_file(number // SHARD)


def shard_count(runs: int) -> int:
    """How many shard files ``runs`` index rows make: ⌈runs / SHARD⌉."""
    return -(-runs // SHARD)


def _dumps(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def shared(payload: dict[str, Any], strings: dict[str, int]) -> dict[str, Any]:
    """``payload`` with every text of its meta rows and events replaced by its position in
    ``strings`` (new texts appended to it); the run id and a missing note stay literal."""

    def ref(text: str) -> int:
        return strings.setdefault(text, len(strings))

    out: dict[str, Any] = {
        "id": payload["id"],
        "meta": [[ref(k), ref(v)] for k, v in payload["meta"]],
        "events": [
            [e[0], ref(e[1]), ref(e[2]), ref(e[3]), [[ref(x) for x in t] for t in e[4]]]
            for e in payload["events"]
        ],
    }
    if "missing" in payload:
        out["missing"] = payload["missing"]
    return out


def resolved(payload: dict[str, Any], strings: Sequence[str]) -> dict[str, Any]:
    """The inverse of :func:`shared` (what the page does when a shard arrives)."""
    out: dict[str, Any] = {
        "id": payload["id"],
        "meta": [[strings[k], strings[v]] for k, v in payload["meta"]],
        "events": [
            [
                e[0],
                strings[e[1]],
                strings[e[2]],
                strings[e[3]],
                [[strings[x] for x in t] for t in e[4]],
            ]
            for e in payload["events"]
        ],
    }
    if "missing" in payload:
        out["missing"] = payload["missing"]
    return out


_HEAD = re.compile(rf"{CALLBACK}\((\d+),")


def read_shard(text: str) -> tuple[int, dict[int, dict[str, Any]]]:
    """A shard file's number and its runs by index row, strings resolved; ``ValueError``
    unless the text is exactly one call of the page's callback with two JSON literals (the
    literals are decoded, not pattern-matched: run text may hold any characters)."""
    head = _HEAD.match(text)
    if head is None:
        raise ValueError(f"not a shard file: it does not start with {CALLBACK}(k,")
    decoder = json.JSONDecoder()
    rows, end = decoder.raw_decode(text, head.end())
    if text[end : end + 1] != ",":
        raise ValueError("not a shard file: a ',' expected after the runs")
    strings, end = decoder.raw_decode(text, end + 1)
    if text[end:] != ");\n" or not isinstance(rows, dict) or not isinstance(strings, list):
        raise ValueError("not a shard file: one call with a {runs} object and a [strings] list")
    return int(head[1]), {int(n): resolved(p, strings) for n, p in rows.items()}


class ShardWriter:
    """Writes index rows ``0 … rows-1`` into shard files in row order, whatever order
    they are given in: the next row goes straight into the open shard, any other waits in
    a spool file (as JSON) until the rows before it are written. One shard file and its
    string list are open at a time; per row, memory holds a spool offset and length."""

    def __init__(self, out_dir: Path, rows: int) -> None:
        self._dir = out_dir / RUNS_DIR
        self._rows = rows
        self._next = 0  # the first row not yet in a shard
        self._offset = array("q", bytes(8 * rows))
        self._length = array("q", [-1]) * rows  # -1: not spooled
        self._spool: IO[bytes] | None = None
        self._spool_end = 0
        self._shard: IO[bytes] | None = None
        self._strings: dict[str, int] = {}

    def put(self, n: int, payload: dict[str, Any]) -> None:
        """Row ``n``'s payload (each row exactly once)."""
        if n != self._next:
            if self._spool is None:  # unnamed, beside the report: gone however this ends
                self._dir.parent.mkdir(parents=True, exist_ok=True)
                self._spool = tempfile.TemporaryFile(dir=self._dir.parent)  # noqa: SIM115
            data = _dumps(payload)
            self._spool.seek(self._spool_end)
            self._spool.write(data)
            self._offset[n], self._length[n] = self._spool_end, len(data)
            self._spool_end += len(data)
            return
        self._write(payload)
        while self._next < self._rows and self._length[self._next] >= 0:
            assert self._spool is not None
            self._spool.seek(self._offset[self._next])
            self._write(json.loads(self._spool.read(self._length[self._next])))

    def _write(self, payload: dict[str, Any]) -> None:
        n = self._next
        first = n % SHARD == 0
        if first:
            self._dir.mkdir(parents=True, exist_ok=True)
            self._shard = (self._dir / f"{n // SHARD}.js").open("wb")
            self._shard.write(f"{CALLBACK}({n // SHARD},{{".encode())
            self._strings = {}
        assert self._shard is not None
        data = _dumps(shared(payload, self._strings))
        self._shard.write(f'{"" if first else ","}"{n}":'.encode() + data)
        self._next = n + 1
        if self._next % SHARD == 0 or self._next == self._rows:
            self._shard.write(b"}," + _dumps(list(self._strings)) + b");\n")
            self._shard.close()
            self._shard = None
            self._strings = {}

    def close(self) -> None:
        """Drop the spool (every row must have been put) and any open shard."""
        if self._spool is not None:
            self._spool.close()
            self._spool = None
        if self._shard is not None:
            self._shard.close()
            self._shard = None
