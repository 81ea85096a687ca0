"""Automatic oracles scored against the adjudicated human reference (docs/measurement.md §7).

An oracle maps a trajectory to (adoption verdict or abstention, ``T_U`` step). Built-ins:
the event reconstructor, a database-invariant checker and an LLM judge at two information
levels; more arrive as ``sscbench.oracles`` entry-point plugins.
"""

from sscbench.oracles.base import (
    ORACLES,
    Oracle,
    OracleUnavailable,
    Trajectory,
    Verdict,
    make_oracle,
    oracle_names,
)

__all__ = [
    "ORACLES",
    "Oracle",
    "OracleUnavailable",
    "Trajectory",
    "Verdict",
    "make_oracle",
    "oracle_names",
]
