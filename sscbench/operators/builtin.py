"""Import the built-in operators so they register themselves."""

from sscbench.operators import (
    ignored_argument,
    invariant_break,
    item_option,
    partial_effect,
    pay_source,
    return_date,
    unenforced_precondition,
    write_effect,
)

__all__ = [
    "ignored_argument",
    "invariant_break",
    "item_option",
    "partial_effect",
    "pay_source",
    "return_date",
    "unenforced_precondition",
    "write_effect",
]
