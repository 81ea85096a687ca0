"""The case-set stage after screening: the final semantic review of included cases.

Screening (validity, witnesses, sampling in frozen order) decides what is *checkable*; the
final semantic review asks people what checks cannot: does the task really concern the
target, is the refuting evidence authoritative, is it sufficient as the agent would see it,
and is the fault scoped to the right entity and request. A case that fails is replaced by
the next candidate in the same frozen order (``sscbench build --semantic-review``).
"""
