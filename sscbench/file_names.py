"""Names that stay within the file system's limit.

Most file systems refuse a single name over 255 bytes. τ² telecom task ids spell out every
fault the task combines, so a case id built on one (and a run id built on the case id, an
agent and a seed) can pass that limit: the run then dies at ``mkdir`` with "File name too
long", or a case set cannot be written at all. A name longer than :data:`MAX_NAME` keeps
its first characters, readable, and ends with ``.h`` plus 12 hex digits of the SHA-256 of
the full text, so two long ids that share their beginning still get different names.
Every shorter name — every airline and retail id, and every earlier telecom id — is left
as it was, so existing case files and run directories keep their names.
"""

from __future__ import annotations

import hashlib

MAX_NAME = 192
"""Characters kept for a case's or run's name, hash included: room is left for what is
appended (``.witness.json``, ``-<agent>+<mitigation>-s<seed>``, ``.incomplete-N``)."""
_DIGITS = 12


def bounded(name: str, full: str, limit: int = MAX_NAME) -> str:
    """``name`` unchanged when at most ``limit`` characters, else its start and a hash of
    ``full`` (the text ``name`` was derived from) in ``limit`` characters."""
    if len(name) <= limit:
        return name
    digest = hashlib.sha256(full.encode("utf-8")).hexdigest()[:_DIGITS]
    return f"{name[: limit - _DIGITS - 2]}.h{digest}"
