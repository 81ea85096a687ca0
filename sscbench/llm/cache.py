"""On-disk response cache: the same canonical request replays the same reply, offline.

The key is the sha256 of the canonical JSON of everything that determines the reply
(provider, model, messages, tools, decoding settings, episode seed) and of nothing else;
the API key, base URL, timeouts and retry settings are not part of it. Each entry is one
JSON file written to a temporary name and moved into place with :func:`os.replace`, so a
crash never leaves a half-written entry and concurrent writers of the same key are safe.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any

CACHE_SCHEMA = 1


def canonical_json(value: Any) -> str:
    """Sorted keys, no whitespace, UTF-8 kept: one text per value."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def request_hash(canonical: Mapping[str, Any]) -> str:
    """The cache key of a canonical request."""
    return hashlib.sha256(canonical_json(canonical).encode()).hexdigest()


class CacheWarning(UserWarning):
    """A cache entry could not be read; it is treated as a miss and rewritten."""


class ResponseCache:
    """Raw provider responses under ``root/<2 hex>/<sha256>.json``."""

    def __init__(self, root: Path | str) -> None:
        self.root = Path(root).expanduser()

    def path(self, key: str) -> Path:
        """Where the entry for ``key`` lives."""
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        """The cached raw response for ``key``, or None."""
        path = self.path(key)
        try:
            entry = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as exc:
            warnings.warn(f"unreadable cache entry {path}: {exc}", CacheWarning, stacklevel=2)
            return None
        if not isinstance(entry, dict) or entry.get("request_hash") != key:
            warnings.warn(f"cache entry {path} does not match its key", CacheWarning, stacklevel=2)
            return None
        response = entry.get("response")
        return response if isinstance(response, dict) else None

    def put(self, key: str, response: Mapping[str, Any], **meta: str) -> None:
        """Store ``response`` for ``key`` atomically (temp file + ``os.replace``)."""
        path = self.path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        entry = {"schema": CACHE_SCHEMA, "request_hash": key, **meta, "response": response}
        fd, tmp = tempfile.mkstemp(prefix=f".{key[:12]}.", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(canonical_json(entry))
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
