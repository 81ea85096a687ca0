"""Moved to :mod:`sscbench.records.hidden` (records sit below every other layer); this name
keeps third-party plugins written against earlier versions importing."""

from sscbench.records.hidden import *  # noqa: F403
