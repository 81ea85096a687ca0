"""The annotation server as a hostile client meets it: tokens decide who reads and writes,
cross-site and foreign-Host requests are refused, bodies are capped and checked against the
packet, and every bad body is a 400 with one line — never a 500, never a partial write."""

from __future__ import annotations

import json
import stat
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient

from sscbench.cli.main import main
from sscbench.review.access import ACCESS_FILE, URLS_FILE
from sscbench.review.server import MAX_BODY, create_app

BASE = "http://127.0.0.1:8765"


@pytest.fixture
def client(review: Any) -> TestClient:
    return TestClient(create_app(review.root), base_url=BASE, raise_server_exceptions=False)


def auth(review: Any, who: str, **extra: str) -> dict[str, str]:
    return {"x-review-token": review.tokens[who], **extra}


def post(client: TestClient, review: Any, who: str, body: Any, **headers: str) -> Any:
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    return client.post(
        "/api/labels",
        content=content,
        headers={**auth(review, who), "content-type": "application/json", **headers},
    )


# --- tokens: who may read and write what ---------------------------------------------------


def test_tokens_are_private_files_and_only_digests_are_kept(review: Any) -> None:
    for name in (ACCESS_FILE, URLS_FILE):
        mode = stat.S_IMODE((review.root / name).stat().st_mode)
        assert mode == 0o600, (name, oct(mode))
    access = (review.root / ACCESS_FILE).read_text()
    urls = (review.root / URLS_FILE).read_text()
    assert set(review.tokens) == {"A", "B", "C", "D"}
    assert len(set(review.tokens.values())) == 4
    for name, token in review.tokens.items():
        assert len(token) >= 40
        assert token not in access, "access.json holds digests, never tokens"
        assert f"{name}\t" in urls and f"#token={token}" in urls
    assert "adjudicator" in urls.splitlines()[-1] and urls.splitlines()[-1].startswith("D\t")


def test_a_reviewer_is_served_only_their_own_labels(client: TestClient, review: Any) -> None:
    pid = review.result.entries[0].packet_id
    assert post(client, review, "A", review.good()).status_code == 200
    mine = client.get(f"/api/labels/{pid}", headers=auth(review, "A")).json()["label"]
    assert mine["reviewer"] == "A"
    assert client.get(f"/api/labels/{pid}", headers=auth(review, "B")).json()["label"] is None
    # The old route that named the reviewer in the path is gone, with or without a token.
    assert client.get(f"/api/labels/A/{pid}", headers=auth(review, "B")).status_code == 404
    assert client.get(f"/api/labels/A/{pid}").status_code == 404
    listed = client.get("/api/packets", headers=auth(review, "B")).json()["packets"]
    assert not any(p["labelled"] for p in listed)
    assert client.get("/api/me", headers=auth(review, "D")).json() == {
        "reviewer": "D",
        "role": "adjudicator",
    }


@pytest.mark.parametrize(
    "path", ["/api/me", "/api/packets", "/api/packets/{pid}", "/api/labels/{pid}"]
)
@pytest.mark.parametrize("token", [None, "", "not-a-token", "x" * 5000])
def test_every_api_route_needs_a_known_token(
    client: TestClient, review: Any, path: str, token: str | None
) -> None:
    headers = {} if token is None else {"x-review-token": token}
    pid = review.result.entries[0].packet_id
    reply = client.get(path.format(pid=pid), headers=headers)
    assert reply.status_code == 401
    assert "token" in reply.json()["error"]
    if token:
        assert token not in reply.text, "a presented token is never echoed"


def test_nobody_posts_as_someone_else(client: TestClient, review: Any) -> None:
    body = {**review.good(), "reviewer": "D"}
    reply = post(client, review, "A", body)
    assert reply.status_code == 403 and "token" in reply.json()["error"]
    no_token = client.post(
        "/api/labels", json=review.good(), headers={"content-type": "application/json"}
    )
    assert no_token.status_code == 401
    assert review.lines("A") == review.lines("D") == []
    # The token names the reviewer: a body without one is saved to the token's file.
    assert post(client, review, "D", review.good()).status_code == 200
    assert [json.loads(x)["reviewer"] for x in review.lines("D")] == ["D"]
    assert post(client, review, "B", {**review.good(), "reviewer": "B"}).status_code == 200
    assert review.lines("A") == [] and len(review.lines("B")) == 1


def test_reissued_tokens_replace_the_old_ones(review: Any) -> None:
    old = dict(review.tokens)
    assert main(["review", "tokens", str(review.root), "--reviewers", "A,B"]) == 0
    client = TestClient(create_app(review.root), base_url=BASE)
    for name in ("A", "C"):
        assert client.get("/api/me", headers={"x-review-token": old[name]}).status_code == 401
    new = dict(
        (line.split("\t")[0], line.split("#token=")[1])
        for line in (review.root / URLS_FILE).read_text().splitlines()
    )
    assert set(new) == {"A", "B", "D"}
    assert client.get("/api/me", headers={"x-review-token": new["A"]}).json()["reviewer"] == "A"


# --- cross-site requests and foreign Host headers -------------------------------------------


@pytest.mark.parametrize("kind", ["text/plain", "application/x-www-form-urlencoded", ""])
def test_a_save_must_be_json(client: TestClient, review: Any, kind: str) -> None:
    reply = post(client, review, "A", review.good(), **{"content-type": kind})
    assert reply.status_code == 415
    assert review.lines("A") == []


@pytest.mark.parametrize(
    "headers",
    [
        {"origin": "http://127.0.0.1:9999"},
        {"origin": "http://evil.example"},
        {"origin": "null"},
        {"sec-fetch-site": "cross-site"},
        {"sec-fetch-site": "same-site"},
    ],
)
def test_cross_origin_requests_are_refused_even_with_a_token(
    client: TestClient, review: Any, headers: dict[str, str]
) -> None:
    assert post(client, review, "A", review.good(), **headers).status_code == 403
    assert client.get("/api/packets", headers=auth(review, "A", **headers)).status_code == 403
    assert review.lines("A") == []
    same = post(
        client, review, "A", review.good(), origin=BASE, **{"sec-fetch-site": "same-origin"}
    )
    assert same.status_code == 200


def test_a_preflight_is_never_granted(client: TestClient, review: Any) -> None:
    reply = client.options(
        "/api/labels",
        headers={
            "origin": "http://127.0.0.1:9999",
            "access-control-request-method": "POST",
            "access-control-request-headers": "content-type,x-review-token",
        },
    )
    assert reply.status_code >= 400
    assert "access-control-allow-origin" not in reply.headers


@pytest.mark.parametrize("host", ["evil.example:8765", "127.0.0.1:9999", "127.0.0.1", ""])
def test_a_foreign_host_header_is_refused(client: TestClient, review: Any, host: str) -> None:
    assert client.get("/", headers={"host": host}).status_code == 400
    reply = post(client, review, "A", review.good(), host=host)
    assert reply.status_code == 400 and "Host" in reply.json()["error"]
    assert review.lines("A") == []


def test_loopback_also_answers_to_localhost(client: TestClient, review: Any) -> None:
    page = client.get("/", headers={"host": "localhost:8765"})
    assert page.status_code == 200
    assert "script-src 'sha256-" in page.headers["content-security-policy"]
    assert "frame-ancestors 'none'" in page.headers["content-security-policy"]
    assert page.headers["x-frame-options"] == "DENY"


# --- body size, steps, bad bodies ------------------------------------------------------------


def test_bodies_over_the_cap_are_refused(client: TestClient, review: Any) -> None:
    note = {**review.good(), "note": "x" * 3000}
    padded = json.dumps(note).encode() + b" " * (MAX_BODY + 1)
    assert post(client, review, "A", padded).status_code == 413

    def chunks() -> Iterator[bytes]:  # no Content-Length: the cap holds while streaming
        yield json.dumps(note).encode()
        for _ in range(64):
            yield b" " * 16384

    streamed = client.post(
        "/api/labels",
        content=chunks(),
        headers={**auth(review, "A"), "content-type": "application/json"},
    )
    assert streamed.status_code == 413
    assert review.lines("A") == []
    assert post(client, review, "A", json.dumps(note).encode() + b" " * 1000).status_code == 200


def _with(review: Any, event: str, step: Any, **rest: Any) -> dict[str, Any]:
    return {**review.good(), event: {"status": "found", "step": step}, **rest}


def test_steps_are_checked_against_the_packet(client: TestClient, review: Any) -> None:
    steps = review.packet()["steps"]
    kinds = {s["step"]: s["kind"] for s in steps}
    tool_result = next(s for s, k in kinds.items() if k == "tool_observation")
    user = next(s for s, k in kinds.items() if k == "user_message" and s > 0)
    call = max(s for s, k in kinds.items() if k == "tool_call")
    last = max(kinds)
    cases = [
        (_with(review, "t_e", 10**400), "too long"),
        (_with(review, "t_e", last + 1), "not a step of this packet"),
        (_with(review, "t_e", 10**6), "not a step of this packet"),
        (_with(review, "t_e", 10**7), "less than or equal"),
        (_with(review, "t_s", user), "T_S must be an agent message or tool call"),
        (
            _with(review, "t_u", tool_result, adopted="yes", t_s={"status": "undecidable"}),
            "T_U must be an agent message or tool call",
        ),
        (_with(review, "t_e", True), "valid integer"),
        (_with(review, "t_e", 3.0), "valid integer"),
        (_with(review, "t_e", "3"), "valid integer"),
    ]
    for body, message in cases:
        reply = post(client, review, "A", body)
        assert reply.status_code == 400, (body, reply.text)
        assert message in reply.json()["error"], (message, reply.json())
    assert review.lines("A") == []
    # A refutation may sit on any step; reliance on the agent's own call is fine.
    relied = _with(review, "t_u", call, adopted="yes", t_s={"status": "found", "step": call})
    assert post(client, review, "A", relied).status_code == 200, call


BAD_BODIES: list[tuple[bytes, str]] = [
    (b'{"packet_id": "\xff"}', "not valid UTF-8"),
    (b"[" * 60_000, "nested too deeply"),
    (b'{"note": ' + b"[" * 5000 + b"]" * 5000 + b"}", "nested too deeply"),
    (b'{"x": ' + b"9" * 5000 + b"}", "too long"),
    (b'{"x": NaN}', "not a JSON number"),
    (b'{"x": -Infinity}', "not a JSON number"),
    (b"", "not valid JSON"),
    (b"nope", "not valid JSON"),
    (b"[1, 2]", "expected a JSON object"),
    (b'"label"', "expected a JSON object"),
    (b"{}", "packet_id"),
    (b'{"packet_id": "../key"}', "packet_id"),
    (b'{"packet_id": "p1", "t_e": 1}', "t_e"),
]


@pytest.mark.parametrize(("raw", "message"), BAD_BODIES, ids=lambda x: repr(x)[:30])
def test_bad_bodies_get_400_and_one_line(
    client: TestClient, review: Any, raw: bytes, message: str
) -> None:
    reply = post(client, review, "A", raw)
    assert reply.status_code == 400, reply.text
    error = reply.json()["error"]
    assert message in error and "\n" not in error and len(error) < 200
    assert review.lines("A") == []


def test_unknown_packets_are_404(client: TestClient, review: Any) -> None:
    body = {**review.good(), "packet_id": "pnothere"}
    assert post(client, review, "A", body).status_code == 404
    assert client.get("/api/packets/..%2Fkey", headers=auth(review, "A")).status_code == 404
    assert client.get("/api/labels/pnothere", headers=auth(review, "A")).status_code == 404


def test_saves_are_validated_and_appended(client: TestClient, review: Any) -> None:
    body = review.good()
    assert post(client, review, "A", body).status_code == 200
    saved = post(client, review, "A", {**body, "note": "second", "ts": 1.0}).json()["label"]
    assert saved["ts"] != 1.0, "the server stamps the time"
    assert len(review.lines("A")) == 2, "append-only"
    pid = body["packet_id"]
    assert client.get(f"/api/labels/{pid}", headers=auth(review, "A")).json()["label"]["note"] == (
        "second"
    )
    bad = {**body, "t_u": {"status": "found", "step": body["t_s"]["step"]}}
    reply = post(client, review, "A", bad)
    assert reply.status_code == 400 and "A = yes" in reply.json()["error"]
    assert len(review.lines("A")) == 2


# --- the command --------------------------------------------------------------------------


def test_serve_refuses_what_it_cannot_protect(
    review: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import uvicorn

    calls: list[dict[str, Any]] = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: calls.append(kw))
    assert main(["review", "serve", str(review.root), "--host", "0.0.0.0"]) == 2
    assert main(["review", "serve", str(review.root), "--port", "70000"]) == 2
    (review.root / ACCESS_FILE).rename(review.root / "moved.json")
    assert main(["review", "serve", str(review.root)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 3 and "review tokens" in err[2]
    (review.root / "moved.json").rename(review.root / ACCESS_FILE)
    assert main(["review", "serve", str(review.root), "--port", "8899"]) == 0
    assert calls == [
        {"host": "127.0.0.1", "port": 8899, "log_level": "warning", "access_log": False}
    ]
    out = capsys.readouterr().out
    assert not any(token in out for token in review.tokens.values())


def test_tokens_are_compared_in_constant_time_against_every_grant(
    review: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import hmac

    from sscbench.review import access

    grants = access.read_access(review.root)
    seen: list[tuple[bytes, bytes]] = []
    real = hmac.compare_digest

    def counting(a: bytes, b: bytes) -> bool:
        seen.append((a, b))
        return real(a, b)

    monkeypatch.setattr(access.hmac, "compare_digest", counting)
    for token in (review.tokens["A"], review.tokens["D"], "wrong"):
        seen.clear()
        access.who(grants, token)
        assert len(seen) == len(grants.grants) == 4, "every grant is compared, no early exit"
        assert all(len(a) == len(b) == 64 for a, b in seen), "digests, not the raw token"
