"""The case-set stage: sampling, target-value controls, the frozen manifest, loading, and
the final semantic review of included cases.

Screening (validity, witnesses from :mod:`sscbench.witnesses`, sampling in frozen order)
decides what is *checkable* (``build``); the manifest pins what was built and loading
checks every file against it (``caseset``); the final semantic review asks people what
checks cannot — does the task really concern the target, is the refuting evidence
authoritative, is it sufficient as the agent would see it, is the fault scoped to the
right entity and request — and a case that fails is replaced by the next candidate in the
same frozen order (``sscbench build --semantic-review``).
"""
