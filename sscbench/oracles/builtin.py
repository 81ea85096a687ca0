"""Importing this module registers the built-in oracles."""

from sscbench.oracles import db_invariant, llm_judge, reconstructor

__all__ = ["db_invariant", "llm_judge", "reconstructor"]
