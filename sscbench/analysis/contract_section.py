"""The report's observation-contract section: primary labels by severity, per operator and
configuration (every repetition), beside the adoption-by-arrival tables.

Shown only when some run carries a ``contract_label`` (the Expiry and Transport operators,
:mod:`sscbench.reconstruct.contract_labels`); otherwise the report is unchanged.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from html import escape

from sscbench.reconstruct.contract_labels import SEVERITY
from sscbench.reconstruct.labels import RunLabels

TITLE = "Observation contracts"


def contract_label_section(labels: Sequence[RunLabels]) -> str:
    """The section's HTML, or ``""`` when no run has an observation-contract label."""
    counts: Counter[tuple[str, str, str]] = Counter()
    for label in labels:
        if label.contract_label is not None and label.operator is not None:
            primary = str(label.contract_label.get("primary"))
            counts[(label.operator, label.configuration or label.agent, primary)] += 1
    if not counts:
        return ""
    order = [name for name, _ in SEVERITY]
    head = "".join(f"<th>{escape(name)}</th>" for name in order)
    rows = []
    for op, config in sorted({(o, c) for o, c, _ in counts}):
        cells = "".join(f"<td>{counts[(op, config, name)]}</td>" for name in order)
        rows.append(f"<tr><td>{escape(op)}</td><td>{escape(config)}</td>{cells}</tr>")
    return (
        f'<section id="contracts"><h2>{TITLE}</h2><p class="note">One primary label per run, '
        "by severity: validity (EXPIRED_BEFORE_USE) before integrity (MUTATED_TOKEN) before "
        "meta (OTHER, SUCCESS); a later success never offsets a violation. Every repetition "
        "counts. Beside these, the tables above give the same runs' arrival and adoption.</p>"
        f"<table><thead><tr><th>operator</th><th>configuration</th>{head}</tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table></section>"
    )
