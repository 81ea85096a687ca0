"""Built-in use-rule sets, one per reference operator, registered on import."""

from sscbench.reconstruct.rules import (
    expiry,
    item_option,
    pay_source,
    return_date,
    transport,
    write_effect,
)

__all__ = ["expiry", "item_option", "pay_source", "return_date", "transport", "write_effect"]
