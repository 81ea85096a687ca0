"""The event reconstructor as an oracle (so its numbers sit in the same table).

On faulted runs it is ``label_run``: ``A`` and ``T_U`` as reconstructed, abstaining where
adoption is undecidable, answering "no" where the fault never reached the model. On a
clean control it does what ``label_run`` does before any use rule runs: it asks whether
the paired contract's fault-bearing observation was delivered *and* confirmed by the
run's intervention log. The log is an input the reconstructor legitimately has (it may
confirm, never establish, a delivery); in a clean run it records no fault, so nothing can
have been adopted.
"""

from __future__ import annotations

from collections.abc import Mapping

from sscbench.fault_contracts.hidden_log import read_fault_deliveries
from sscbench.oracles.base import OracleSetting, Trajectory, Verdict, history_of, register_oracle
from sscbench.reconstruct.label import fault_step, label_ledger
from sscbench.reconstruct.labels import RunLabels
from sscbench.runs.episode import HIDDEN_FILE


def _confirmed_deliveries(trajectory: Trajectory) -> int:
    return len(read_fault_deliveries(trajectory.run_dir / HIDDEN_FILE) or ())


class ReconstructorOracle:
    """docs/measurement.md §5 reconstruction with the operators' rules."""

    name = "reconstructor"

    def __init__(self) -> None:
        self._known: Mapping[str, RunLabels] = {}

    def reuse(self, labels: Mapping[str, RunLabels]) -> None:
        """Take the labels (by run id) the calling command already reconstructed with the
        operators' rules, instead of labelling those runs a second time."""
        self._known = labels

    def judge(self, trajectory: Trajectory) -> Verdict:
        """``A`` and ``T_U`` from the reconstruction."""
        if trajectory.clean:
            step = fault_step(trajectory.contract, history_of(trajectory))
            if step is None or not _confirmed_deliveries(trajectory):
                return Verdict(adopted=False, reason="no fault delivery (intervention log)")
            return Verdict(adopted=None, reason=f"a clean run's log shows a fault at {step}")
        labels = self._known.get(trajectory.ledger.header.run_id) or label_ledger(
            trajectory.run_dir, trajectory.ledger
        )
        if labels.triggered is False:
            return Verdict(adopted=False, reason="not triggered: " + labels.triggered_reason)
        t_u = labels.t_u.step if labels.t_u.status == "found" else None
        return Verdict(adopted=labels.adopted, t_u=t_u, reason=labels.adopted_reason[:200])


@register_oracle(
    "reconstructor",
    OracleSetting(
        baseline="—",
        method="SSCBench event reconstruction",
        information="fault contract, operator use rules, intervention log",
        positive="A = 1",
    ),
)
def reconstructor() -> ReconstructorOracle:
    """Factory (no parameters)."""
    return ReconstructorOracle()
