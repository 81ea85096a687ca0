"""Import the four reference operators so they register themselves."""

from sscbench.operators import item_option, pay_source, return_date, write_effect

__all__ = ["item_option", "pay_source", "return_date", "write_effect"]
