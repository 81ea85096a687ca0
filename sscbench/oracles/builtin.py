"""Importing this module registers the built-in oracles."""

from sscbench.oracles import anomaly, db_invariant, diagnosis, llm_judge, reconstructor

__all__ = ["anomaly", "db_invariant", "diagnosis", "llm_judge", "reconstructor"]
