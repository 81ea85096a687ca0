"""``scripted:eager`` (recap and confirm with the user first, read back later) fills the
strata the other scripted agents leave empty: WriteEffect and ItemOption runs whose
refutation arrives *after* the first use, and PaySource runs with a dependent use at all —
and the reconstruction agrees with its private truth on every quantity, ``Y_end`` included
(a retried write whose effect the record has since shown, stated again, retracts the
earlier false report)."""

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
    # The option "skin tone" has a space in its name: the recap states it by its record path.
    item_option = [
        c
        for c in shipped.by_operator("item_option")
        if c.entry.case_id
        in ("item_option/retail/20/#W9911714/3", "item_option/retail/0/#W2378156/3")
    ]
    assert len(item_option) == 2
    cases = dataclasses.replace(shipped, cases=tuple(write_effect + item_option + pay_source))
    run_case_set(cases, ["scripted:eager"], tmp_path)
    labels = label_dir(tmp_path)
    by_operator: dict[str, list[str | None]] = {}
    for x in labels:
        by_operator.setdefault(str(x.operator), []).append(x.z_s)
    assert by_operator["write_effect"] == ["after"] * len(write_effect)
    assert by_operator["item_option"] == ["after"] * len(item_option)
    used = [x for x in labels if x.operator == "pay_source" and x.t_s.status == "found"]
    assert used and all(x.adopted for x in used)
    # The reconstruction agrees with the agent's private truth on the uses it made.
    agreement, _ = validate_dir(tmp_path, labels)
    assert agreement.mismatches == []
    assert agreement.compared["y_end"] >= len(write_effect)
