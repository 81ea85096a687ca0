"""LineUsage: the billing cycle's usage record shows the line's true data usage.

The fault-bearing observation is the line record (``get_details_by_id``) showing ``v′`` as
its ``data_used_gb``. The refuting observation is ``get_data_usage`` for the same line —
the tool documented as the line's current billing cycle usage — showing ``v``. It is
another tool (the fault rewrites only the line record, on every delivery, so a re-read of
the line cannot refute it), about the same line and the same cycle, and it states the
same quantity. No agent tool sets a line's usage (refuelling adds to ``data_refueling_gb``,
not to ``data_used_gb``), so the whole run is one state and a usage record read before the
misread refutes it too. The customer's words never refute it: the device shows no usage
figure.
"""

from __future__ import annotations

from typing import Any

from sscbench.fault_contracts.contract import FaultContract
from sscbench.fault_contracts.history import History
from sscbench.fault_contracts.refutation import RELATIONS, Arrival, RelationNeeds, declare_needs

LINE_READ = "get_details_by_id"
USAGE_READ = "get_data_usage"


def _gb(value: Any) -> float | None:
    """A usage figure as τ² shows it: a number in the line record, a string in the usage
    record (``"8.7"``)."""
    if isinstance(value, bool):
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


@RELATIONS.register("usage_record")
def usage_record(contract: FaultContract, history: History) -> Arrival:
    """First usage record of the line showing its true usage, once a misread exists."""
    p: dict[str, Any] = contract.refutation.params
    line, true, injected = p["line_id"], float(p["true_used"]), float(p["injected_used"])
    fault = next(
        (
            d
            for d in history.successes(LINE_READ)
            if isinstance(d.data, dict)
            and d.data.get("line_id") == line
            and _gb(d.data.get("data_used_gb")) == injected
        ),
        None,
    )
    if fault is None:
        return Arrival.never(f"no delivered record of line {line} shows {injected} GB used")
    for d in history.successes(USAGE_READ):
        if not isinstance(d.data, dict) or d.data.get("line_id") != line:
            continue
        shown = _gb(d.data.get("data_used_gb"))
        if shown is None:
            return Arrival.undecidable(f"usage record of {line} at step {d.step} has no figure")
        if shown == true:
            return Arrival.found(
                d.step,
                (fault.step, d.step),
                f"the usage record of {line} at step {d.step} shows {true} GB used, not the "
                f"{injected} GB of the line record at step {fault.step}",
            )
    return Arrival.never(f"no usage record of line {line} was read")


declare_needs(
    "usage_record",
    RelationNeeds(
        params=("line_id", "true_used", "injected_used"),
        acquisitions=("cross_record",),
        entity=("line_id",),
    ),
)
