"""Auditing the grader itself: oracle-integrity checks, injected grader defects, replay
re-scoring of recorded runs (see docs/grader-audit.md)."""
