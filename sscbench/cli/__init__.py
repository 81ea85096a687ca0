"""Command-line interface (``sscbench``)."""
