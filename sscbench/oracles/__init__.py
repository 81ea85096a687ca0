"""Automatic oracles scored against the adjudicated human reference (docs/measurement.md §7).

An oracle maps a trajectory to (adoption verdict or abstention, ``T_U`` step). Built-ins:
the event reconstructor, a trajectory anomaly detector (B1), LLM judges at two information
levels (B2), failure diagnosis in two settings (B3), all-at-once failure attribution (B4)
and a database-invariant checker (B5); more arrive as ``sscbench.oracles`` entry-point
plugins, registered with :func:`register_oracle` so that their setting is declared too.
"""

from sscbench.oracles.base import (
    ORACLES,
    Oracle,
    OracleSetting,
    OracleUnavailable,
    Trajectory,
    Verdict,
    make_oracle,
    oracle_names,
    oracle_setting,
    register_oracle,
)

__all__ = [
    "ORACLES",
    "Oracle",
    "OracleSetting",
    "OracleUnavailable",
    "Trajectory",
    "Verdict",
    "make_oracle",
    "oracle_names",
    "oracle_setting",
    "register_oracle",
]
