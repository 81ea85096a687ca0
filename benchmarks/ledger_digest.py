"""What the status line's ledger digest costs: read back after the run (before) against
hashed while the lines are written (now), over every ledger of a run folder.

Both sides run in this one process, alternating ledger by ledger, in CPU time
(``time.process_time``); the read-back side reads each file as the old ``ledger_digest``
did (warm page cache: the file was just written), the written side hashes the same lines
one ``update`` per line as :class:`sscbench.records.ledger.JsonlWriter` now does.

    .venv/bin/python benchmarks/ledger_digest.py RUNS_DIR [--rounds 5]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import statistics
import time
from pathlib import Path

LEDGER_FILE = "ledger.jsonl"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", type=Path, help="a folder of run directories (e.g. a demo's)")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    paths = sorted(args.runs.rglob(LEDGER_FILE))
    lines = [p.read_bytes().splitlines(keepends=True) for p in paths]
    clock = time.process_time
    read_back: list[float] = []
    written: list[float] = []
    for r in range(args.rounds):
        a = b = 0.0
        for i, (path, chunks) in enumerate(zip(paths, lines, strict=True)):
            for side in (0, 1) if (i + r) % 2 == 0 else (1, 0):
                t0 = clock()
                if side == 0:
                    hashlib.sha256(path.read_bytes()).hexdigest()
                else:
                    h = hashlib.sha256()
                    for chunk in chunks:
                        h.update(chunk)
                    h.hexdigest()
                if side == 0:
                    a += clock() - t0
                else:
                    b += clock() - t0
        read_back.append(a / len(paths) * 1e6)
        written.append(b / len(paths) * 1e6)
    size = statistics.mean(p.stat().st_size for p in paths)
    print(
        f"{len(paths)} ledgers (mean {size / 1024:.1f} KiB), {args.rounds} rounds, load average "
        f"{os.getloadavg()[0]:.1f}: read back {statistics.median(read_back):.1f} CPU µs per "
        f"ledger, hashed while written {statistics.median(written):.1f} CPU µs per ledger"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
