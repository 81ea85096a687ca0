"""``review serve``: the annotation page and its small JSON API (Starlette).

The server exposes exactly two things of a review directory: the masked packets and the
*requesting reviewer's own* labels. It never reads ``key.jsonl`` or ``export.json`` and has
no route that returns another reviewer's labels, so the review stays blind and independent
even when all reviewers use the same server. Saves are validated (the relations of
docs/measurement.md §2) and appended; a rejected save answers 400 with the reason, which the page
shows.
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import ValidationError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from sscbench.review.export import PACKETS_DIR
from sscbench.review.labels import NAME, ReviewLabel, append_label, labels_file, read_labels
from sscbench.review.page import PAGE


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def create_app(root: Path) -> Starlette:
    """The annotation app over the review directory ``root``."""
    packets_dir = root / PACKETS_DIR

    def packet_path(pid: str) -> Path | None:
        if not NAME.fullmatch(pid):
            return None
        path = packets_dir / f"{pid}.json"
        return path if path.is_file() else None

    def own_labels(reviewer: str) -> dict[str, ReviewLabel]:
        path = labels_file(root, reviewer)
        return read_labels(path) if path.is_file() else {}

    async def page(request: Request) -> Response:
        return HTMLResponse(PAGE)

    async def packets(request: Request) -> Response:
        reviewer = request.query_params.get("reviewer", "")
        if not NAME.fullmatch(reviewer):
            return _error(400, "reviewer name: 1–32 letters, digits, _ or -")
        labelled = own_labels(reviewer)
        items = []
        for path in sorted(packets_dir.glob("*.json")):
            data = json.loads(path.read_text(encoding="utf-8"))
            items.append(
                {
                    "packet_id": path.stem,
                    "operator": data.get("contract", {}).get("operator", "?"),
                    "labelled": path.stem in labelled,
                }
            )
        return JSONResponse({"packets": items})

    async def packet(request: Request) -> Response:
        path = packet_path(request.path_params["pid"])
        if path is None:
            return _error(404, "no such packet")
        return Response(path.read_text(encoding="utf-8"), media_type="application/json")

    async def own_label(request: Request) -> Response:
        reviewer, pid = request.path_params["reviewer"], request.path_params["pid"]
        if not NAME.fullmatch(reviewer) or packet_path(pid) is None:
            return _error(404, "no such reviewer or packet")
        label = own_labels(reviewer).get(pid)
        return JSONResponse({"label": label.model_dump(mode="json") if label else None})

    async def save(request: Request) -> Response:
        try:
            body = await request.json()
        except json.JSONDecodeError:
            return _error(400, "body is not JSON")
        if not isinstance(body, dict):
            return _error(400, "body must be a JSON object")
        body.pop("ts", None)
        try:
            label = ReviewLabel.model_validate(body)
        except ValidationError as exc:
            first = exc.errors(include_url=False, include_input=False)[0]
            where = ".".join(str(p) for p in first["loc"])
            message = str(first["msg"]).removeprefix("Value error, ")
            return _error(400, f"{where}: {message}" if where else message)
        if packet_path(label.packet_id) is None:
            return _error(404, "no such packet")
        saved = append_label(root, label)
        return JSONResponse({"label": saved.model_dump(mode="json")})

    return Starlette(
        routes=[
            Route("/", page),
            Route("/api/packets", packets),
            Route("/api/packets/{pid}", packet),
            Route("/api/labels/{reviewer}/{pid}", own_label),
            Route("/api/labels", save, methods=["POST"]),
        ]
    )
