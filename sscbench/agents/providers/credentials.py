"""API keys: read from the environment at the last moment, never stored, never written.

Configurations name the environment *variable* (``api_key_env``); the value is read only
when a request must actually go out, so a run replayed from the response cache needs no
key at all. Anything provider-supplied that is written somewhere (error messages) passes
through :func:`redact` first.
"""

from __future__ import annotations

import os
import re

from sscbench.errors import ConfigError

ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
"""What an environment variable name looks like; a pasted key (``sk-…``) does not match."""

REDACTED = "[REDACTED]"


def read_api_key(env_name: str) -> str:
    """The key held in ``env_name``, or a :class:`ConfigError` saying which variable to set."""
    value = os.environ.get(env_name, "")
    if not value.strip():
        raise ConfigError(
            f"environment variable {env_name} is not set; export your API key there "
            "(see docs/providers.md), or replay the run from a response cache"
        )
    return value


def redact(text: str, secret: str | None) -> str:
    """``text`` with every occurrence of ``secret`` replaced (a no-op without a secret)."""
    if not secret:
        return text
    return text.replace(secret, REDACTED)
