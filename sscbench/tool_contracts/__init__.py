"""Executable tool contracts: a conformance audit of τ²'s mutating tools.

Contracts (YAML data, one per tool) → static scan (candidates) → dynamic checker
(CONFORMS / VIOLATES / UNTESTABLE per clause, defect class by rule) → score-at-risk
(which graders read what a defect touches) → checker reliability on injected mutants.
See ``docs/tool-contracts.md``.
"""
