"""Moved to :mod:`sscbench.records.ledger` (records sit below every other layer); this name
keeps third-party plugins written against earlier versions importing."""

from sscbench.records.ledger import *  # noqa: F403
