"""The Inspect tests need the ``inspect`` extra; CI (SSCBENCH_REQUIRE_EXTRAS=1) makes a
missing extra a failure instead of a skip."""

from __future__ import annotations

import importlib.util
import os

import pytest

REQUIRED = os.environ.get("SSCBENCH_REQUIRE_EXTRAS") == "1"
if importlib.util.find_spec("inspect_ai") is None and REQUIRED:
    pytest.fail("the Inspect tests must run here: pip install 'sscbench[inspect]'", pytrace=False)
