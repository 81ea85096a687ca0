"""API roots: which one a participant really talks to, and that none carries a secret.

With ``base_url`` unset the SDKs read ``OPENAI_BASE_URL`` / ``ANTHROPIC_BASE_URL``; the
provider layer resolves that itself, so the endpoint recorded in the ledger header is the
one the requests went to. A key belongs in the environment variable named by
``api_key_env``: a URL is copied into headers, logs and error messages, so one that seems
to carry a credential is refused (:func:`check_base_url`).
"""

from __future__ import annotations

import os
import re
from urllib.parse import parse_qsl, urlsplit

from sscbench.errors import ConfigError

DEFAULT_ROOTS = {
    "openai": ("OPENAI_BASE_URL", "https://api.openai.com/v1"),
    "anthropic": ("ANTHROPIC_BASE_URL", "https://api.anthropic.com"),
}
"""Per SDK: the environment variable it falls back on and its built-in root."""

SECRET_PARAM = re.compile(
    r"(?:^|[-_.])(?:key|apikey|token|secret|password|passwd|pwd|auth|authorization|"
    r"credential|credentials|signature|sig)$",
    re.IGNORECASE,
)
"""Query parameter names that carry credentials (``api_key``, ``key``, ``access_token``,
``x-api-key``, ``sig``, ...), matched on the whole name or its last ``-``/``_``/``.`` part."""

SECRET_VALUE = re.compile(
    r"^(?:sk-|sk_|pk-|rk-|xai-|gsk_|hf_|AIza|AKIA)"  # known key prefixes
    r"|^(?=.*[A-Za-z])(?=.*\d)[A-Za-z0-9_\-+/=.]{24,}$"  # long, letters and digits
)
"""Values that look like a key: a known key prefix, or 24+ characters of letters and digits
(``api-version=2024-06-01`` and ``mode=fast`` pass)."""


def check_base_url(url: str) -> None:
    """Raise ``ValueError`` (a configuration error) if ``url`` seems to carry a credential.

    The message never repeats the offending value.
    """
    parts = urlsplit(url)
    if "@" in parts.netloc:
        raise ValueError("base_url must not embed credentials (user:password@); use api_key_env")
    for name, value in parse_qsl(parts.query, keep_blank_values=True):
        if SECRET_PARAM.search(name) or SECRET_VALUE.search(value):
            raise ValueError(
                f"base_url query parameter {name!r} looks like a credential; put the key in "
                "an environment variable and name it with api_key_env"
            )


def resolved_base_url(sdk: str, configured: str | None) -> str:
    """The API root requests go to: ``configured``, else the SDK's environment variable,
    else its built-in root. An environment value is checked like a configured one (a
    :class:`ConfigError` naming the variable)."""
    if configured:
        return configured
    env, default = DEFAULT_ROOTS[sdk]
    value = os.environ.get(env, "").strip()
    if not value:
        return default
    try:
        check_base_url(value)
    except ValueError as exc:
        raise ConfigError(f"environment variable {env}: {exc}") from None
    return value
