"""The documentation is SSCBench's own: it cites the paper and its own sections, never a
design reference that is not in the repository."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = [*sorted((ROOT / "docs").rglob("*.md")), ROOT / "README.md"]

EXTERNAL_REFERENCE = re.compile(r"\bSPEC\s*§|earlier design reference|section map for maintainers")
"""How a conversion from a design document outside the repository shows: its section
numbers (``SPEC §N``) or a table translating them."""


def test_no_document_refers_to_a_design_reference_outside_the_repository() -> None:
    sources = DOCS + sorted((ROOT / "sscbench").rglob("*.py"))
    cited = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in sources
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if EXTERNAL_REFERENCE.search(line)
    ]
    assert cited == [], cited
