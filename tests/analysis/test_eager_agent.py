"""``scripted:eager`` (confirm with the user first, read back later) fills the strata the
other scripted agents leave empty: WriteEffect runs whose refutation arrives *after* the
first use, and PaySource runs with a dependent use at all."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from sscbench.cases.caseset import load_case_set
from sscbench.experiments.inline import run_case_set
from sscbench.reconstruct.label import label_dir
from sscbench.reconstruct.validate import validate_dir


def test_eager_agent_reaches_the_after_stratum_and_uses_payment_categories(
    tmp_path: Path,
) -> None:
    shipped = load_case_set()
    write_effect = shipped.by_operator("write_effect")[:3]
    pay_source = [c for c in shipped.by_operator("pay_source") if c.entry.case_id.endswith("/0")]
    pay_source = (pay_source or shipped.by_operator("pay_source"))[:6]
    cases = dataclasses.replace(shipped, cases=tuple(write_effect + pay_source))
    run_case_set(cases, ["scripted:eager"], tmp_path)
    labels = label_dir(tmp_path)
    by_operator: dict[str, list[str | None]] = {}
    for x in labels:
        by_operator.setdefault(str(x.operator), []).append(x.z_s)
    assert by_operator["write_effect"] == ["after"] * len(write_effect)
    used = [x for x in labels if x.operator == "pay_source" and x.t_s.status == "found"]
    assert used and all(x.adopted for x in used)
    # The reconstruction agrees with the agent's private truth on the uses it made.
    agreement, _ = validate_dir(tmp_path, labels)
    assert [m for m in agreement.mismatches if m[1] in ("t_s", "t_u", "adopted")] == []
