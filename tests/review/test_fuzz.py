"""Property tests of the review-label parsers: a posted body and a reviewer's label file.

Whatever bytes arrive, the answer is a label or one clear line (400 on the server,
``ConfigError`` from a file, exit 2 from the command); never a traceback, a 500, or a
write of anything but one whole valid line.
"""

from __future__ import annotations

import json
import string
import warnings
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from sscbench.cli.main import main
from sscbench.errors import ConfigError
from sscbench.review.body import parse_label_body
from sscbench.review.labels import ReviewLabel, read_labels
from sscbench.review.packet import Packet
from sscbench.review.parse import InputError
from sscbench.review.server import create_app

FUZZ = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

STATUSES = st.sampled_from(["found", "never", "none", "undecidable", "FOUND", ""])
STEPS = st.one_of(
    st.none(),
    st.integers(min_value=-3, max_value=60),
    st.integers(),
    st.floats(allow_nan=False),
    st.booleans(),
    st.text(max_size=4),
)
MARKS = st.one_of(
    st.fixed_dictionaries({"status": STATUSES, "step": STEPS}),
    st.fixed_dictionaries({"status": STATUSES}),
    st.integers(),
    st.none(),
)
JSON_LEAVES = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=8))
JSON = st.recursive(
    JSON_LEAVES,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=10,
)


def near_labels(packet_ids: list[str]) -> st.SearchStrategy[dict[str, Any]]:
    """Objects shaped like labels, most fields plausible, some not."""
    return st.fixed_dictionaries(
        {
            "packet_id": st.sampled_from([*packet_ids, "pnothere", "../x", ""]),
            "t_e": MARKS,
            "t_s": MARKS,
            "t_u": MARKS,
            "adopted": st.sampled_from(["yes", "no", "undecidable", "maybe", 1]),
        },
        optional={
            "note": st.text(max_size=20),
            "reviewer": st.sampled_from(["A", "B", "../etc", ""]),
            "ts": JSON,
            "kind": st.sampled_from(["review_label", "other"]),
            "extra": JSON,
        },
    )


def bodies(packet_ids: list[str], valid: list[bytes]) -> st.SearchStrategy[bytes]:
    """Arbitrary bytes, arbitrary JSON, label-shaped JSON and valid labels, sometimes cut
    or extended."""
    shaped = near_labels(packet_ids).map(lambda x: json.dumps(x).encode())
    if valid:
        shaped = shaped | st.sampled_from(valid)
    return st.one_of(
        st.binary(max_size=200),
        JSON.map(lambda x: json.dumps(x).encode()),
        shaped,
        st.tuples(shaped, st.integers(min_value=0), st.binary(max_size=3)).map(
            lambda t: t[0][: t[1] % (len(t[0]) + 1)] + t[2]
        ),
    )


def one_line(message: str) -> None:
    assert message and "\n" not in message and "Traceback" not in message, message


def test_any_body_gives_a_label_or_one_clear_error(review: Any) -> None:
    packets = {
        p.stem: Packet.model_validate_json(p.read_text())
        for p in (review.root / "packets").glob("*.json")
    }

    valid = [json.dumps(review.good(e.packet_id)).encode() for e in review.result.entries]
    outcomes: set[str] = set()

    @FUZZ
    @given(raw=bodies(sorted(packets), valid))
    def check(raw: bytes) -> None:
        try:
            label = parse_label_body(raw, "A", packets)
        except InputError as exc:
            one_line(str(exc))
            assert exc.status in (400, 403, 404)
            outcomes.add("error")
        else:
            assert isinstance(label, ReviewLabel) and label.reviewer == "A"
            steps = {s.step for s in packets[label.packet_id].steps}
            assert all(getattr(label, e).step in (*steps, None) for e in ("t_e", "t_s", "t_u"))
            outcomes.add("label")

    check()
    assert outcomes == {"label", "error"}


def test_the_server_answers_any_body_without_a_500_or_a_partial_write(review: Any) -> None:
    client = TestClient(
        create_app(review.root), base_url="http://127.0.0.1:8765", raise_server_exceptions=False
    )
    headers = {"x-review-token": review.tokens["A"], "content-type": "application/json"}
    path = review.root / "labels" / "A.jsonl"
    pids = [e.packet_id for e in review.result.entries]
    valid = [json.dumps(review.good(pid)).encode() for pid in pids]
    statuses: set[int] = set()

    @FUZZ
    @given(raw=bodies(pids, valid))
    def check(raw: bytes) -> None:
        before = path.read_bytes() if path.exists() else b""
        reply = client.post("/api/labels", content=raw, headers=headers)
        after = path.read_bytes() if path.exists() else b""
        if reply.status_code == 200:
            added = after[len(before) :]
            assert after.startswith(before) and added.count(b"\n") == 1 and added.endswith(b"\n")
            ReviewLabel.model_validate_json(added)
        else:
            assert reply.status_code in (400, 403, 404), (reply.status_code, reply.text)
            one_line(reply.json()["error"])
            assert after == before, "a refused body writes nothing"
        statuses.add(reply.status_code)

    check()
    assert {200, 400} <= statuses


LINES = st.one_of(
    st.binary(max_size=60),
    JSON.map(lambda x: json.dumps(x).encode()),
    near_labels(["p1", "p2"]).map(lambda x: json.dumps({**x, "reviewer": "A"}).encode()),
)


@FUZZ
@given(lines=st.lists(LINES, max_size=5), newline=st.booleans())
def test_any_label_file_gives_labels_or_one_clear_error(
    tmp_path_factory: pytest.TempPathFactory, lines: list[bytes], newline: bool
) -> None:
    path = tmp_path_factory.mktemp("labels") / "A.jsonl"
    data = b"\n".join(lines) + (b"\n" if newline else b"")
    path.write_bytes(data)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            labels = read_labels(path)
    except ConfigError as exc:
        one_line(str(exc))
        assert str(path) in str(exc)
    else:
        assert all(x.reviewer == "A" for x in labels.values())
    assert path.read_bytes() == data, "reading never writes"


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    data=st.binary(max_size=80)
    | st.text(string.printable, max_size=80).map(str.encode)
    | near_labels(["p1"]).map(lambda x: json.dumps({**x, "reviewer": "A"}).encode())
)
def test_agree_on_any_label_file_exits_0_or_2_with_one_line(
    review: Any, capsys: pytest.CaptureFixture[str], data: bytes
) -> None:
    (review.root / "labels").mkdir(exist_ok=True)
    (review.root / "labels" / "A.jsonl").write_bytes(data + b"\n")
    reference = review.root / "reference.jsonl"
    reference.unlink(missing_ok=True)
    code = main(["review", "agree", str(review.root)])
    err = capsys.readouterr().err
    assert code in (0, 2)
    if code == 2:
        one_line(err.strip())
        assert not reference.exists(), "nothing is written after an error"
