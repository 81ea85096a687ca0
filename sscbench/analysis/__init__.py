"""Analysis of reconstructed labels: populations, quantities, intervals, report."""
