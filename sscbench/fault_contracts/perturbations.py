"""The five transport perturbations: how an artifact (an id, a link) arrives damaged.

Each is a deterministic function of the artifact's text and a seeded generator, after
*ContractBench*'s list: truncation at a length limit, an inserted newline, URL
re-encoding, query-parameter reordering, and display text that differs from the link.
A perturbation that cannot change a given text (no reserved character to re-encode, fewer
than two query parameters, no display form) returns ``None`` — the candidate is then
rejected as not applicable rather than injected as a no-op.

Integrity is judged by SHA-256 of the artifact *as issued*: an argument is intact when its
digest equals the issued artifact's (:func:`digest`), byte for byte.
"""

from __future__ import annotations

import hashlib
import random
from typing import Literal
from urllib.parse import quote, unquote, urlsplit, urlunsplit

PerturbationKind = Literal["truncation", "newline", "url_reencode", "query_reorder", "display_text"]
KINDS: tuple[PerturbationKind, ...] = (
    "truncation",
    "newline",
    "url_reencode",
    "query_reorder",
    "display_text",
)


def digest(text: str) -> str:
    """SHA-256 of an artifact's UTF-8 bytes."""
    return hashlib.sha256(text.encode()).hexdigest()


def truncate(text: str, rng: random.Random, limit: int | None = None) -> str | None:
    """Cut at a length limit (drawn in the last third of the text unless given)."""
    if len(text) < 2:
        return None
    if limit is None:
        limit = rng.randint(max(1, (2 * len(text)) // 3), len(text) - 1)
    return text[:limit] if 0 < limit < len(text) else None


def insert_newline(text: str, rng: random.Random) -> str | None:
    """A line break inside the text, never at either end (a trailing one strips away)."""
    if len(text) < 2:
        return None
    at = rng.randint(1, len(text) - 1)
    return f"{text[:at]}\n{text[at:]}"


def reencode(text: str) -> str | None:
    """Percent-decode an encoded text, or percent-encode its reserved characters
    (``#W5918442`` → ``%23W5918442``); in a URL, scheme, host and separators are kept."""
    decoded = unquote(text)
    if decoded != text:
        return decoded
    safe = ":/?&=" if "://" in text else ""
    encoded = quote(text, safe=safe)
    return encoded if encoded != text else None


def reorder_query(text: str, rng: random.Random) -> str | None:
    """The same query parameters, each byte for byte, in another order (a signed URL's
    bytes change though every parameter is intact)."""
    parts = urlsplit(text)
    pairs = [p for p in parts.query.split("&") if p]
    if len(set(pairs)) < 2:
        return None
    order = list(range(len(pairs)))
    while [pairs[i] for i in order] == pairs:
        rng.shuffle(order)
    return urlunsplit(parts._replace(query="&".join(pairs[i] for i in order)))


def perturb(
    kind: PerturbationKind,
    text: str,
    rng: random.Random,
    *,
    display: str | None = None,
    limit: int | None = None,
) -> str | None:
    """The damaged form of ``text`` under ``kind`` (``None``: the kind does not apply).

    ``display_text`` needs the display form the channel shows instead of the target (a
    payment method's "Visa ending 7815", a link's label)."""
    if kind == "truncation":
        return truncate(text, rng, limit)
    if kind == "newline":
        return insert_newline(text, rng)
    if kind == "url_reencode":
        return reencode(text)
    if kind == "query_reorder":
        return reorder_query(text, rng)
    return display if display and display != text else None
