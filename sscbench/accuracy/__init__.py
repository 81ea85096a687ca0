"""Measuring reconstruction against labelled items: counterfactual items from real runs."""
