"""API keys: read from the environment at the last moment, never stored, never written.

Configurations name the environment *variable* (``api_key_env``); the value is read only
when a request must actually go out, so a run replayed from the response cache needs no
key at all. Every key read is registered with the ledger writer, and every response is
redacted (:func:`redact_json`) the moment it arrives, before it is parsed, cached or shown
to anyone: a model that echoes its key (or another participant's) leaves no trace of it.
"""

from __future__ import annotations

import os
import re
from typing import Any

from sscbench.errors import ConfigError
from sscbench.records.ledger import REDACTED, redact_secrets, register_secret

ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
"""What an environment variable name looks like; a pasted key (``sk-…``) does not match."""

__all__ = ["ENV_NAME", "REDACTED", "read_api_key", "redact", "redact_json"]


def read_api_key(env_name: str) -> str:
    """The key held in ``env_name``, or a :class:`ConfigError` saying which variable to set."""
    value = os.environ.get(env_name, "")
    if not value.strip():
        raise ConfigError(
            f"environment variable {env_name} is not set; export your API key there "
            "(see docs/providers.md), or replay the run from a response cache"
        )
    register_secret(value)
    return value


def redact(text: str, secret: str | None = None) -> str:
    """``text`` without ``secret`` and without any key read so far in this process."""
    if secret:
        text = text.replace(secret, REDACTED)
    return redact_secrets(text)


def redact_json(value: Any) -> Any:
    """A JSON value with every string (keys included) passed through :func:`redact`."""
    if isinstance(value, str):
        return redact_secrets(value)
    if isinstance(value, dict):
        return {redact_secrets(str(k)): redact_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [redact_json(v) for v in value]
    return value
