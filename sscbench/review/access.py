"""Reviewer tokens: who may read and write what on the annotation server.

Each reviewer (and the adjudicator) gets a random secret. The reviewer's URL carries it in
the fragment (``#token=…``), which browsers never send to a server, put in a ``Referer``
or write to an access log; the page sends it in the ``X-Review-Token`` header, which a
page on another origin cannot set without a CORS preflight the server never grants.

The review directory keeps only SHA-256 digests (``access.json``); the URLs themselves go
to ``reviewer-urls.txt``. Both files are created with mode 0600 (owner only): whoever can
read the URLs can label as anyone. Presented tokens are hashed and compared with every
digest in constant time, so neither the comparison nor the lookup depends on how much of
a guess was right.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from sscbench.errors import ConfigError
from sscbench.review.labels import NAME

ACCESS_FILE = "access.json"
URLS_FILE = "reviewer-urls.txt"
TOKEN_HEADER = "x-review-token"
DEFAULT_URL = "http://127.0.0.1:8765/"
MAX_TOKEN_LENGTH = 128
"""A presented token longer than this is refused before hashing."""

Role = Literal["reviewer", "adjudicator"]


class Grant(BaseModel):
    """One reviewer's access: their name, role and the digest of their token."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    reviewer: str = Field(pattern=NAME.pattern)
    role: Role
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")


class Access(BaseModel):
    """``access.json``: every grant of a review directory."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    grants: tuple[Grant, ...]


def digest(token: str) -> str:
    """The stored form of a token."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def write_private(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` readable by its owner only (mode 0600), replacing any
    previous file atomically; the mode is set before a byte is written."""
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.unlink(missing_ok=True)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        os.fchmod(fh.fileno(), 0o600)
        fh.write(text)
    tmp.replace(path)


def check_names(reviewers: Sequence[str], adjudicator: str, base_url: str) -> None:
    """Refuse bad reviewer names or URL before anything is written."""
    names = [*reviewers, adjudicator]
    if not reviewers:
        raise ConfigError("--reviewers needs at least one name")
    for name in names:
        if not NAME.fullmatch(name):
            raise ConfigError(f"reviewer name {name!r} must be 1–32 letters, digits, _ or -")
    if len(set(names)) != len(names):
        raise ConfigError(f"reviewer and adjudicator names must differ (got {', '.join(names)})")
    if not base_url.startswith(("http://", "https://")) or "#" in base_url:
        raise ConfigError(f"--serve-url {base_url!r}: give http://HOST:PORT/ without a fragment")


def issue_tokens(
    root: Path, reviewers: Sequence[str], adjudicator: str, base_url: str = DEFAULT_URL
) -> dict[str, str]:
    """New tokens for ``reviewers`` and ``adjudicator`` (replacing any earlier ones);
    returns reviewer → URL and writes ``access.json`` and ``reviewer-urls.txt``."""
    check_names(reviewers, adjudicator, base_url)
    names = [*reviewers, adjudicator]
    base = base_url if base_url.endswith("/") else base_url + "/"
    tokens = {name: secrets.token_urlsafe(32) for name in names}
    grants = tuple(
        Grant(
            reviewer=name,
            role="adjudicator" if name == adjudicator else "reviewer",
            sha256=digest(token),
        )
        for name, token in tokens.items()
    )
    root.mkdir(parents=True, exist_ok=True)
    write_private(root / ACCESS_FILE, Access(grants=grants).model_dump_json(indent=1) + "\n")
    urls = {name: f"{base}#token={token}" for name, token in tokens.items()}
    lines = [f"{g.reviewer}\t{g.role}\t{urls[g.reviewer]}" for g in grants]
    write_private(root / URLS_FILE, "\n".join(lines) + "\n")
    return urls


def read_access(root: Path) -> Access:
    """The grants of a review directory (one clear error when absent or unreadable)."""
    path = root / ACCESS_FILE
    if not path.is_file():
        raise ConfigError(
            f"{root} has no {ACCESS_FILE}; issue reviewer tokens with "
            f"`sscbench review tokens {root}`"
        )
    try:
        return Access.model_validate_json(path.read_bytes())
    except ValidationError as exc:
        first = exc.errors(include_url=False, include_input=False)[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ConfigError(
            f"{path}: not a valid access file ({where}: {first['msg']}); "
            f"reissue tokens with `sscbench review tokens {root}`"
        ) from None


def who(access: Access, token: str | None) -> Grant | None:
    """The grant whose token is ``token``, compared in constant time against all."""
    if not token or len(token) > MAX_TOKEN_LENGTH:
        return None
    presented = digest(token).encode("ascii")
    found: Grant | None = None
    for grant in access.grants:
        if hmac.compare_digest(presented, grant.sha256.encode("ascii")):
            found = grant
    return found
