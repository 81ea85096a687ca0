"""Moved to :mod:`sscbench.records.events` (records sit below every other layer); this name
keeps third-party plugins written against earlier versions importing."""

from sscbench.records.events import *  # noqa: F403
