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


def _block(path: Path, name: str) -> str:
    """The text between ``<!-- NAME: start -->`` and ``<!-- NAME: end -->``, blockquote
    markers and line breaks removed."""
    text = path.read_text(encoding="utf-8")
    start = text.index(f"<!-- {name}: start -->") + len(f"<!-- {name}: start -->")
    body = text[start : text.index(f"<!-- {name}: end -->")]
    return " ".join(line.removeprefix(">").strip() for line in body.strip().splitlines())


def test_every_labeller_gets_the_definition_of_use_the_measurement_page_states() -> None:
    """One construct: the reconstructor's documented definition (docs/measurement.md §2.4)
    is, word for word, what the LLM classifier and both LLM judges are told."""
    from sscbench.oracles.llm_judge import INSTRUCTIONS as JUDGE
    from sscbench.reconstruct.definition import USE_DEFINITION
    from sscbench.reconstruct.llm_classifier import INSTRUCTIONS as CLASSIFIER

    documented = _block(ROOT / "docs" / "measurement.md", "use-definition")
    assert documented == " ".join(USE_DEFINITION.split())
    for prompt in (JUDGE, CLASSIFIER):
        assert USE_DEFINITION in prompt
        # Nothing beside it redefines a use (the judge once counted "ending the
        # conversation as if it held", which the labelling rules do not).
        rest = prompt.replace(USE_DEFINITION, "")
        assert "dependent use of the fact" not in rest.lower()
        assert "as if it held" not in rest
