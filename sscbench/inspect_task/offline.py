"""Inspect counts tokens with tiktoken, whose encodings are fetched from the network on first
use; τ²'s own dependency litellm ships the common ones. Pointing tiktoken's cache at them
(unless the user chose a cache) keeps Inspect runs offline."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

CACHE_VARIABLE = "TIKTOKEN_CACHE_DIR"


def use_bundled_tokenizers() -> None:
    """Set ``TIKTOKEN_CACHE_DIR`` to litellm's bundled encodings when it is unset (litellm is
    located, not imported: importing it costs seconds)."""
    if os.environ.get(CACHE_VARIABLE):
        return
    spec = importlib.util.find_spec("litellm")
    if spec is None or spec.origin is None:
        return
    bundled = Path(spec.origin).parent / "litellm_core_utils" / "tokenizers"
    if bundled.is_dir():
        os.environ[CACHE_VARIABLE] = str(bundled)
