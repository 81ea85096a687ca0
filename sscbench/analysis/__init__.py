"""Analysis of reconstructed labels: populations, quantities, intervals, report."""

from sscbench.analysis.population import SENSITIVITIES, RunKey, build_population
from sscbench.analysis.quantities import POOLED, analyze, analyze_all
from sscbench.analysis.results import AnalysisResult
from sscbench.reconstruct.labels import read_labels

__all__ = [
    "POOLED",
    "SENSITIVITIES",
    "AnalysisResult",
    "RunKey",
    "analyze",
    "analyze_all",
    "build_population",
    "read_labels",
]
