"""Import the reference operators so they register themselves."""

from sscbench.operators import (
    expiry,
    item_option,
    pay_source,
    return_date,
    transport,
    write_effect,
)

__all__ = [
    "expiry",
    "item_option",
    "pay_source",
    "return_date",
    "transport",
    "write_effect",
]
