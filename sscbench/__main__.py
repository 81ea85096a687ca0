"""``python -m sscbench``: the same command line as the ``sscbench`` script, for environments
where the script is not on ``PATH`` (a venv that is not activated, a notebook kernel)."""

import sys

from sscbench.cli.main import entry

sys.exit(entry())
