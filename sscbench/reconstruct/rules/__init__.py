"""Built-in use-rule sets, one per reference operator, registered on import."""

from sscbench.reconstruct.rules import (
    item_option,
    pay_source,
    return_date,
    tool_defects,
    write_effect,
)

__all__ = ["item_option", "pay_source", "return_date", "tool_defects", "write_effect"]
