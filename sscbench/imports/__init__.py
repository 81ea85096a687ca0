"""Bring runs recorded by other harnesses into SSCBench ledgers (today: τ² results)."""

from sscbench.imports.tau2_results import ImportRecord, ImportSummary, import_tau2_results

__all__ = ["ImportRecord", "ImportSummary", "import_tau2_results"]
