"""``review serve``: the annotation page and its small JSON API (Starlette).

The server exposes exactly two things of a review directory: the masked packets and the
*requesting reviewer's own* labels. Who is requesting is decided by the reviewer's token
(see :mod:`sscbench.review.access`), never by a name the client sends. It never reads
``key.jsonl`` or ``export.json`` and has no route that returns another reviewer's labels,
so the review stays blind and independent even when all reviewers use the same server.

Every API request must carry a known token, name this server in ``Host`` (a DNS-rebinding
page names its own domain) and, if it carries an ``Origin``, come from this server's
origin. A save must also be ``application/json`` (a cross-site form or ``no-cors`` fetch
can only send ``text/plain``, form or multipart bodies) and at most :data:`MAX_BODY`
bytes. Bad input is answered 400 (or 401/403/404/413/415) with one line saying what to
fix; saves that pass are appended (docs/review.md has the threat model).
"""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from sscbench.errors import ConfigError
from sscbench.review.access import TOKEN_HEADER, Grant, read_access, who
from sscbench.review.body import parse_label_body
from sscbench.review.export import PACKETS_DIR
from sscbench.review.labels import NAME, ReviewLabel, append_label, labels_file, read_labels
from sscbench.review.packet import Packet
from sscbench.review.page import CSP, PAGE
from sscbench.review.parse import InputError, first_error

MAX_BODY = 64 * 1024
"""Largest accepted label body; a full label with a 4,000-character note is under 25 KiB."""

HEADERS = {
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
}
"""Sent with every answer: nothing is cached, sniffed, referred or framed."""

LOOPBACK = {"127.0.0.1", "localhost", "::1"}


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status, headers=HEADERS)


def _json(data: object) -> JSONResponse:
    return JSONResponse(data, headers=HEADERS)


def host_names(host: str, port: int) -> frozenset[str]:
    """The ``Host`` values that name this server (loopback also answers to localhost)."""
    names = {host} | ({"127.0.0.1", "localhost"} if host in LOOPBACK else set())
    if host == "::1":
        names = (names - {"::1"}) | {"[::1]"}
    return frozenset(f"{name}:{port}" for name in names)


def load_packets(root: Path) -> dict[str, tuple[Packet, str]]:
    """packet id → (packet, its file text); an unreadable packet stops the server."""
    folder = root / PACKETS_DIR
    if not folder.is_dir():
        raise ConfigError(f"{root} has no {PACKETS_DIR}/; is it a directory from `review export`?")
    out: dict[str, tuple[Packet, str]] = {}
    for path in sorted(folder.glob("*.json")):
        text = path.read_text(encoding="utf-8")
        try:
            packet = Packet.model_validate_json(text)
        except ValidationError as exc:
            raise ConfigError(f"{path}: not a review packet ({first_error(exc)})") from None
        if packet.packet_id != path.stem or not NAME.fullmatch(path.stem):
            raise ConfigError(f"{path}: packet id {packet.packet_id!r} does not match its file")
        out[path.stem] = (packet, text)
    return out


async def read_body(request: Request, limit: int) -> bytes:
    """The body, or :class:`InputError` 413 as soon as it passes ``limit`` bytes."""
    declared = request.headers.get("content-length")
    if declared is not None:
        if not declared.isdigit():
            raise InputError("Content-Length is not a number")
        if int(declared) > limit:
            raise InputError(f"body over {limit} bytes; a label is far smaller", 413)
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise InputError(f"body over {limit} bytes; a label is far smaller", 413)
        chunks.append(chunk)
    return b"".join(chunks)


def create_app(root: Path, host: str = "127.0.0.1", port: int = 8765) -> Starlette:
    """The annotation app over the review directory ``root``, bound at ``host:port``."""
    access = read_access(root)
    packets = load_packets(root)
    models = {pid: packet for pid, (packet, _) in packets.items()}
    hosts = host_names(host, port)
    origins = frozenset(f"http://{h}" for h in hosts)
    where = f"{host}:{port}" if ":" not in host else f"[{host}]:{port}"

    def refused(request: Request) -> Response | None:
        """Host, origin and fetch-site checks shared by every route."""
        given = request.headers.get("host", "")
        if given not in hosts:
            return _error(400, f"Host {given[:80]!r} does not name this server ({where})")
        origin = request.headers.get("origin")
        site = request.headers.get("sec-fetch-site")
        if (origin is not None and origin not in origins) or site in ("cross-site", "same-site"):
            return _error(403, "cross-origin request refused: use the review page itself")
        return None

    def grant_of(request: Request) -> Grant | Response:
        denied = refused(request)
        if denied is not None:
            return denied
        grant = who(access, request.headers.get(TOKEN_HEADER))
        if grant is None:
            return _error(401, "missing or unknown review token: open your URL from review export")
        return grant

    def own_labels(reviewer: str) -> dict[str, ReviewLabel]:
        path = labels_file(root, reviewer)
        return read_labels(path) if path.is_file() else {}

    async def page(request: Request) -> Response:
        denied = refused(request)
        if denied is not None:
            return denied
        return HTMLResponse(PAGE, headers={**HEADERS, "content-security-policy": CSP})

    async def me(request: Request) -> Response:
        grant = grant_of(request)
        if isinstance(grant, Response):
            return grant
        return _json({"reviewer": grant.reviewer, "role": grant.role})

    async def listing(request: Request) -> Response:
        grant = grant_of(request)
        if isinstance(grant, Response):
            return grant
        labelled = own_labels(grant.reviewer)
        items = [
            {
                "packet_id": pid,
                "operator": str(packet.contract.get("operator", "?")),
                "calibration": packet.calibration,
                "labelled": pid in labelled,
            }
            for pid, packet in models.items()
        ]
        items.sort(key=lambda x: (not x["calibration"], str(x["packet_id"])))
        return _json({"packets": items})

    async def packet(request: Request) -> Response:
        grant = grant_of(request)
        if isinstance(grant, Response):
            return grant
        found = packets.get(request.path_params["pid"])
        if found is None:
            return _error(404, "no such packet")
        return Response(found[1], media_type="application/json", headers=HEADERS)

    async def own_label(request: Request) -> Response:
        grant = grant_of(request)
        if isinstance(grant, Response):
            return grant
        pid = request.path_params["pid"]
        if pid not in packets:
            return _error(404, "no such packet")
        label = own_labels(grant.reviewer).get(pid)
        return _json({"label": label.model_dump(mode="json") if label else None})

    async def save(request: Request) -> Response:
        grant = grant_of(request)
        if isinstance(grant, Response):
            return grant
        kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if kind != "application/json":
            return _error(415, "send the label as application/json")
        try:
            raw = await read_body(request, MAX_BODY)
            label = parse_label_body(raw, grant.reviewer, models)
        except InputError as exc:
            return _error(exc.status, str(exc))
        saved = append_label(root, label)
        return _json({"label": saved.model_dump(mode="json")})

    return Starlette(
        routes=[
            Route("/", page),
            Route("/api/me", me),
            Route("/api/packets", listing),
            Route("/api/packets/{pid}", packet),
            Route("/api/labels/{pid}", own_label),
            Route("/api/labels", save, methods=["POST"]),
        ]
    )
