"""The report's observation-contract section: primary labels by severity, per operator and
configuration (every repetition), beside the adoption-by-arrival tables.

Shown only when some run carries a ``contract_label`` (the Expiry and Transport operators,
:mod:`sscbench.reconstruct.contract_labels`); otherwise the report is unchanged.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from sscbench.analysis.templating import render
from sscbench.reconstruct.contract_labels import SEVERITY
from sscbench.reconstruct.labels import LabelView

TITLE = "Observation contracts"


def contract_label_section(labels: Sequence[LabelView]) -> str:
    """The section's body (``templates/contracts.html.j2``), or ``""`` when no run has an
    observation-contract label."""
    counts: Counter[tuple[str, str, str]] = Counter()
    for label in labels:
        if label.contract_label is not None and label.operator is not None:
            primary = str(label.contract_label.get("primary"))
            counts[(label.operator, label.configuration or label.agent, primary)] += 1
    if not counts:
        return ""
    order = [name for name, _ in SEVERITY]
    rows = [
        [op, config, *(str(counts[(op, config, name)]) for name in order)]
        for op, config in sorted({(o, c) for o, c, _ in counts})
    ]
    return render(
        "contracts.html.j2",
        caption="Primary observation-contract label per run (every repetition)",
        head=["operator", "configuration", *order],
        rows=rows,
    ).strip()
